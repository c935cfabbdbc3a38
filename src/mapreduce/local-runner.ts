/**
 * The local runner: a job over input files on this machine, in bounded memory. Map output is
 * buffered per partition up to the budget (`mapreduce.task.io.sort.mb`), sorted, combined and
 * written as a sorted run (a spill); each partition's runs, from all map tasks, are then merged
 * k-way (the shuffle, as Hadoop's merge: nothing is sorted twice), grouped and reduced into
 * `part-NNNNN` of the output dataset, which is written aside and put in place at the end. The partitioner is Hadoop's, so a key lands in
 * the same part here and on a cluster; `nwax job NAME map | LC_ALL=C sort | nwax job NAME
 * reduce` gives the same bytes per partition (the equivalence test proves it).
 */
import { closeSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { Worker } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkedKey, Grouper, hashPartition, newContext, type BytesEmit, type Counters, type Job } from './job.js';
import { isGzip, lineSplits, makeSplits, splitChunks, splitLines, type Split } from './splits.js';
import { mapper, combiner } from './streaming.js';
import { lineBatches, lineChunks } from './line-reader.js';
import { mergeDown, mergeRunFiles } from './external-sort.js';
import { LineArena, OutBuffer, writeRun } from './line-arena.js';
import { FileLines, mergeLines } from './byte-merge.js';
import { SUM_ARG, SUM_ARG2, SUM_EMIT, SUM_FIELDS, SUM_GROUPS, SUM_KEY_LEN, SUM_KEY_ROOM, SUM_LINE_NO, SUM_STATUS, SUM_USED, SUM_VALUE, nativeSort, type NativeSort } from './native.js';
import { RecordFileWriter, type RecordFileOptions } from './record-file.js';
import { LongSumGroups, longSum, numberAt } from './long-sum.js';
import { recordPartName, writeDataset } from './dataset.js';
import { markOutputs, partSink } from './job-output.js';
import { reduceRunsBytes, reducesBytes } from './byte-reduce.js';
import { mapRecordsAsBytes } from './record-bytes-map.js';
import { NwaxError } from '../util/errors.js';
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

export interface MapTask {
  split: Split;
  /** Spill files are `${spillPrefix}-${partition}-${n}`, each one sorted run. */
  spillPrefix: string;
  reduces: number;
  budget: number;
  properties: string[];
}

/** One map task: its split through map, output sorted, combined and spilled per partition. */
export async function runMapTask(job: Job, task: MapTask, counters: Counters): Promise<void> {
  const partition = job.partition ?? hashPartition;
  // The map output as bytes, all partitions in one arena (as Hadoop's sort buffer), sorted by
  // partition then bytes at each spill. The thread's arena from its last task is taken again:
  // a new one per task held two at once until V8 collected the old (a thread's next map task
  // put 100 MB on the group-and-count's peak RSS in three runs of five).
  const arena = kept?.budget === task.budget ? kept.arena : new LineArena(task.budget);
  kept = undefined;
  arena.reset();
  let spills = 0;
  const spill = () => {
    const { order, bounds } = arena.sorted(task.reduces);
    for (let p = 0; p < task.reduces; p++) {
      if (bounds[p] === bounds[p + 1]) continue;
      const path = `${task.spillPrefix}-${p}-${spills}`;
      const fd = openSync(path, 'w');
      let inOrder = true;
      try {
        if (job.combine) inOrder = combineRun(job, arena, order, bounds[p], bounds[p + 1], fd, counters, task.properties);
        else arena.writeLines(fd, order, bounds[p], bounds[p + 1]);
      } finally {
        closeSync(fd);
      }
      // A combiner that gave other keys than it was given (rare): its run is sorted again.
      if (!inOrder) resortRun(path);
    }
    spills++;
    arena.reset();
  };
  const map = mapper(job, {
    record(key, value) {
      arena.addRecord(key, value, task.reduces === 1 ? 0 : partition(key, task.reduces));
      if (arena.full()) spill();
    },
    recordPieces(key, pieces) {
      const k = Buffer.from(key);
      arena.addRecordPieces(k, 0, k.length, pieces, task.reduces === 1 ? 0 : partition(key, task.reduces));
      if (arena.full()) spill();
    },
  }, counters, task.properties, task.split.path, task.split.start);
  const { split } = task;
  if (job.mapBytes && job.input === 'lines') await mapLinesAsBytes(job, task, counters, arena, map, spill);
  else if (job.mapRecordBytes && job.input === 'records') {
    await mapRecordsAsBytes(job, split, task.reduces, counters, task.properties, (key, s, e, pieces, p) => {
      arena.addRecordPieces(key, s, e, pieces, p);
      if (arena.full()) spill();
    }, map);
  } else {
    const batches = split.start === 0 && split.end < 0 ? lineBatches(split.path) : splitLines(split);
    for await (const batch of batches) {
      for (const line of batch) {
        const pending = map(line);
        if (pending) await pending;
      }
    }
  }
  spill();
  kept = { arena, budget: task.budget };
}

/** The arena of this thread's last map task (tasks of a thread run one after another), and its budget. */
let kept: { arena: LineArena; budget: number } | undefined;

/** Records a batch of `mapBytes` output holds before the addon adds them. */
const EMIT_BATCH = 4096;
const EMPTY = Buffer.alloc(0);

/**
 * A map task of a job with `mapBytes`: the split read as chunks of lines, ASCII lines mapped
 * from their bytes into the arena (the key hashed as bytes, key and value copied as bytes);
 * a line with other bytes is decoded and goes through `map`, which reads it as the streaming
 * task does (invalid UTF-8 becomes U+FFFD there, so it must be decoded here too).
 */
async function mapLinesAsBytes(job: Job, task: MapTask, counters: Counters, arena: LineArena, map: (line: string) => void | Promise<void>, spill: () => void): Promise<void> {
  const { split, reduces } = task;
  const ctx = newContext(counters, task.properties, split.path);
  const custom = job.partition;
  const emitOne: BytesEmit = (key, s, e, value) => {
    counters['map output records'] = (counters['map output records'] ?? 0) + 1;
    // Hadoop's hash of the key's bytes, and the key's check, in one walk over it.
    let h = 1;
    for (let i = s; i < e; i++) {
      const c = key[i];
      if (c === 0x09 || c === 0x0a) checkedKey(job, key.toString('utf8', s, e));
      h = (Math.imul(31, h) + ((c << 24) >> 24)) | 0;
    }
    const p = reduces === 1 ? 0 : custom ? custom(key.toString('utf8', s, e), reduces) : (h & 0x7fffffff) % reduces;
    arena.addRecordBytes(key, s, e, value, p);
    if (arena.full()) spill();
  };
  // With the addon, records are added a batch at a time: their keys' places are kept while
  // their key and value buffers stay the same (the chunk's lines, a constant value), and the
  // addon hashes and copies them in one call. Order and spill points are emitOne's.
  const addon = custom ? undefined : nativeSort;
  const pairs = new Int32Array(2 * EMIT_BATCH);
  let pending = 0;
  let batchKeys: Buffer = EMPTY;
  let batchValue: Buffer = EMPTY;
  const flush = (): void => {
    let j = 0;
    while (j < pending) {
      const k = arena.addRecordBatch(addon!, batchKeys, pairs, j, pending, batchValue, reduces);
      counters['map output records'] = (counters['map output records'] ?? 0) + k - j;
      j = k;
      if (arena.full()) spill();
      else if (j < pending) {
        // A record the addon leaves (the arena's arrays must grow, or a key holds a tab).
        emitOne(batchKeys, pairs[2 * j], pairs[2 * j + 1], batchValue);
        j++;
      }
    }
    pending = 0;
  };
  const emit: BytesEmit = !addon ? emitOne : (key, s, e, value) => {
    if (key !== batchKeys || value !== batchValue || pending === EMIT_BATCH) {
      flush();
      batchKeys = key;
      batchValue = value;
    }
    pairs[2 * pending] = s;
    pairs[2 * pending + 1] = e;
    pending++;
  };
  const chunks = split.path === '-' || isGzip(split.path) ? lineChunks(split.path) : splitChunks(split);
  let records = 0;
  for await (const chunk of chunks) {
    const ascii = isAscii(chunk);
    for (let s = 0; s < chunk.length; ) {
      const nl = chunk.indexOf(0x0a, s);
      if (ascii || isAscii(chunk.subarray(s, nl))) {
        records++;
        job.mapBytes!(chunk, s, nl, emit, ctx);
      } else {
        flush();
        // `map` counts its own input records (and its line numbers are the task's lines it saw).
        const mapped = map(chunk.toString('utf8', s, nl));
        if (mapped) await mapped;
      }
      s = nl + 1;
    }
    // The next chunk may reuse this one's buffer.
    flush();
  }
  counters['map input records'] = (counters['map input records'] ?? 0) + records;
}

/**
 * Writes the sorted lines `order[from, to)` through the job's combiner. A key of one record
 * is passed on as its bytes, not decoded and combined: Hadoop's contract lets a combiner run
 * any number of times, none included, so a job's output cannot depend on it, and most keys
 * of a spill are single (a job's distinct URLs) where decoding is most of a combiner's cost.
 * Returns whether the output stayed in order (see combiner()).
 */
function combineRun(job: Job, arena: LineArena, order: Int32Array, from: number, to: number, fd: number, counters: Counters, properties: string[]): boolean {
  const out = new OutBuffer(fd);
  const c = combiner(job, (l) => out.putLine(l), counters, properties);
  // A built-in sum adds the group's values from their bytes.
  const sums = job.combine === longSum ? new LongSumGroups((key, n, sum) => {
    out.put(key, 0, n);
    out.putLine(`\t${sum}`);
  }, counters, 'combine input groups', `job ${job.name} combine input`) : undefined;
  let singles = 0;
  let k = from;
  while (k < to) {
    // With the addon, stretches of single keys are copied in one call each.
    const groupAt = out.putSingles(arena, order, k, to);
    singles += groupAt - k;
    k = groupAt;
    if (k === to) break;
    let e = k + 1;
    while (e < to && arena.sameKey(order[k], order[e])) e++;
    if (e - k === 1) {
      const i = order[k];
      out.put(arena.buf, arena.start[i], arena.start[i] + arena.len[i] + 1);
      // Still a group of the combine step (Hadoop, which calls the combiner on it, counts it).
      singles++;
    } else if (job.combineBytes && arena.klen.length >= arena.count && combineBytes(job, arena, order, k, e, out)) {
      counters['combine input groups'] = (counters['combine input groups'] ?? 0) + 1;
    } else if (sums) {
      for (let j = k; j < e; j++) sums.push(arena.buf, arena.start[order[j]], arena.start[order[j]] + arena.len[order[j]]);
      sums.flush();
    } else {
      for (let j = k; j < e; j++) c.grouper.push(arena.line(order[j]));
      c.grouper.flush();
    }
    k = e;
  }
  out.flush();
  if (singles > 0) counters['combine input groups'] = (counters['combine input groups'] ?? 0) + singles;
  return c.inOrder();
}

const NEWLINE = Buffer.from('\n');

/** The group `order[from, to)` through `job.combineBytes`, written to `out`; false where it declined (nothing written). */
function combineBytes(job: Job, arena: LineArena, order: Int32Array, from: number, to: number, out: OutBuffer): boolean {
  const values: Buffer[] = [];
  for (let j = from; j < to; j++) {
    const i = order[j];
    const s = arena.start[i];
    values.push(arena.buf.subarray(s + arena.klen[i] + 1, s + arena.len[i]));
  }
  const pieces = job.combineBytes!(values);
  if (!pieces) return false;
  const i = order[from];
  out.put(arena.buf, arena.start[i], arena.start[i] + arena.klen[i] + 1);
  for (const p of pieces) out.put(p, 0, p.length);
  out.put(NEWLINE, 0, 1);
  return true;
}

/**
 * Sorts a run file in place, in memory: a combiner's output is no larger than the spill it
 * combined (which fitted the budget) for every combiner that groups, as combiners do.
 */
function resortRun(path: string): void {
  const arena = new LineArena(Infinity);
  const lines = new FileLines(path);
  while (lines.next()) arena.addBytes(lines.buf, lines.s, lines.e);
  writeRun(arena, path, false);
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
    const tasks: MapTask[] = splits.map((split, t) => ({ split, spillPrefix: join(work, `map-${t}`), reduces, budget: Math.floor(budget / threads), properties }));
    const useWorkers = threads > 1 && tasks.length > 1 && opts.taskWorker !== undefined;
    // The task threads of both phases: a reduce runs on a thread the map phase started.
    pool = opts.taskWorker && threads > 1 ? new TaskThreads(opts.taskWorker, job.name, poolHeapMb(budget, threads), job.taskOldSpaceMb) : undefined;
    const mapStart = performance.now();
    await runTasks(tasks, threads, (task, c) => runMapTask(job, task, c), (c) => {
      addCounters(counters, c);
      opts.onProgress?.(counters);
    }, useWorkers ? pool : undefined);

    const reduceStart = performance.now();
    // Shuffle and reduce: one sorted pass over each partition (all map tasks' spills) into its
    // part; partitions are independent, so several run at once on worker threads.
    await writeDataset(opts.output, async (tmp) => {
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
      await runTasks(reduceTasks, threads, (task, c) => runReduceTask(job, task, c), (c) => addCounters(counters, c),
        parallel ? pool : undefined);
      markOutputs(job, tmp);
      await opts.commitJob?.(tmp, counters);
    }, { force: opts.force });
    const end = performance.now();
    return { counters, parts: reduces, mapTasks: tasks.length, mapSeconds: (reduceStart - mapStart) / 1000, reduceSeconds: (end - reduceStart) / 1000 };
  } finally {
    await pool?.close();
    rmSync(work, { recursive: true, force: true });
  }
}

export interface ReduceTask {
  partition: number;
  /** The map tasks' sorted runs of this partition. */
  spills: string[];
  /** The output dataset being written: the part goes in it, or in each named output's folder. */
  dir: string;
  properties: string[];
  /** Where intermediate merges are written. */
  tmpDir: string;
  /** Runs merged at once; more are merged in passes first (open files and read buffers). */
  mergeFactor: number;
  recordFile?: RecordFileOptions;
}

/** One reduce task: its partition's runs merged (the shuffle), grouped and reduced into its part. */
export async function runReduceTask(job: Job, task: ReduceTask, counters: Counters): Promise<void> {
  // The thread's map arena is of no use to a reduce (a thread serves both phases of a job).
  kept = undefined;
  const runs = await mergeDown(task.spills, task.mergeFactor, join(task.tmpDir, `reduce-${task.partition}-merge`));
  counters['shuffled runs'] = (counters['shuffled runs'] ?? 0) + task.spills.length;
  if (runs.length < task.spills.length) counters['runs merged in passes'] = (counters['runs merged in passes'] ?? 0) + task.spills.length - runs.length;
  if (job.reduce === longSum && !job.outputs && !job.outputFormat) {
    sumRuns(job, runs, join(task.dir, recordPartName(task.partition)), counters, task.recordFile);
    return;
  }
  if (reducesBytes(job)) {
    reduceRunsBytes(job, runs, task.dir, task.partition, task.properties, counters, task.recordFile);
    return;
  }
  const ctx = newContext(counters, task.properties);
  const sink = partSink(job, task.dir, task.partition, ctx, task.recordFile);
  const reduce = new Grouper(job, (key, value) => {
    ctx.count('reduce output records');
    sink.write(checkedKey(job, key), value);
  }, ctx);
  if (job.reduceValueFromBytes && !job.rawValues) {
    for (const chunk of mergeLines(runs.map((r) => new FileLines(r)), false, 64 << 10)) {
      for (let s = 0; s < chunk.length; ) {
        const nl = chunk.indexOf(0x0a, s);
        reduce.pushBytes(chunk, s, nl);
        s = nl + 1;
      }
    }
  } else {
    for (const batch of mergeRunFiles(runs)) for (const line of batch) reduce.push(line);
  }
  reduce.flush();
  sink.close();
}


/**
 * The reduce of a job whose reduce is the built-in sum: the merged runs grouped and summed as
 * bytes, each key and sum appended to the part as bytes (no line decoded, no JSON parsed for
 * an integer value).
 */
function sumRuns(job: Job, runs: string[], part: string, counters: Counters, recordFile?: RecordFileOptions): void {
  if (nativeSort) {
    sumRunsNative(nativeSort, job, runs, part, counters, recordFile);
    return;
  }
  const writer = new RecordFileWriter(part, recordFile);
  // Whether the key being written is known to be ASCII (as long in bytes as in characters).
  let ascii = false;
  let before = false;
  const groups = new LongSumGroups((key, n, sum) => {
    counters['reduce output records'] = (counters['reduce output records'] ?? 0) + 1;
    writer.appendBytes(key, 0, n, sum, ascii);
  }, counters, 'reduce input groups', `job ${job.name} reduce input`);
  for (const chunk of mergeLines(runs.map((r) => new FileLines(r)))) {
    // A key written while this chunk is read comes from it or from the chunk before (a group
    // that runs over several chunks holds its key in each): ASCII when both are.
    const now = isAscii(chunk);
    ascii = now && before;
    before = now;
    for (let s = 0; s < chunk.length; ) {
      const nl = chunk.indexOf(0x0a, s);
      groups.push(chunk, s, nl);
      s = nl + 1;
    }
  }
  groups.flush();
  writer.close();
}

/**
 * `sumRuns` through the addon: it groups, sums and writes the lines into the part's block in
 * place, and returns here for what JavaScript does (a value to parse as JSON, a sum to format,
 * a full block to gzip, a longer key). The part's bytes are the same.
 */
function sumRunsNative(addon: NativeSort, job: Job, runs: string[], part: string, counters: Counters, recordFile?: RecordFileOptions): void {
  const writer = new RecordFileWriter(part, recordFile);
  const st = new Int32Array(SUM_FIELDS);
  st[SUM_KEY_LEN] = -1;
  const sum = new Float64Array(1);
  let key = Buffer.allocUnsafeSlow(1024);
  let jsGroups = 0;
  const what = `job ${job.name} reduce input`;
  for (const chunk of mergeLines(runs.map((r) => new FileLines(r)))) {
    let p = 0;
    while (p < chunk.length) {
      const block = writer.blockFor(st, SUM_USED);
      p = addon.longSum(key, block, writer.blockSize, chunk, p, chunk.length, st, sum);
      writer.blockWritten(st, SUM_USED);
      const status = st[SUM_STATUS];
      if (status === SUM_KEY_ROOM) key = Buffer.allocUnsafeSlow(st[SUM_ARG] * 2);
      else if (status === SUM_VALUE) sum[0] += numberAt(chunk, st[SUM_ARG], st[SUM_ARG2], () => `${what}, line ${st[SUM_LINE_NO]}`);
      else if (status === SUM_EMIT) {
        writer.appendBytes(key, 0, st[SUM_KEY_LEN], Number.isFinite(sum[0]) ? String(sum[0]) : 'null');
        jsGroups++;
        st[SUM_KEY_LEN] = -1;
        sum[0] = 0;
      }
    }
  }
  if (st[SUM_KEY_LEN] >= 0) {
    writer.appendBytes(key, 0, st[SUM_KEY_LEN], Number.isFinite(sum[0]) ? String(sum[0]) : 'null');
    jsGroups++;
  }
  writer.close();
  const groups = st[SUM_GROUPS] + jsGroups;
  counters['reduce input groups'] = (counters['reduce input groups'] ?? 0) + groups;
  counters['reduce output records'] = (counters['reduce output records'] ?? 0) + groups;
}

/**
 * Heap per byte of a map task's buffer. The buffer itself is a line arena, off the heap; what
 * the heap holds in proportion to it is the garbage of making the records and of combining a
 * spill's repeated keys (group-and-count: 13 s either way; 460 MB peak at 1, 540 MB at
 * 3, the factor of the string buffer).
 */
const HEAP_PER_BUFFERED_BYTE = 1;

/** Task threads started with a job's taskOldSpaceMb whose heaps are not made yet. */
let oldSpacePending = 0;

/**
 * Has the threads started from now on make their heaps with `mb` MB of old space, until
 * `made` is called once for each. V8's flag is process-wide and read when a heap is made (the
 * heaps already made keep theirs), so it is set for these threads and put back to V8's own (0)
 * once each is online: a job after them in this process (the crawl's index after its parse)
 * starts as V8 would start it.
 */
function withOldSpace(mb: number): () => void {
  if (oldSpacePending++ === 0) setFlagsFromString(`--initial-old-space-size=${mb}`);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--oldSpacePending === 0) setFlagsFromString('--initial-old-space-size=0');
  };
}

/**
 * A worker thread that runs tasks one after another: started once per thread of a phase, so
 * that a job of many small tasks does not pay a thread start and its module loading (a third
 * of a second for the import's parsers) per task.
 */
class TaskThread {
  private readonly worker: Worker;
  private pending: { resolve: (c: Counters) => void; reject: (e: Error) => void } | undefined;

  constructor(script: URL, heapMb: number, oldSpaceMb = 0) {
    const made = oldSpaceMb > 0 ? withOldSpace(oldSpaceMb) : undefined;
    try {
      this.worker = new Worker(script, { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    } catch (err) {
      made?.();
      throw err;
    }
    if (made) {
      this.worker.once('online', made);
      this.worker.once('exit', made);
    }
    this.worker.on('message', (m: { counters?: Counters; error?: string; code?: string; exitCode?: number; warn?: string }) => {
      if (m.warn !== undefined) {
        process.stderr.write(`${m.warn}\n`);
        return;
      }
      const p = this.pending;
      this.pending = undefined;
      if (m.error === undefined) p?.resolve(m.counters!);
      else p?.reject(m.code?.startsWith('NWAX_') ? new NwaxError(m.code, m.error, m.exitCode) : new Error(m.error));
    });
    const fail = (err: Error) => {
      const p = this.pending;
      this.pending = undefined;
      p?.reject(err);
    };
    this.worker.on('error', (err: Error & { code?: string }) => fail(err.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? new NwaxError('NWAX_MEMORY', `a task ran out of its ${heapMb} MB heap (${err.message}); give the job more memory (--memory) or fewer threads`)
      : err));
    this.worker.on('exit', (code) => {
      this.exited = true;
      fail(new Error(`task worker exited (${code})`));
    });
  }

  /** The thread has ended (a task that died takes its thread with it). */
  private exited = false;

  /**
   * Has the thread load job `jobName`'s module while the command still plans the job; until a
   * job takes it (`adopt`), the thread does not keep the process alive.
   */
  preload(jobName: string): void {
    this.worker.unref();
    this.worker.postMessage({ preload: jobName });
  }

  adopt(): void {
    this.worker.ref();
  }

  /** Ends a started thread that no job took. */
  terminate(): void {
    void this.worker.terminate();
  }

  get alive(): boolean {
    return !this.exited;
  }

  run(jobName: string, task: MapTask | ReduceTask): Promise<Counters> {
    if (this.exited) return Promise.reject(new Error('task worker exited'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage({ jobName, task });
    });
  }

  /** Lets the thread end on its own (anything it still writes to stderr is delivered). */
  close(): Promise<void> {
    // A thread that died already will not say 'exit' again.
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => void this.worker.terminate(), 10_000);
      this.worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.postMessage({ close: true });
    });
  }
}

/**
 * Runs `tasks` on `threads` task threads of the pool (or on this thread), each thread taking
 * the next task when it is done with one. When a task fails no new task
 * starts, the ones under way finish, and the error of the first failed task in input order is
 * thrown: which error a run reports does not depend on which thread was quicker.
 */
async function runTasks<T extends MapTask | ReduceTask>(tasks: T[], threads: number, here: (t: T, c: Counters) => Promise<void>,
  done: (c: Counters) => void, pool?: TaskThreads): Promise<void> {
  let next = 0;
  const failed: { index: number; error: unknown }[] = [];
  const runner = async (r: number) => {
    while (next < tasks.length && failed.length === 0) {
      const index = next++;
      const task = tasks[index];
      const c: Counters = {};
      try {
        if (pool) Object.assign(c, await pool.thread(r).run(pool.jobName, task));
        else await here(task, c);
      } catch (error) {
        failed.push({ index, error });
        return;
      }
      done(c);
    }
  };
  await Promise.all(Array.from({ length: pool ? Math.min(threads, tasks.length) : 1 }, (_, r) => runner(r)));
  if (failed.length) throw failed.reduce((a, b) => (b.index < a.index ? b : a)).error;
}

/**
 * A job's task threads, started as a phase first needs each and kept for the next phase: the
 * reduce runs on the threads the map phase started (each start and its module loading cost
 * 40-60 ms, on the way from one phase to the next). The heap limit is the larger of the two
 * phases'. They end with the job, their stderr flushed.
 */
class TaskThreads {
  private readonly threads: TaskThread[] = [];

  constructor(private readonly script: URL, readonly jobName: string, private readonly heapMb: number, private readonly oldSpaceMb = 0) {
    const started = warm;
    warm = undefined;
    if (!started) return;
    if (started.key !== poolKey(script, jobName, heapMb, oldSpaceMb)) {
      for (const t of started.threads) t.terminate();
      return;
    }
    // (A thread that died while it waited is left out; the job starts another in its place.)
    for (const thread of started.threads.filter((t) => t.alive)) {
      thread.adopt();
      this.threads.push(thread);
    }
  }

  thread(r: number): TaskThread {
    return (this.threads[r] ??= new TaskThread(this.script, this.heapMb, this.oldSpaceMb));
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t?.close()));
  }
}

/** A map task's heap, capped near what its buffer's records cost on the heap plus room for
 * what the map itself holds (a page being parsed), so V8 collects early instead of growing
 * the heap far past the budget. */
function mapHeapMb(taskBudget: number): number {
  return Math.ceil((taskBudget * HEAP_PER_BUFFERED_BYTE) / 2 ** 20) + 256;
}

/** A reduce streams: a fixed heap. */
const REDUCE_HEAP_MB = 512;

/** The heap limit of a job's task threads: the larger of its two phases'. */
function poolHeapMb(budget: number, threads: number): number {
  return Math.max(mapHeapMb(Math.floor(budget / threads)), REDUCE_HEAP_MB);
}

function poolKey(script: URL, jobName: string, heapMb: number, oldSpaceMb: number): string {
  return `${script.href} ${jobName} ${heapMb} ${oldSpaceMb}`;
}

/** Task threads that warmTaskThreads started, until runLocal takes them. */
let warm: { key: string; threads: TaskThread[] } | undefined;

/**
 * Starts `count` task threads (at most `threads`) of a job that runLocal will run with
 * `threads` threads and a sort budget of `sortMemory` bytes, each loading the job's module,
 * while the command still reads its inputs and plans the job. A thread's start and module
 * loading (about 0.1 s, more for the import's parsers) then overlap the command's own instead
 * of following it. runLocal takes them when its job, threads and budget are these, and starts
 * any others it needs as before; otherwise they end. Until then they do not keep the process
 * alive. `oldSpaceMb` is the job's taskOldSpaceMb. Returns how many threads were started.
 */
export function warmTaskThreads(script: URL, jobName: string, threads: number, sortMemory: number, count = threads, oldSpaceMb = 0): number {
  const n = Math.min(threads, count);
  if (threads <= 1 || n < 1) return 0;
  const heapMb = poolHeapMb(sortMemory, threads);
  const key = poolKey(script, jobName, heapMb, oldSpaceMb);
  if (warm?.key === key) return 0;
  // Threads warmed for a job that never ran (its command failed first) make way.
  for (const t of warm?.threads ?? []) t.terminate();
  const started = Array.from({ length: n }, () => new TaskThread(script, heapMb, oldSpaceMb));
  for (const t of started) t.preload(jobName);
  warm = { key, threads: started };
  return n;
}

/** The sorted runs that the map tasks spilled for partition `p`. */
function runsOf(work: string, p: number): string[] {
  const name = new RegExp(`^map-\\d+-${p}-\\d+$`);
  return readdirSync(work).filter((f) => name.test(f)).map((f) => join(work, f));
}
