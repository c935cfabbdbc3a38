/**
 * The `nwax cdx` job: index files in order (one after another, or several at once on worker
 * threads with --jobs), optionally sort, write to stdout or a file put in place at the end,
 * report damage as it is found and print the summary line.
 */
import { rmSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { cdxEntries, type CdxOptions } from './indexer.js';
import { formatEntry, headerLine, type CdxFormat } from './cdx-format.js';
import { skippedWhat, type ReadIssue, type ReadStats } from '../archive/reader.js';
import { writeOutput } from '../util/output.js';
import { Progress, formatBytes, formatCounts } from '../util/progress.js';
import { parseByteSize } from '../conf/config.js';
import { externalSort, writeLines } from '../mapreduce/external-sort.js';
import { lineBatches } from '../mapreduce/line-reader.js';
import { NwaxError } from '../util/errors.js';
import type { EntryCheck } from '../archive/wacz.js';
import { makeTempDir } from '../util/litter.js';

export interface CdxJobOptions extends CdxOptions {
  format: CdxFormat;
  sort: boolean;
  memory: string;
  tmpDir?: string;
  output?: string;
  header: boolean;
  jobs: number;
  quiet: boolean;
  say: (message: string) => void;
}

export interface FileResult {
  stats: ReadStats;
  lines: number;
  error?: string;
}

export function describeIssue(i: ReadIssue): string {
  return `${i.file}: offset ${i.offset}: ${i.detail} (${i.skipped ? `${i.reason}; ${skippedWhat(i.reason)} skipped` : `${i.reason}; warning`})`;
}

function emptyResult(): FileResult {
  return { stats: { records: 0, skipped: {}, warnings: {}, bytes: 0 }, lines: 0 };
}

/** The formatted lines of one file in batches; `result` is complete when the generator ends. */
export async function* fileBatches(
  path: string,
  opts: CdxOptions & { format: CdxFormat },
  onIssue: (i: ReadIssue) => void,
  result: FileResult,
  progress?: Progress,
): AsyncGenerator<string[]> {
  try {
    const run = await cdxEntries(path, { ...opts, onIssue });
    result.stats = run.stats;
    let batch: string[] = [];
    for await (const e of run.entries) {
      batch.push(formatEntry(e, opts.format));
      if (batch.length >= 4096) {
        result.lines += batch.length;
        if (progress) {
          progress.lines += batch.length;
          progress.records = run.stats.records;
          progress.current = run.stats.bytes;
        }
        yield batch;
        batch = [];
      }
    }
    result.lines += batch.length;
    if (batch.length) yield batch;
  } catch (err) {
    if ((err as NwaxError).code !== 'NWAX_INPUT') throw err;
    result.error = (err as Error).message;
  }
  if (progress) {
    progress.bytes += result.stats.bytes;
    progress.current = 0;
  }
}

/** Worker side: index one file into its part file. */
export async function indexFileToPart(
  path: string,
  part: string,
  opts: CdxOptions & { format: CdxFormat },
  onIssue: (i: ReadIssue) => void,
): Promise<FileResult> {
  const out = createWriteStream(part);
  const result = emptyResult();
  for await (const b of fileBatches(path, opts, onIssue, result)) await writeLines(out, b);
  out.end();
  await once(out, 'close');
  return result;
}

export async function runCdx(given: string[], opts: CdxJobOptions): Promise<number> {
  const progress = new Progress('nwax cdx');
  const onIssue = (i: ReadIssue) => {
    if (!opts.quiet) opts.say(describeIssue(i));
  };
  const results: FileResult[] = [];
  const packageResults: FileResult[] = [];
  const jobs = opts.jobs === 0 ? availableParallelism() : opts.jobs;
  // A WACZ package stands for its WARCs; one that cannot be read is named and counted as an
  // unreadable file, an entry whose digest is not datapackage.json's is named, counted as a
  // warning and read record by record (each record vouched for by its own digest).
  let files = given;
  let checks = new Map<string, EntryCheck>();
  // Entries whose package hash failed: each record vouched for by its own digest.
  let byRecord = new Set<string>();
  if (given.some((f) => /\.wacz$/i.test(f))) {
    const { expandPackages } = await import('../archive/wacz.js');
    // Read in this thread, an entry is hashed on another while it is read (its lines held in
    // a temporary file until the hash agrees); the worker threads of --jobs hash first.
    const expanded = await expandPackages(given, { verify: jobs > 1 ? 'first' : 'later', strict: opts.strict });
    files = expanded.files;
    checks = expanded.checks;
    byRecord = expanded.byRecord;
    for (const p of expanded.problems) {
      opts.say(p.message);
      const r = emptyResult();
      if (p.reason === 'unreadable') r.error = p.message;
      else r.stats.warnings[p.reason] = 1;
      packageResults.push(r);
    }
  }
  // Temporary files go next to the output (the disk that has room for it), else to the temp dir.
  const tmpDir = opts.tmpDir ?? (opts.output ? dirname(resolve(opts.output)) : tmpdir());
  const dir = makeTempDir(tmpDir, '.nwax-cdx-');
  try {
    await writeOutput(opts.output, async (out) => {
      const header = opts.header ? headerLine(opts.format) : undefined;
      if (header) await out.write(header);
      const input =
        jobs > 1 && files.length > 1 && !files.includes('-')
          ? viaWorkers(files, opts, jobs, onIssue, results, dir, progress, byRecord)
          : inProcess(files, opts, onIssue, results, progress, checks, dir, byRecord);
      const batches = opts.sort ? externalSort(input, { memory: parseByteSize(opts.memory, 'nwax.sort.memory'), tmpDir }) : input;
      for await (const b of batches) await out.writeAll(b);
    });
  } finally {
    progress.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return summarize(given, [...results, ...packageResults], progress, opts);
}

async function* inProcess(
  files: string[],
  opts: CdxJobOptions,
  onIssue: (i: ReadIssue) => void,
  results: FileResult[],
  progress: Progress,
  checks: Map<string, EntryCheck>,
  dir: string,
  byRecord: Set<string>,
): AsyncGenerator<string[]> {
  for (const [i, f] of files.entries()) {
    const r = emptyResult();
    results.push(r);
    const check = checks.get(f);
    if (!check) {
      yield* fileBatches(f, byRecord.has(f) ? { ...opts, verifyDigests: true } : opts, onIssue, r, progress);
    } else {
      // A WACZ entry: its hash checked while it is read; its lines given once it agrees.
      const verdict = check();
      verdict.catch(() => {});
      const held = join(dir, `entry-${i}`);
      const out = createWriteStream(held);
      for await (const b of fileBatches(f, opts, onIssue, r, progress)) await writeLines(out, b);
      out.end();
      await once(out, 'close');
      const bad = await verdict;
      if (bad && opts.strict) {
        opts.say(bad);
        results[results.length - 1] = { ...emptyResult(), error: bad };
      } else if (bad) {
        // The entry read again, each record vouched for by its own digest.
        opts.say(bad);
        const again = emptyResult();
        results[results.length - 1] = again;
        yield* fileBatches(f, { ...opts, verifyDigests: true }, onIssue, again, progress);
        again.stats.warnings['wacz-digest'] = (again.stats.warnings['wacz-digest'] ?? 0) + 1;
      } else yield* lineBatches(held);
      rmSync(held, { force: true });
    }
    if (r.error) opts.say(r.error);
  }
}

interface WorkerMessage {
  kind: 'issue' | 'done' | 'failed';
  issue?: ReadIssue;
  result?: FileResult;
  message?: string;
  code?: string;
}

/** Indexes the files on `jobs` worker threads, each into its own part; yields the parts in input order. */
async function* viaWorkers(
  files: string[],
  opts: CdxJobOptions,
  jobs: number,
  onIssue: (i: ReadIssue) => void,
  results: FileResult[],
  dir: string,
  progress: Progress,
  byRecord: Set<string>,
): AsyncGenerator<string[]> {
  const parts = files.map((_, i) => join(dir, `part-${String(i).padStart(5, '0')}`));
  const { say, ...workerOpts } = opts;
  let next = 0;
  const runOne = async (): Promise<void> => {
    while (next < files.length) {
      const i = next++;
      const worker = new Worker(new URL('./cdx-worker.js', import.meta.url), {
        workerData: { path: files[i], part: parts[i], opts: { ...workerOpts, ...(byRecord.has(files[i]) ? { verifyDigests: true } : {}) } },
      });
      await new Promise<void>((resolve, reject) => {
        worker.on('message', (m: WorkerMessage) => {
          if (m.kind === 'issue') onIssue(m.issue!);
          else if (m.kind === 'done') {
            results[i] = m.result!;
            progress.records += m.result!.stats.records;
            progress.bytes += m.result!.stats.bytes;
            if (m.result!.error) say(m.result!.error);
          } else reject(new NwaxError(m.code ?? 'NWAX_FORMAT', m.message ?? 'worker failed'));
        });
        worker.on('error', reject);
        // A thread that ends without its result (a crash, a promise that never settled) is
        // an error naming the file, never a file that silently yields nothing.
        worker.on('exit', (code) =>
          results[i] ? resolve() : reject(new NwaxError('NWAX_INTERNAL', `${files[i]}: indexing ended without a result (thread exit code ${code})`)),
        );
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, runOne));
  for (const p of parts) yield* lineBatches(p);
}

function summarize(files: string[], given: FileResult[], progress: Progress, opts: CdxJobOptions): number {
  const results = given;
  let records = 0;
  let lines = 0;
  let bytes = 0;
  let unreadable = 0;
  const skipped: Record<string, number> = {};
  const warnings: Record<string, number> = {};
  for (const r of results) {
    if (!r) continue;
    records += r.stats.records;
    lines += r.lines;
    bytes += r.stats.bytes;
    if (r.error) unreadable++;
    for (const [k, v] of Object.entries(r.stats.skipped)) skipped[k] = (skipped[k] ?? 0) + v;
    for (const [k, v] of Object.entries(r.stats.warnings)) warnings[k] = (warnings[k] ?? 0) + v;
  }
  const s = progress.seconds;
  let line = `${files.length} file${files.length === 1 ? '' : 's'}, ${records} records, ${lines} lines, ${formatBytes(bytes)} in ${s.toFixed(1)} s (${formatBytes(bytes / Math.max(s, 0.001))}/s)`;
  const nSkipped = Object.values(skipped).reduce((a, b) => a + b, 0);
  if (nSkipped) line += `; skipped ${nSkipped}: ${formatCounts(skipped)}`;
  if (Object.keys(warnings).length) line += `; warnings: ${formatCounts(warnings)}`;
  if (unreadable) line += `; unreadable files: ${unreadable}`;
  opts.say(line);
  return unreadable > 0 ? 1 : nSkipped > 0 ? 3 : 0;
}
