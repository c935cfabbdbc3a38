/**
 * The job model: a job is a value over string keys and JSON values, run by the local runner
 * or, unchanged, by Hadoop Streaming (`nwax job NAME map|reduce`). Values travel as JSON text
 * between the phases, so both runners see the same bytes. Here: the Job interface, a task's
 * context and the reading of input lines; the values' JSON (value-json.ts), the partitioner
 * (partition.ts) and the reduce's grouping (grouper.ts) are their own.
 */
import { NwaxError } from '../util/errors.js';
import { Configuration } from '../conf/config.js';

/**
 * Where a task's records go. It may return a promise when its output is congested (a streaming
 * task's stdout read slowly by Hadoop): an asynchronous map awaits it, so a 10 GB archive's
 * records wait in the archive, not in memory.
 */
export type Emit = (key: string, value: unknown) => void | Promise<void>;

/**
 * A key given as the bytes `key[start, end)` (UTF-8) and a value as the bytes of its JSON.
 * The local runner may copy them a batch later, within the same input chunk: a job emits keys
 * from the line it was given, and a value it does not change afterwards (a constant).
 */
export type BytesEmit = (key: Buffer, start: number, end: number, valueJson: Buffer) => void;
/**
 * `mapRecordBytes`'s emit: the key `key[start, end)` and the value's JSON in pieces, written
 * one after another (bytes as they are, a string as its UTF-8).
 */
export type RecordBytesEmit = (key: Buffer, start: number, end: number, valueJson: readonly (Uint8Array | string)[]) => void;

/** Where a reduce task's records go. */
export interface RecordSink {
  write(key: string, value: unknown): void;
  close(): void;
}

export interface Counters {
  [name: string]: number;
}

export interface TaskContext {
  /** Adds to a named counter (summed over tasks, printed in the job summary). */
  count(name: string, by?: number): void;
  /** The configuration the job was started with (defaults, site file, its -D overrides). */
  readonly conf: Configuration;
  /** A one-line report on stderr (a damaged record, a bad line): the task goes on. */
  warn(message: string): void;
  /**
   * The file this map task reads (a job that reads several datasets tells them apart by it);
   * under Hadoop Streaming, `mapreduce_map_input_file` from the environment. Empty in reduce.
   */
  readonly inputFile: string;
}

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
   * Reduce (not combine) values as their JSON text, not parsed: for a job that passes values
   * on (import: a version's first capture), wrapping what it passes in RawJson. Default false.
   */
  rawValues?: boolean;
  /**
   * Combine values as their JSON text, not parsed: for a combine that only gathers values
   * (invertlinks joins inlink lists), emitting RawJson. Default false.
   */
  rawCombineValues?: boolean;
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
   * A `records` input record whose value map would only pass on: called with the value's JSON
   * text before it is parsed, it emits RawJson (built around that text) and returns true, or
   * returns false to have the value parsed and given to `map`. Optional: it must emit the
   * bytes `map` would (the index job passes a version's text on this way; parsing and
   * stringifying it again was a fifth of its map).
   */
  mapText?(key: string, valueJson: string, emit: Emit, ctx: TaskContext): boolean;
  /** May return a promise (a map that reads an archive); the task awaits it. */
  map(key: string, value: unknown, emit: Emit, ctx: TaskContext): void | Promise<void>;
  /**
   * `map` over the bytes of an ASCII input line (`input: 'lines'` jobs): emits as bytes what
   * `map` emits for the line, so that the local runner makes no string of a line, a key or a
   * value on its way to the sort. Optional; `map` stays the definition (streaming tasks call
   * it, and the equivalence test holds the two to the same bytes). The line is `line[start, end)`.
   */
  mapBytes?(line: Buffer, start: number, end: number, emit: BytesEmit, ctx: TaskContext): void;
  /**
   * `mapText` over bytes (`input: 'records'` jobs): the record `line[start, tab)` TAB
   * `line[tab + 1, end)`, whose value is valid UTF-8. Emits as bytes what `map` emits for it
   * and returns true, or returns false, having emitted nothing, to have the line decoded and
   * given to `mapText` and `map`. The local runner then makes no string of a value a job only
   * wraps and passes on (the index job's page texts: decoding and encoding them again was half
   * of its map). Optional; `map` stays the definition (streaming tasks call it), and the
   * equivalence test holds the two to the same bytes.
   */
  mapRecordBytes?(line: Buffer, start: number, tab: number, end: number, emit: RecordBytesEmit, ctx: TaskContext): boolean;
  /**
   * `reduce` over bytes, for a job whose reduce passes values on or joins them (import, with
   * named outputs; invertlinks): a group's key and its values' JSON text as UTF-8, in byte order
   * as `reduce` gets them; `emit` takes one record's named outputs as JSON bytes (or the pieces
   * of them, in order), in `outputs` order (undefined: that output has none), or for a job
   * without named outputs its one value, as `[value]`. Returns false, having emitted nothing,
   * to have the group decoded and given to `reduce`. Optional; `reduce` stays the definition
   * (streaming tasks call it), and the equivalence test holds the two to the same bytes. The
   * local runner's reduce then never decodes the shuffle's text into strings only to encode
   * it again.
   */
  reduceBytes?(key: Uint8Array, values: Uint8Array[], emit: (fields: (Uint8Array | readonly Uint8Array[] | undefined)[]) => void, ctx: TaskContext): boolean;
  /**
   * A reduce value from its JSON's UTF-8 bytes `bytes[start, end)`: what JSON.parse of their
   * decoding gives, made without the decoded text, or undefined to have them decoded and parsed
   * as usual (which names a damaged line). For a job whose values are mostly one large string
   * (the index's page texts: decoding a line, then parsing it, made each text twice). Optional;
   * the local runner's reduce calls it, streaming tasks parse, and the equivalence test holds
   * the two to the same parts.
   */
  reduceValueFromBytes?(bytes: Buffer, start: number, end: number): unknown;
  /**
   * `combine` over bytes, for a combine that joins values it does not read (invertlinks): a
   * group's values' JSON as UTF-8, in the order `combine` gets them; returns the JSON of the one
   * value `combine` would emit under the group's key, in pieces, or undefined to have the group
   * decoded and given to `combine`. Optional; `combine` stays the definition (Hadoop
   * Streaming's combiner calls it), and the equivalence test holds the two to the same bytes.
   */
  combineBytes?(values: readonly Uint8Array[]): readonly Uint8Array[] | undefined;
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
