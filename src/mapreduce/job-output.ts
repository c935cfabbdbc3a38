/**
 * Where a job's reduce output goes, shared by the local runner's reduce and by `nwax job NAME
 * write` (a Hadoop Streaming job's output brought into the same layout).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newContext, type Counters, type Job, type RecordSink, type TaskContext } from './job.js';
import { RawJson, valueJson } from './value-json.js';
import { RecordFileWriter, type RecordFileOptions } from './record-file.js';
import { partName, recordPartName, SUCCESS, writeDataset } from './dataset.js';
import { lineBatches } from './line-reader.js';
import { NwaxError } from '../util/errors.js';

/**
 * Where partition `partition` of a job's output goes in dataset `dir`: a sorted record file
 * `part-NNNNN.gz`; with named outputs one per name (`NAME/part-NNNNN.gz`, each field of the value
 * to its own); or the job's own output format (the index job's SQLite).
 */
export function partSink(job: Job, dir: string, partition: number, ctx: TaskContext, recordFile?: RecordFileOptions): RecordSink {
  const part = recordPartName(partition);
  if (job.outputs) return namedSink(job, dir, part, ctx, recordFile);
  if (job.outputFormat) return job.outputFormat(join(dir, partName(partition)), ctx);
  return recordSink(dir, partition, recordFile);
}

/** A part of one output (no named outputs) that also takes a record's value as bytes (Job.reduceBytes: `[value]`). */
export function recordSink(dir: string, partition: number, recordFile?: RecordFileOptions): NamedSink {
  const writer = new RecordFileWriter(join(dir, recordPartName(partition)), recordFile);
  return {
    write: (key, value) => writer.appendLine(key, valueJson(value)),
    writeRaw(key, fields) {
      if (fields.length !== 1 || fields[0] === undefined) throw new Error('reduceBytes of a job without named outputs emits [value]');
      writer.appendRaw(key, fields[0]);
    },
    close: () => writer.close(),
  };
}

/** A sink of named outputs that also takes a record's fields as bytes (Job.reduceBytes). */
export interface NamedSink extends RecordSink {
  writeRaw(key: Uint8Array, fields: (Uint8Array | readonly Uint8Array[] | undefined)[]): void;
}

/**
 * Named outputs' parts: each field of a reduce's value appended to its own dataset's part, as
 * record files of the run's options, or of those the job gives for the dataset.
 */
export function namedSink(job: Job, dir: string, part: string, ctx: TaskContext, recordFile?: RecordFileOptions): NamedSink {
  const names = job.outputs!;
  const named = names.map((name) => {
    mkdirSync(join(dir, name), { recursive: true });
    return new RecordFileWriter(join(dir, name, part), { ...recordFile, ...job.outputRecordFile?.(name, ctx) });
  });
  return {
    write(key, value) {
      const fields = value as Record<string, unknown>;
      names.forEach((name, i) => {
        const field = fields[name];
        if (field !== undefined) named[i].appendLine(key, field instanceof RawJson ? field.text : JSON.stringify(field));
      });
    },
    writeRaw(key, fields) {
      fields.forEach((field, i) => {
        if (field !== undefined) named[i].appendRaw(key, field);
      });
    },
    close: () => named.forEach((w) => w.close()),
  };
}

/** The `_SUCCESS` markers of a job's named outputs, once all partitions are written. */
export function markOutputs(job: Job, dir: string): void {
  for (const name of job.outputs ?? []) writeFileSync(join(dir, name, SUCCESS), '');
}

/**
 * What Hadoop Streaming wrote for a job (one `part-NNNNN` of reduced `key TAB value-json` lines
 * per partition) in the job's own layout on this machine: named outputs split into their
 * datasets, the index job's parts as indexes. The same writers as the local runner's reduce.
 */
export async function writeStreamedOutput(
  job: Job,
  parts: string[],
  output: string,
  opts: { force?: boolean; recordFile?: RecordFileOptions; properties?: string[] } = {},
): Promise<Counters> {
  const counters: Counters = {};
  await writeDataset(
    output,
    async (tmp) => {
      for (const [i, path] of parts.entries()) {
        const n = /part-(?:r-)?(\d+)/.exec(path)?.[1];
        const partition = n === undefined ? i : Number(n);
        const ctx = newContext(counters, opts.properties ?? []);
        const sink = partSink(job, tmp, partition, ctx, opts.recordFile);
        let lineNo = 0;
        for await (const batch of lineBatches(path)) {
          for (const line of batch) {
            lineNo++;
            if (line === '') continue;
            const tab = line.indexOf('\t');
            let value: unknown;
            try {
              value = JSON.parse(line.slice(tab + 1));
            } catch {
              throw new NwaxError('NWAX_FORMAT', `${path}: line ${lineNo}: not "key TAB value-json" (a reduce output of job ${job.name})`);
            }
            if (tab < 0) throw new NwaxError('NWAX_FORMAT', `${path}: line ${lineNo}: no tab after the key`);
            sink.write(line.slice(0, tab), value);
            ctx.count('records written');
          }
        }
        sink.close();
      }
      markOutputs(job, tmp);
    },
    { force: opts.force },
  );
  return counters;
}
