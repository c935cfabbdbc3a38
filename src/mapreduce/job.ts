/**
 * The job model: a job is a value over string keys and JSON values, run by the local runner
 * or, unchanged, by Hadoop Streaming (`nwax job NAME map|reduce`). Values travel as JSON text
 * between the phases, so both runners see the same bytes. Here: the Job interface, a task's
 * context and the reading of input lines; the byte hooks (job-encoding.ts), the values' JSON
 * (value-json.ts), the partitioner (partition.ts) and the reduce's grouping (grouper.ts) are
 * their own.
 */
import { NwaxError } from '../util/errors.js';
import { Configuration } from '../conf/config.js';
import type { Counters, Emit, RecordSink, TaskContext } from './task-types.js';
import type { JobEncoding } from './job-encoding.js';
import type { RecordFileOptions } from './record-file.js';

export type { Counters, Emit, RecordSink, TaskContext } from './task-types.js';

export interface Job {
  name: string;
  /** One line for `nwax job --list`. */
  description: string;
  /**
   * How input lines reach map: `lines` gives each text line as the value (key ''), as Hadoop
   * Streaming's TextInputFormat does; `records` splits `key TAB value-json` lines (datasets).
   */
  input: 'lines' | 'records';
  /**
   * Input lines per map task, as Hadoop's NLineInputFormat: 1 for a manifest whose every line
   * is a whole archive's work. Unset: splits by size.
   */
  linesPerSplit?: number;
  /**
   * Where reduce output goes, in place of a sorted record file per partition (Hadoop's
   * OutputFormat): the index job writes a full-text index. Records arrive in key order.
   */
  outputFormat?: (partPath: string, ctx: TaskContext) => RecordSink;
  /**
   * Named outputs: reduce emits an object with some of these fields, and each field is written
   * to its own dataset `OUTPUT/NAME/part-NNNNN` (a segment's content, parse_data, ...).
   */
  outputs?: readonly string[];
  /**
   * A named output's record file options over the run's (`nwax.recordfile.*`): for a dataset
   * read by key where each lookup's block counts (a segment's parse_text, which every snippet
   * reads). From the task's configuration; undefined: the run's.
   */
  outputRecordFile?(name: string, ctx: TaskContext): RecordFileOptions | undefined;
  /** May return a promise (a map that reads an archive); the task awaits it. */
  map(key: string, value: unknown, emit: Emit, ctx: TaskContext): void | Promise<void>;
  /** Runs on a map task's sorted output before it is shuffled; must be associative. */
  combine?(key: string, values: unknown[], emit: Emit, ctx: TaskContext): void;
  reduce(key: string, values: unknown[], emit: Emit, ctx: TaskContext): void;
  /** Default number of reduce partitions. */
  numReduces?: number;
  /** Partition of a key; default Hadoop's HashPartitioner. */
  partition?(key: string, numReduces: number): number;
  /**
   * The old space, in MB, this job's task threads start with on the local runner (V8's initial
   * old-space size): for a map that keeps little live but promotes much that soon dies, which
   * V8's small first old space would mark and compact many times a second. Default: V8's own.
   * Outputs do not depend on it.
   * @example taskOldSpaceMb: 256
   */
  taskOldSpaceMb?: number;
  /**
   * How the job's values may travel as text or bytes rather than as parsed values: raw values,
   * and the hooks the local runner calls in place of map, combine and reduce on bytes
   * (job-encoding.ts). Optional: without it, map, combine and reduce do all the work.
   */
  encoding?: JobEncoding;
}

/** A value's JSON text, parsed; a clear error naming `where` when it is not JSON. */
export function parseValue(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new NwaxError('NWAX_FORMAT', `${where}: not "key TAB value-json" (${JSON.stringify(text.slice(0, 60))})`);
  }
}

/** A map input line as the job's map function takes it. */
/** `where` names the input line in an error (file and line number). */
export function splitInput(job: Job, line: string, where = `job ${job.name} map input`): [string, unknown] {
  if (job.input === 'lines') return ['', line];
  // Gzip bytes read as text (its magic 1f 8b as UTF-8): a part named without `.gz`, which
  // Hadoop's TextInputFormat does not inflate.
  if (line.startsWith('\u001f\ufffd')) {
    throw new NwaxError('NWAX_FORMAT', `${where}: not "key TAB value-json" (gzip bytes read as text: a gzip part must be named *.gz for Hadoop to inflate it)`);
  }
  const tab = line.indexOf('\t');
  if (tab < 0) throw new NwaxError('NWAX_FORMAT', `${where}: not "key TAB value-json" (no tab)`);
  return [line.slice(0, tab), parseValue(line.slice(tab + 1), where)];
}

/** Checks a key before it is shuffled: keys end at the first tab and lines at the newline. */
export function checkedKey(job: Job, key: string): string {
  if (key.includes('\t') || key.includes('\n')) {
    throw new NwaxError('NWAX_KEY', `job ${job.name}: key ${JSON.stringify(key.slice(0, 80))} holds a tab or newline, which keys may not`);
  }
  return key;
}

/** Where tasks' warnings go: stderr, or (in a task thread) the runner, which prints them in order. */
let warnSink: (message: string) => void = (message) => {
  process.stderr.write(`${message}\n`);
};

/** Sends the warnings of the tasks of this thread elsewhere (the task worker sends them to the runner). */
export function setWarningSink(sink: (message: string) => void): void {
  warnSink = sink;
}

/** A task's context; `properties` are the job's -D overrides (the configuration loads on first use). */
export function newContext(counters: Counters, properties: readonly string[] = [], inputFile = ''): TaskContext {
  let conf: Configuration | undefined;
  return {
    inputFile,
    count(name, by = 1) {
      counters[name] = (counters[name] ?? 0) + by;
    },
    get conf() {
      return (conf ??= Configuration.load(properties));
    },
    warn(message) {
      warnSink(message);
    },
  };
}
