/** The dedup-cdx, revisits and sort-cdx jobs: lines in, sorted lines out, summary on stderr. */
import { dedupCdx, revisits, newDedupStats } from './dedup.js';
import { externalSort, mergeSortedFiles } from '../mapreduce/external-sort.js';
import { lineBatches } from '../mapreduce/line-reader.js';
import { writeOutput } from '../util/output.js';
import { Progress, formatCounts } from '../util/progress.js';
import { parseByteSize } from '../conf/config.js';
import { dirname, resolve } from 'node:path';

export interface SortJobOptions {
  memory: string;
  tmpDir?: string;
  output?: string;
  merge: boolean;
  unique: boolean;
  say: (m: string) => void;
}

async function* concat(paths: string[], legend: { line?: string }): AsyncGenerator<string[]> {
  for (const p of paths) {
    for await (const b of lineBatches(p)) {
      // A ` CDX` legend is not data: keep the first for the top of the output.
      if (b.length && b[0].startsWith(' CDX')) {
        legend.line ??= b[0];
        yield b.slice(1);
      } else yield b;
    }
  }
}

export async function runDedupJob(job: 'dedup-cdx' | 'revisits' | 'sort-cdx', files: string[], opts: SortJobOptions): Promise<number> {
  // Spilled runs go next to the output (the disk that has room for it), else to the temp dir.
  const tmpDir = opts.tmpDir ?? (opts.output && opts.output !== '-' ? dirname(resolve(opts.output)) : undefined);
  const sortOpts = { memory: parseByteSize(opts.memory, 'nwax.sort.memory'), tmpDir };
  const progress = new Progress(`nwax ${job}`);
  const stats = newDedupStats();
  stats.onBadLine = (file, line, problem) => opts.say(`${file}: line ${line}: ${problem} (skipped)`);
  let lines = 0;
  try {
    await writeOutput(opts.output, async (out) => {
      if (job === 'sort-cdx') {
        const legend: { line?: string } = {};
        const input = opts.merge ? mergeSortedFiles(files, opts.unique) : externalSort(concat(files, legend), { ...sortOpts, unique: opts.unique });
        let first = true;
        for await (const b of input) {
          if (first && legend.line) await out.write(legend.line);
          first = false;
          const data = opts.merge ? b.filter((l) => !l.startsWith(' CDX')) : b;
          lines += data.length;
          progress.lines = lines;
          await out.writeAll(data);
        }
      } else {
        const gen = job === 'dedup-cdx' ? dedupCdx(files, sortOpts, stats) : revisits(files, sortOpts, stats);
        for await (const b of gen) {
          lines += b.length;
          progress.lines = lines;
          await out.writeAll(b);
        }
      }
    });
  } finally {
    progress.stop();
  }
  const extra: Record<string, number> = {};
  if (stats.noDigest) extra['no digest'] = stats.noDigest;
  if (stats.malformed) extra['not CDX'] = stats.malformed;
  const read = job === 'sort-cdx' ? '' : `${stats.lines} CDX lines read, `;
  opts.say(`${files.length} file${files.length === 1 ? '' : 's'}, ${read}${lines} lines written in ${progress.seconds.toFixed(1)} s${Object.keys(extra).length ? `; passed over: ${formatCounts(extra)}` : ''}`);
  // As for damaged records in `cdx`: 3 when input was passed over.
  return stats.malformed > 0 ? 3 : 0;
}
