/**
 * A segment's capture index, what replay looks URLs up in: `captures.cdx`, a sorted CDX11 of
 * every record of the archives the import read (redirects, revisits and the duplicates the
 * exclusion list skipped included, which the segment itself does not hold), and
 * `captures.archives`, a path index (`name TAB location TAB collection`) telling where each
 * archive the CDX names is and which collection the manifest put it in. Both are written by
 * `nwax import` after its job, with the CDX indexer of `nwax cdx` (same lines as it prints),
 * each aside and renamed into place.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { isClusterPath, isRemote } from '../archive/byte-source.js';
import { runCdx } from '../cdx/cdx-job.js';
import type { ManifestEntry } from './manifest.js';
import { CAPTURES_ARCHIVES, CAPTURES_CDX } from './segment.js';

/** Which archives get into the capture index (nwax.import.captures). */
export type CaptureIndexScope = 'local' | 'all' | 'none';

export interface CaptureIndexOptions {
  /** `local`: the archives on this machine (a remote one would be read a second time); `all`: remote ones too. */
  scope: CaptureIndexScope;
  /** Threads indexing archives at once. */
  jobs: number;
  /** Sort memory (nwax.sort.memory). */
  memory: string;
  tmpDir?: string;
  say: (line: string) => void;
}

/** Where an archive is, as the path index keeps it: local paths made absolute. */
function locationOf(location: string): string {
  return isRemote(location) || isClusterPath(location) ? location : resolve(location);
}

/**
 * Writes the capture index of `segment` for the archives of `entries`; returns `nwax cdx`'s
 * exit status (3 when records were skipped; the import has already reported them).
 */
export async function writeCaptureIndex(segment: string, entries: ManifestEntry[], opts: CaptureIndexOptions): Promise<number> {
  const seen = new Map<string, ManifestEntry>();
  for (const e of entries) if (!seen.has(e.location)) seen.set(e.location, e);
  // An archive the import could not read has been reported; a remote one is read again only when asked.
  const archives = [...seen.values()].filter((e) => (isRemote(e.location) || isClusterPath(e.location) ? opts.scope === 'all' : existsSync(e.location)));
  if (opts.scope === 'none') return 0;
  const left = seen.size - archives.length;
  if (left) opts.say(`capture index for replay: ${left} archive${left === 1 ? '' : 's'} left out (remote or unreadable; -D nwax.import.captures=all reads remote ones again)`);
  if (archives.length === 0) return 0;
  const index = archives.map((e) => `${basename(e.location.replace(/[?#].*$/, ''))}\t${locationOf(e.location)}\t${e.collection}`).join('\n');
  const tmp = join(segment, `${CAPTURES_ARCHIVES}.tmp-${process.pid}`);
  writeFileSync(tmp, `${index}\n`);
  renameSync(tmp, join(segment, CAPTURES_ARCHIVES));
  return runCdx(archives.map((e) => e.location), {
    format: 'cdx11', sort: true, memory: opts.memory, tmpDir: opts.tmpDir, output: join(segment, CAPTURES_CDX),
    header: true, jobs: opts.jobs, quiet: true, canonicalizer: 'surt',
    say: (line) => opts.say(`capture index for replay: ${line}`),
  });
}
