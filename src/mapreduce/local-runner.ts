/**
 * The local runner: a job over input files on this machine, in bounded memory. Map output is
 * buffered per partition up to the budget (`mapreduce.task.io.sort.mb`), sorted, combined and
 * appended to the partition's spill file; each partition is then sorted with the external sort
 * (the shuffle is a sort), grouped and reduced into `part-NNNNN` of the output dataset, which
 * is written aside and put in place at the end. The partitioner is Hadoop's, so a key lands in
 * the same part here and on a cluster; `nwax job NAME map | LC_ALL=C sort | nwax job NAME
 * reduce` gives the same bytes per partition (the equivalence test proves it).
 */
import { appendFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPartition, type Counters, type Job } from './job.js';
import { makeSplits, splitLines, type Split } from './splits.js';
import { mapper, reducer, combiner } from './streaming.js';
import { lineBatches } from './line-reader.js';
import { externalSort } from './external-sort.js';
import { sortByteOrder } from './byte-order.js';
import { RecordFileWriter, type RecordFileOptions } from './record-file.js';
import { partName, writeDataset } from './dataset.js';

export interface LocalRunOptions {
  inputs: string[];
  output: string;
  numReduces?: number;
  /** Bytes of map output buffered before a spill (default 64 MiB). */
  sortMemory?: number;
  tmpDir?: string;
  force?: boolean;
  /** Map tasks run at once (default 1: on this thread). */
  threads?: number;
  /** Split sizes: the input divided by the threads, kept within [min, max] (default 1 MiB, 256 MiB). */
  splitMin?: number;
  splitMax?: number;
  /** The worker script that runs a map or reduce task by job name (it lives with the job registry). */
  taskWorker?: URL;
  /** Blocks of the output parts. */
  recordFile?: RecordFileOptions;
  /** Called after each map task with the counters so far (progress). */
  onProgress?: (counters: Counters) => void;
}

export interface LocalRunResult {
  counters: Counters;
  parts: number;
  mapTasks: number;
}

export interface MapTask {
  split: Split;
  /** Spill files are `${spillPrefix}-${partition}`. */
  spillPrefix: string;
  reduces: number;
  budget: number;
}

/** One map task: its split through map, output sorted, combined and spilled per partition. */
export async function runMapTask(job: Job, task: MapTask, counters: Counters): Promise<void> {
  const partition = job.partition ?? hashPartition;
  const spills = Array.from({ length: task.reduces }, (_, p) => `${task.spillPrefix}-${p}`);
  let held: string[][] = spills.map(() => []);
  let used = 0;
  const spill = () => {
    held.forEach((lines, p) => {
      if (lines.length === 0) return;
      let out = sortByteOrder(lines);
      if (job.combine) {
        const combined: string[] = [];
        const c = combiner(job, (l) => combined.push(l), counters);
        for (const l of out) c.push(l);
        c.flush();
        out = combined;
      }
      appendFileSync(spills[p], `${out.join('\n')}\n`);
    });
    held = spills.map(() => []);
    used = 0;
  };
  const map = mapper(job, (line) => {
    const key = line.slice(0, line.indexOf('\t'));
    held[partition(key, task.reduces)].push(line);
    used += line.length + 64;
    if (used >= task.budget) spill();
  }, counters);
  const { split } = task;
  const batches = split.start === 0 && split.end < 0 ? lineBatches(split.path) : splitLines(split);
  for await (const batch of batches) for (const line of batch) map(line);
  spill();
}

function addCounters(into: Counters, from: Counters): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

export async function runLocal(job: Job, opts: LocalRunOptions): Promise<LocalRunResult> {
  const reduces = opts.numReduces ?? job.numReduces ?? 1;
  const budget = opts.sortMemory ?? 64 << 20;
  const threads = Math.max(1, opts.threads ?? 1);
  const counters: Counters = {};
  const work = mkdtempSync(join(opts.tmpDir ?? tmpdir(), 'nwax-job-'));
  try {
    // Map: splits of the inputs (enough for every thread), each a task.
    const total = opts.inputs.reduce((n, f) => n + (f === '-' ? 0 : statSync(f).size), 0);
    const splitSize = Math.min(opts.splitMax ?? 256 << 20, Math.max(opts.splitMin ?? 1 << 20, Math.ceil(total / threads)));
    const splits = makeSplits(opts.inputs, splitSize);
    const tasks: MapTask[] = splits.map((split, t) => ({ split, spillPrefix: join(work, `map-${t}`), reduces, budget: Math.floor(budget / threads) }));
    let next = 0;
    const useWorkers = threads > 1 && tasks.length > 1 && opts.taskWorker !== undefined;
    const runner = async () => {
      while (next < tasks.length) {
        const task = tasks[next++];
        const c: Counters = {};
        if (useWorkers) addCounters(c, await inWorker(opts.taskWorker!, job.name, task));
        else await runMapTask(job, task, c);
        addCounters(counters, c);
        opts.onProgress?.(counters);
      }
    };
    await Promise.all(Array.from({ length: useWorkers ? Math.min(threads, tasks.length) : 1 }, runner));

    // Shuffle and reduce: one sorted pass over each partition (all map tasks' spills) into its
    // part; partitions are independent, so several run at once on worker threads.
    await writeDataset(opts.output, async (tmp) => {
      const parallel = threads > 1 && reduces > 1 && opts.taskWorker !== undefined;
      const reduceTasks: ReduceTask[] = Array.from({ length: reduces }, (_, p) => ({
        partition: p,
        spills: tasks.map((t) => `${t.spillPrefix}-${p}`),
        output: join(tmp, partName(p)),
        budget: parallel ? Math.floor(budget / threads) : budget,
        tmpDir: work,
        recordFile: opts.recordFile,
        inProcessSort: parallel,
      }));
      let nextReduce = 0;
      const reduceRunner = async () => {
        while (nextReduce < reduceTasks.length) {
          const task = reduceTasks[nextReduce++];
          if (parallel) addCounters(counters, await inWorker(opts.taskWorker!, job.name, task));
          else await runReduceTask(job, task, counters);
        }
      };
      await Promise.all(Array.from({ length: parallel ? Math.min(threads, reduces) : 1 }, reduceRunner));
    }, { force: opts.force });
    return { counters, parts: reduces, mapTasks: tasks.length };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export interface ReduceTask {
  partition: number;
  /** The map tasks' spill files of this partition (some may not exist). */
  spills: string[];
  /** The part file to write. */
  output: string;
  budget: number;
  tmpDir: string;
  recordFile?: RecordFileOptions;
  /** Sort spilled runs on the calling thread (a worker does not start another). */
  inProcessSort: boolean;
}

/** One reduce task: its partition sorted (the shuffle), grouped and reduced into its part. */
export async function runReduceTask(job: Job, task: ReduceTask, counters: Counters): Promise<void> {
  const writer = new RecordFileWriter(task.output, task.recordFile);
  const reduce = reducer(job, (line) => {
    const tab = line.indexOf('\t');
    writer.appendLine(line.slice(0, tab), line.slice(tab + 1));
  }, counters);
  const sorted = externalSort(spillsOf(task.spills), { memory: task.budget, tmpDir: task.tmpDir, inProcess: task.inProcessSort });
  for await (const batch of sorted) for (const line of batch) reduce.push(line);
  reduce.flush();
  writer.close();
}

/** Runs one map or reduce task on a worker thread; resolves with its counters. */
function inWorker(script: URL, jobName: string, task: MapTask | ReduceTask): Promise<Counters> {
  return new Promise((resolve, reject) => {
    const w = new Worker(script, { workerData: { jobName, task } });
    w.once('message', (m: { counters?: Counters; error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m.counters!)));
    w.once('error', reject);
  });
}

async function* spillsOf(paths: string[]): AsyncGenerator<string[]> {
  for (const p of paths) if (existsSync(p)) yield* lineBatches(p);
}
