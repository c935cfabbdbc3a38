/**
 * A segment's capture index written again from its manifest's archives, for a segment that
 * has none (imported with --cdx, on Hadoop, with nwax.import.captures=none, or by an import
 * older than the one that commits the index with the segment): each archive is read as
 * `nwax cdx` reads it, its lines written as an import's map tasks write them
 * (capture-lines.ts), and sorted into place as the import does (capture-index.ts).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { cdxEntries } from '../cdx/indexer.js';
import { isClusterPath, isRemote } from '../archive/byte-source.js';
import { makeTempDir } from '../util/litter.js';
import { CaptureLines } from './capture-lines.js';
import { writeCaptureIndex, type CaptureIndexOptions } from './capture-index.js';
import { SUCCESS } from '../mapreduce/dataset.js';
import { InputError } from '../util/errors.js';
import type { ManifestEntry } from './manifest.js';

export async function rebuildCaptureIndex(segment: string, entries: ManifestEntry[], opts: Omit<CaptureIndexOptions, 'linesDir'>): Promise<number> {
  if (!existsSync(join(segment, SUCCESS))) throw new InputError(`${segment}: not a finished segment (no ${SUCCESS}); import it first`);
  const dir = resolve(dirname(resolve(segment)));
  mkdirSync(dir, { recursive: true });
  const linesDir = makeTempDir(dir, `${basename(segment)}.captures-`);
  try {
    for (const e of entries) {
      const remote = isRemote(e.location) || isClusterPath(e.location);
      if (remote ? opts.scope !== 'all' : !existsSync(e.location)) continue;
      const lines = new CaptureLines(linesDir);
      try {
        // Damage has been reported by the import; here it only costs the damaged records' lines.
        const run = await cdxEntries(e.location, { onIssue: () => {} });
        for await (const entry of run.entries) lines.add(entry);
      } finally {
        lines.close();
      }
    }
    return await writeCaptureIndex(segment, entries, { ...opts, linesDir });
  } finally {
    rmSync(linesDir, { recursive: true, force: true });
  }
}
