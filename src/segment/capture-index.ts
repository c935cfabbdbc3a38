/**
 * A segment's capture index, what replay looks URLs up in: `captures.cdx`, a sorted CDX11 of
 * every record of the archives the import read (redirects, revisits and the duplicates the
 * exclusion list skipped included, which the segment itself does not hold), and
 * `captures.archives`, a path index (`name TAB location TAB collection`) telling where each
 * archive the CDX names is and which collection the manifest put it in. The lines come from
 * the import's own read (capture-lines.ts: each map task writes those of its archive, as
 * `nwax cdx` prints them); `nwax import` sorts them into place after its job, each file
 * written aside and renamed.
 */
import { existsSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { archiveName, isClusterPath, isRemote, localFileOf } from '../archive/byte-source.js';
import { headerLine } from '../cdx/cdx-format.js';
import { externalSort } from '../mapreduce/external-sort.js';
import { lineBatches } from '../mapreduce/line-reader.js';
import { parseByteSize } from '../conf/config.js';
import { writeOutput } from '../util/output.js';
import type { ManifestEntry } from './manifest.js';
import { CAPTURES_ARCHIVES, CAPTURES_CDX } from './segment.js';

/** Which archives get into the capture index (nwax.import.captures). */
export type CaptureIndexScope = 'local' | 'all' | 'none';

export interface CaptureIndexOptions {
  /** `local`: the archives on this machine (replay reads them without the network); `all`: remote ones too. */
  scope: CaptureIndexScope;
  /** The folder of the lines the import's map tasks wrote. */
  linesDir: string;
  /** Sort memory (nwax.sort.memory). */
  memory: string;
  tmpDir?: string;
  say: (line: string) => void;
}

/** Where an archive is, as the path index keeps it: local paths made absolute. */
function locationOf(location: string): string {
  return isRemote(location) || isClusterPath(location) ? location : resolve(location);
}

/** Every line of the tasks' files, in batches. */
async function* taskLines(dir: string): AsyncGenerator<string[]> {
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.cdx'))
    .sort())
    yield* lineBatches(join(dir, f));
}

/** Writes the capture index of `segment` for the archives of `entries`; returns its number of lines. */
export async function writeCaptureIndex(segment: string, entries: ManifestEntry[], opts: CaptureIndexOptions): Promise<number> {
  if (opts.scope === 'none') return 0;
  const seen = new Map<string, ManifestEntry>();
  for (const e of entries) if (!seen.has(e.location)) seen.set(e.location, e);
  // An archive the import could not read has been reported; a remote one goes in only when asked.
  const archives = [...seen.values()].filter((e) =>
    isRemote(e.location) || isClusterPath(e.location) ? opts.scope === 'all' : existsSync(localFileOf(e.location)),
  );
  const left = seen.size - archives.length;
  if (left)
    opts.say(
      `capture index for replay: ${left} archive${left === 1 ? '' : 's'} left out (remote or unreadable; -D nwax.import.captures=all takes remote ones)`,
    );
  if (archives.length === 0) return 0;
  const index = archives.map((e) => `${archiveName(e.location)}\t${locationOf(e.location)}\t${e.collection}`).join('\n');
  const tmp = join(segment, `${CAPTURES_ARCHIVES}.tmp-${process.pid}`);
  writeFileSync(tmp, `${index}\n`);
  renameSync(tmp, join(segment, CAPTURES_ARCHIVES));
  let lines = 0;
  await writeOutput(join(segment, CAPTURES_CDX), async (out) => {
    await out.write(headerLine('cdx11')!);
    for await (const batch of externalSort(taskLines(opts.linesDir), {
      memory: parseByteSize(opts.memory, 'nwax.sort.memory'),
      tmpDir: opts.tmpDir ?? opts.linesDir,
    })) {
      lines += batch.length;
      await out.writeAll(batch);
    }
  });
  return lines;
}
