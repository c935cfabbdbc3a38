/**
 * A map task of the local runner: its split read and mapped (as strings, or as bytes for a
 * job with byte hooks), the output buffered per partition in a line arena up to the task's
 * budget, sorted, combined and written as a sorted run per partition (a spill), as Hadoop's
 * MapTask with its sort buffer. Runs on the calling thread or a task thread (task-threads.ts).
 */
import { closeSync, openSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { checkedKey, newContext, type Counters, type Job } from './job.js';
import type { BytesEmit } from './job-encoding.js';
import { hashPartition } from './partition.js';
import { isGzip, splitChunks, splitLines, type Split } from './splits.js';
import { mapper, combiner } from './streaming.js';
import { lineBatches, lineChunks } from './line-reader.js';
import { LineArena } from './line-arena.js';
import { writeArenaLines, writeRun } from './run-writer.js';
import { OutBuffer } from './out-buffer.js';
import { FileLines } from './byte-merge.js';
import { nativeSort } from '../native/sort.js';
import { LongSumGroups, longSum } from './long-sum.js';
import { mapRecordsAsBytes } from './record-bytes-map.js';
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
        else writeArenaLines(arena, fd, order, bounds[p], bounds[p + 1]);
      } finally {
        closeSync(fd);
      }
      // A combiner that gave other keys than it was given (rare): its run is sorted again.
      if (!inOrder) resortRun(path);
    }
    spills++;
    arena.reset();
  };
  const map = mapper(
    job,
    {
      record(key, value) {
        arena.addRecord(key, value, task.reduces === 1 ? 0 : partition(key, task.reduces));
        if (arena.full()) spill();
      },
      recordPieces(key, pieces) {
        const k = Buffer.from(key);
        arena.addRecordPieces(k, 0, k.length, pieces, task.reduces === 1 ? 0 : partition(key, task.reduces));
        if (arena.full()) spill();
      },
    },
    counters,
    task.properties,
    task.split.path,
    task.split.start,
  );
  const { split } = task;
  if (job.encoding?.mapBytes && job.input === 'lines') await mapLinesAsBytes(job, task, counters, arena, map, spill);
  else if (job.encoding?.mapRecordBytes && job.input === 'records') {
    await mapRecordsAsBytes(
      job,
      split,
      task.reduces,
      counters,
      task.properties,
      (key, s, e, pieces, p) => {
        arena.addRecordPieces(key, s, e, pieces, p);
        if (arena.full()) spill();
      },
      map,
    );
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
async function mapLinesAsBytes(
  job: Job,
  task: MapTask,
  counters: Counters,
  arena: LineArena,
  map: (line: string) => void | Promise<void>,
  spill: () => void,
): Promise<void> {
  const { split, reduces } = task;
  const ctx = newContext(counters, task.properties, split.path);
  const custom = job.partition;
  const encoding = job.encoding!;
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
  const emit: BytesEmit = !addon
    ? emitOne
    : (key, s, e, value) => {
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
        encoding.mapBytes!(chunk, s, nl, emit, ctx);
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
  const sums =
    job.combine === longSum
      ? new LongSumGroups(
          (key, n, sum) => {
            out.put(key, 0, n);
            out.putLine(`\t${sum}`);
          },
          counters,
          'combine input groups',
          `job ${job.name} combine input`,
        )
      : undefined;
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
    } else if (job.encoding?.combineBytes && arena.klen.length >= arena.count && combineBytes(job, arena, order, k, e, out)) {
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

/** The group `order[from, to)` through the encoding's `combineBytes`, written to `out`; false where it declined (nothing written). */
function combineBytes(job: Job, arena: LineArena, order: Int32Array, from: number, to: number, out: OutBuffer): boolean {
  const values: Buffer[] = [];
  for (let j = from; j < to; j++) {
    const i = order[j];
    const s = arena.start[i];
    values.push(arena.buf.subarray(s + arena.klen[i] + 1, s + arena.len[i]));
  }
  const pieces = job.encoding!.combineBytes!(values);
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

/** Lets go of this thread's map arena (a reduce has no use for it: a thread serves both phases of a job). */
export function releaseMapArena(): void {
  kept = undefined;
}
