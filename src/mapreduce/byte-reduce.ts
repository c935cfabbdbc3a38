/**
 * The reduce of a job with `reduceBytes` (import, invertlinks), over the merged runs' bytes:
 * each group's key and values are views of the merge's chunk, handed to reduceBytes, and the
 * fields it emits are copied into the parts' blocks as they are. No line becomes a string: the
 * import's reduce decoded 316 MB of the bench corpus's captures only to encode them again. A
 * group reduceBytes declines goes, decoded, to the job's `reduce`.
 */
import { newContext, type Counters, type Job } from './job.js';
import { Grouper } from './grouper.js';
import { FileLines, mergeLines } from './byte-merge.js';
import { namedSink, recordSink } from './job-output.js';
import { recordPartName } from './dataset.js';
import type { RecordFileOptions } from './record-file.js';

/** Merged bytes handed over at a time: whole lines, a longer one in a chunk of its own. */
const CHUNK = 1 << 20;
const NULL = Buffer.from('null');

export function reduceRunsBytes(
  job: Job,
  runs: string[],
  dir: string,
  partition: number,
  properties: string[],
  counters: Counters,
  recordFile?: RecordFileOptions,
): void {
  const reduceBytes = job.encoding!.reduceBytes!;
  const ctx = newContext(counters, properties);
  const sink = job.outputs ? namedSink(job, dir, recordPartName(partition), ctx, recordFile) : recordSink(dir, partition, recordFile);
  const decoded = new Grouper(
    job,
    (key, value) => {
      ctx.count('reduce output records');
      sink.write(key, value);
    },
    ctx,
  );
  let key: Uint8Array | undefined;
  let values: Uint8Array[] = [];
  /** The open group's values (and key, when any) already copied out of an earlier chunk. */
  let copied = 0;
  const emit = (fields: (Uint8Array | readonly Uint8Array[] | undefined)[]) => {
    ctx.count('reduce output records');
    sink.writeRaw(key!, fields);
  };
  const flush = () => {
    if (key === undefined) return;
    if (reduceBytes(key, values, emit, ctx)) ctx.count('reduce input groups');
    else {
      const k = Buffer.from(key.buffer, key.byteOffset, key.length).toString();
      for (const v of values) decoded.push(`${k}\t${Buffer.from(v.buffer, v.byteOffset, v.length).toString()}`);
      decoded.flush();
    }
    key = undefined;
    values = [];
    copied = 0;
  };
  for (const chunk of mergeLines(
    runs.map((r) => new FileLines(r)),
    false,
    CHUNK,
  )) {
    for (let s = 0; s < chunk.length; ) {
      let nl = chunk.indexOf(0x0a, s);
      if (nl < 0) nl = chunk.length;
      const tab = chunk.indexOf(0x09, s);
      const keyEnd = tab >= 0 && tab < nl ? tab : nl;
      // The merge's lines are whole lines in byte order: a key's values come in byte order too.
      if (key === undefined || Buffer.compare(key, chunk.subarray(s, keyEnd)) !== 0) {
        flush();
        key = chunk.subarray(s, keyEnd);
      }
      values.push(keyEnd < nl ? chunk.subarray(keyEnd + 1, nl) : NULL);
      s = nl + 1;
    }
    // The merge writes its next chunk over this one: the open group keeps copies of what it
    // took from this chunk (copied once: a URL's inlink lists at scale span many chunks).
    if (key !== undefined) {
      if (!copied) key = Buffer.from(key);
      for (let i = copied; i < values.length; i++) values[i] = Buffer.from(values[i]);
      copied = values.length;
    }
  }
  flush();
  sink.close();
}

/** Whether a reduce task of this job goes through reduceRunsBytes. */
export function reducesBytes(job: Job): boolean {
  return job.encoding?.reduceBytes !== undefined && job.outputFormat === undefined;
}
