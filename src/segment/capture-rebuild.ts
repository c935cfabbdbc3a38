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
import { isClusterPath, isRemote, localFileOf } from '../archive/byte-source.js';
import { makeTempDir } from '../util/litter.js';
import { CaptureLines } from './capture-lines.js';
import { writeCaptureIndex, type CaptureIndexOptions } from './capture-index.js';
import { SUCCESS } from '../mapreduce/dataset.js';
import { InputError, visible } from '../util/errors.js';
import { describeIssue } from '../cdx/cdx-job.js';
import type { ManifestEntry } from './manifest.js';

export interface RebuildResult {
  /** Lines of the capture index written. */
  lines: number;
  /** Damaged records skipped, and archives of this machine that are missing or unreadable. */
  skipped: number;
}

export async function rebuildCaptureIndex(segment: string, entries: ManifestEntry[], opts: Omit<CaptureIndexOptions, 'linesDir'>): Promise<RebuildResult> {
  if (!existsSync(join(segment, SUCCESS))) throw new InputError(`${segment}: not a finished segment (no ${SUCCESS}); import it first`);
  const dir = resolve(dirname(resolve(segment)));
  mkdirSync(dir, { recursive: true });
  const linesDir = makeTempDir(dir, `${basename(segment)}.captures-`);
  let skipped = 0;
  try {
    for (const e of entries) {
      const remote = isRemote(e.location) || isClusterPath(e.location);
      if (remote && opts.scope !== 'all') continue;
      if (!remote && !existsSync(localFileOf(e.location))) {
        opts.say(`${visible(e.location)}: no such file; its captures are left out`);
        skipped++;
        continue;
      }
      const lines = new CaptureLines(linesDir);
      try {
        // Damage is reported as nwax cdx reports it, and costs only the damaged records' lines.
        const run = await cdxEntries(e.location, {
          onIssue: (i) => {
            opts.say(describeIssue(i));
            if (i.skipped) skipped++;
          },
        });
        for await (const entry of run.entries) lines.add(entry);
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        opts.say(`${visible((err as Error).message)}; its captures are left out`);
        skipped++;
      } finally {
        lines.close();
      }
    }
    return { lines: await writeCaptureIndex(segment, entries, { ...opts, linesDir }), skipped };
  } finally {
    rmSync(linesDir, { recursive: true, force: true });
  }
}
