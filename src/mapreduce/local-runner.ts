/**
 * The local runner: a job over input files on this machine, in bounded memory. Map output is
 * buffered per partition up to the budget (`mapreduce.task.io.sort.mb`), sorted, combined and
 * written as a sorted run (a spill); each partition's runs, from all map tasks, are then merged
 * k-way (the shuffle, as Hadoop's merge: nothing is sorted twice), grouped and reduced into
 * `part-NNNNN` of the output dataset, which is written aside and put in place at the end. The
 * partitioner is Hadoop's, so a key lands in the same part here and on a cluster; `nwax job
 * NAME map | LC_ALL=C sort | nwax job NAME reduce` gives the same bytes per partition (the
 * equivalence test proves it). This file plans and runs the two phases; the map task
 * (map-task.ts), the reduce task (reduce-task.ts) and the threads they run on (task-threads.ts)
 * are apart, as Hadoop's MapTask, ReduceTask and LocalJobRunner are.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Counters, Job } from './job.js';
import { lineSplits, makeSplits, type Split } from './splits.js';
import { writeDataset } from './dataset.js';
import { markOutputs } from './job-output.js';
import type { RecordFileOptions } from './record-file.js';
import { runMapTask, type MapTask } from './map-task.js';
import { runReduceTask, type ReduceTask } from './reduce-task.js';
import { TaskThreads, poolHeapMb, runTasks } from './task-threads.js';
import { makeTempDir } from '../util/litter.js';
export interface LocalRunOptions {
  inputs: string[];
  output: string;
  numReduces?: number;
  /** Bytes of map output buffered before a spill (default 64 MiB). */
  sortMemory?: number;
  tmpDir?: string;
  force?: boolean;
  /** Sorted runs a reduce merges at once (default 32; `mapreduce.task.io.sort.factor`). */
  mergeFactor?: number;
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
  /** -D overrides: every task loads the configuration with them. */
  properties?: string[];
  /**
   * Hadoop's OutputCommitter.commitJob: the caller's last writes into the output (given the
   * folder written aside, the counters), once every task is done and before the output is
   * renamed into place, so they are part of the same commit (a kill leaves the old output or
   * the whole new one).
   */
  commitJob?: (dir: string, counters: Counters) => Promise<void>;
}

export interface LocalRunResult {
  counters: Counters;
  parts: number;
  mapTasks: number;
  /** Seconds of the map phase, and of the shuffle and reduce (where a job's time goes). */
  mapSeconds: number;
  reduceSeconds: number;
}

function addCounters(into: Counters, from: Counters): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

export async function runLocal(job: Job, opts: LocalRunOptions): Promise<LocalRunResult> {
  const reduces = opts.numReduces ?? job.numReduces ?? 1;
  const budget = opts.sortMemory ?? 64 << 20;
  const threads = Math.max(1, opts.threads ?? 1);
  const counters: Counters = {};
  const work = makeTempDir(opts.tmpDir ?? tmpdir(), 'nwax-job-');
  let pool: TaskThreads | undefined;
  try {
    // Map: splits of the inputs (enough for every thread), each a task.
    const total = opts.inputs.reduce((n, f) => n + (f === '-' ? 0 : statSync(f).size), 0);
    // As many splits as threads, or a multiple of them when max caps the size: no thread idles
    // through a last round that only one split needs.
    const perRound = Math.ceil(total / (opts.splitMax ?? 256 << 20) / threads) * threads;
    const splitSize = Math.min(opts.splitMax ?? 256 << 20, Math.max(opts.splitMin ?? 1 << 20, Math.ceil(total / Math.max(threads, perRound))));
    const splits = job.linesPerSplit ? lineSplits(opts.inputs, job.linesPerSplit) : makeSplits(opts.inputs, splitSize);
    const properties = opts.properties ?? [];
    const tasks: MapTask[] = splits.map((split, t) => ({
      split,
      spillPrefix: join(work, `map-${t}`),
      reduces,
      budget: Math.floor(budget / threads),
      properties,
    }));
    // Run largest first, as Hadoop hands out splits: a large split last would keep one thread
    // busy while the others wait, and a thread that goes from dataset to dataset in size order
    // has V8 optimize its map code for the large ones first. The spills keep the split's
    // number, so the reduce merges the same runs in the same order whatever order the tasks
    // ran in. A manifest's splits (import) stay in its order: their bytes say nothing of the
    // archives they list, and the first bad archive is the one a strict import names.
    if (!job.linesPerSplit) {
      const bytes = new Map(tasks.map((t) => [t, splitBytes(t.split)]));
      tasks.sort((a, b) => bytes.get(b)! - bytes.get(a)!);
    }
    const useWorkers = threads > 1 && tasks.length > 1 && opts.taskWorker !== undefined;
    // The task threads of both phases: a reduce runs on a thread the map phase started.
    pool = opts.taskWorker && threads > 1 ? new TaskThreads(opts.taskWorker, job.name, poolHeapMb(budget, threads), job.taskOldSpaceMb) : undefined;
    const mapStart = performance.now();
    await runTasks(
      tasks,
      threads,
      (task, c) => runMapTask(job, task, c),
      (c) => {
        addCounters(counters, c);
        opts.onProgress?.(counters);
      },
      useWorkers ? pool : undefined,
    );

    const reduceStart = performance.now();
    // Shuffle and reduce: one sorted pass over each partition (all map tasks' spills) into its
    // part; partitions are independent, so several run at once on worker threads.
    await writeDataset(
      opts.output,
      async (tmp) => {
        const parallel = threads > 1 && reduces > 1 && opts.taskWorker !== undefined;
        const reduceTasks: ReduceTask[] = Array.from({ length: reduces }, (_, p) => ({
          partition: p,
          spills: runsOf(work, p),
          dir: tmp,
          properties,
          tmpDir: work,
          mergeFactor: Math.max(2, opts.mergeFactor ?? 32),
          recordFile: opts.recordFile,
        }));
        await runTasks(
          reduceTasks,
          threads,
          (task, c) => runReduceTask(job, task, c),
          (c) => addCounters(counters, c),
          parallel ? pool : undefined,
        );
        markOutputs(job, tmp);
        await opts.commitJob?.(tmp, counters);
      },
      { force: opts.force },
    );
    const end = performance.now();
    return { counters, parts: reduces, mapTasks: tasks.length, mapSeconds: (reduceStart - mapStart) / 1000, reduceSeconds: (end - reduceStart) / 1000 };
  } finally {
    await pool?.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The sorted runs that the map tasks spilled for partition `p`. */
function runsOf(work: string, p: number): string[] {
  const name = new RegExp(`^map-(\\d+)-${p}-(\\d+)$`);
  // In the order of the splits and of each split's spills, not the directory's (a file
  // system's own order), so the merge's ties fall the same way on every machine.
  return readdirSync(work)
    .map((f) => name.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]) || Number(a[2]) - Number(b[2]))
    .map((m) => join(work, m[0]));
}

/** A split's bytes (a whole file's where it runs to the end; none for standard input). */
function splitBytes(split: Split): number {
  if (split.path === '-') return 0;
  return (split.end < 0 ? statSync(split.path).size : split.end) - split.start;
}
