/**
 * A reduce task of the local runner: its partition's sorted runs from every map task merged
 * k-way (the shuffle, in passes of `mergeFactor` runs when there are more), grouped and
 * reduced into its part of the output, as Hadoop's ReduceTask. The built-in sum and the jobs
 * with byte hooks reduce from the merged bytes without decoding lines.
 */
import { isAscii } from 'node:buffer';
import { join } from 'node:path';
import { checkedKey, newContext, type Counters, type Job } from './job.js';
import { Grouper } from './grouper.js';
import { mergeDown, mergeRunFiles } from './external-sort.js';
import { FileLines, mergeLines } from './byte-merge.js';
import {
  SUM_ARG,
  SUM_ARG2,
  SUM_EMIT,
  SUM_FIELDS,
  SUM_GROUPS,
  SUM_KEY_LEN,
  SUM_KEY_ROOM,
  SUM_LINE_NO,
  SUM_STATUS,
  SUM_USED,
  SUM_VALUE,
} from '../native/shared.js';
import { nativeSort, type NativeSort } from '../native/sort.js';
import { RecordFileWriter, type RecordFileOptions } from './record-file.js';
import { LongSumGroups, longSum, numberAt } from './long-sum.js';
import { recordPartName } from './dataset.js';
import { partSink } from './job-output.js';
import { reduceRunsBytes, reducesBytes } from './byte-reduce.js';
import { releaseMapArena } from './map-task.js';
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
  releaseMapArena();
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
  const reduce = new Grouper(
    job,
    (key, value) => {
      ctx.count('reduce output records');
      sink.write(checkedKey(job, key), value);
    },
    ctx,
  );
  if (job.encoding?.reduceValueFromBytes && !job.encoding.rawValues) {
    for (const chunk of mergeLines(
      runs.map((r) => new FileLines(r)),
      false,
      64 << 10,
    )) {
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
  const groups = new LongSumGroups(
    (key, n, sum) => {
      counters['reduce output records'] = (counters['reduce output records'] ?? 0) + 1;
      writer.appendBytes(key, 0, n, sum, ascii);
    },
    counters,
    'reduce input groups',
    `job ${job.name} reduce input`,
  );
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
