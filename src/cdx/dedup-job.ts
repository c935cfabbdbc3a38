/** The dedup-cdx, revisits and sort-cdx jobs: lines in, sorted lines out, summary on stderr. */
import { dedupCdx, revisits, newDedupStats } from './dedup.js';
import { ExternalSorter, mergeSortedFiles, type SortOptions } from '../mapreduce/external-sort.js';
import { lineChunks } from '../mapreduce/line-reader.js';
import { writeOutput, type LineOutput } from '../util/output.js';
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

/**
 * sort-cdx: the files' lines sorted as bytes, never decoded. A ` CDX` legend on a file's first
 * line is not data: the first one is kept for the top of the output. Returns the lines written.
 */
async function sortFiles(files: string[], opts: SortOptions, out: LineOutput, progress: (lines: number) => void): Promise<number> {
  const sorter = new ExternalSorter(opts);
  let legend: Buffer | undefined;
  try {
    for (const path of files) {
      let first = true;
      // Lines taken from this file, for an error's position (gzip data that breaks off).
      const before = sorter.linesAdded;
      let legendLines = 0;
      for await (const chunk of lineChunks(path, () => sorter.linesAdded - before + legendLines)) {
        let s = 0;
        if (first) {
          const e = chunk.indexOf(0x0a);
          if (chunk.toString('latin1', 0, Math.min(e, 4)) === ' CDX') {
            legend ??= Buffer.from(chunk.subarray(0, e + 1));
            legendLines = 1;
            s = e + 1;
          }
          first = false;
        }
        await sorter.addLines(chunk, s, chunk.length);
      }
    }
  } catch (err) {
    sorter.dispose();
    throw err;
  }
  let lines = 0;
  // The legend goes first; asked where the lines go, the output says where it stands after it.
  const place = () => {
    const p = out.position(legend);
    if (p) legend = undefined;
    return p;
  };
  for await (const chunk of sorter.chunks(place)) {
    if (legend) await out.writeBytes(legend);
    legend = undefined;
    // Without -u every line read is written: counted as they went in, not again here.
    if (opts.unique) for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) lines++;
    progress(lines);
    await out.writeBytes(chunk);
  }
  return opts.unique ? lines : sorter.linesAdded;
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
      if (job === 'sort-cdx' && !opts.merge) {
        lines = await sortFiles(files, { ...sortOpts, unique: opts.unique, readerHelps: true }, out, (n) => {
          progress.lines = n;
        });
      } else if (job === 'sort-cdx') {
        // --merge: files sorted already (sort -m); legends left out.
        for await (const b of mergeSortedFiles(files, opts.unique)) {
          const data = b.filter((l) => !l.startsWith(' CDX'));
          lines += data.length;
          progress.lines = lines;
          await out.writeAll(data);
        }
      } else {
        const gen = job === 'dedup-cdx' ? dedupCdx(files, sortOpts, stats) : revisits(files, sortOpts, stats);
        for await (const b of gen) {
          await out.writeBytes(b);
          progress.lines = stats.output;
        }
        lines = stats.output;
      }
    });
  } finally {
    progress.stop();
  }
  const extra: Record<string, number> = {};
  if (stats.noDigest) extra['no digest'] = stats.noDigest;
  if (stats.malformed) extra['not CDX'] = stats.malformed;
  const read = job === 'sort-cdx' ? '' : `${stats.lines} CDX lines read, `;
  opts.say(
    `${files.length} file${files.length === 1 ? '' : 's'}, ${read}${lines} lines written in ${progress.seconds.toFixed(1)} s${Object.keys(extra).length ? `; passed over: ${formatCounts(extra)}` : ''}`,
  );
  // As for damaged records in `cdx`: 3 when input was passed over.
  return stats.malformed > 0 ? 3 : 0;
}
