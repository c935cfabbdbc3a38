/**
 * Hadoop Streaming entry points: `nwax job NAME map` and `nwax job NAME reduce` read lines on
 * stdin and write `key TAB value-json` lines on stdout. The reducer groups consecutive equal
 * keys, as streaming delivers them sorted. The local runner calls the same functions.
 */
import { checkedKey, newContext, splitInput, type Counters, type Job } from './job.js';
import { emittedJson, JsonPieces, valueJson } from './value-json.js';
import { Grouper } from './grouper.js';

export type LineSink = (line: string) => void | Promise<void>;

/** Where the local runner's map output goes: key and value JSON apart, never joined into a line. */
export interface RecordSink {
  record(key: string, valueJson: string): void;
  /** A JsonPieces value, its pieces as they are (record gets them joined where this is missing). */
  recordPieces?(key: string, pieces: readonly (string | Uint8Array)[]): void;
}

/**
 * A map task: feed it input lines; it writes `key TAB value-json` lines to `out`. The result of
 * a call is the map's promise where the job's map is asynchronous: await it before the next.
 * `lineNo`, where given, is the line's number in the task's input (a caller that maps the
 * other lines itself), for the errors that name it.
 */
export function mapper(
  job: Job,
  out: LineSink | RecordSink,
  counters: Counters,
  properties: readonly string[] = [],
  inputFile?: string,
  splitStart = 0,
): (line: string, lineNo?: number) => void | Promise<void> {
  // Hadoop Streaming names the task's input file in the environment.
  const ctx = newContext(counters, properties, inputFile ?? process.env.mapreduce_map_input_file ?? process.env.map_input_file ?? '');
  const emit =
    typeof out === 'function'
      ? (k: string, v: unknown) => {
          ctx.count('map output records');
          return out(`${checkedKey(job, k)}\t${emittedJson(v)}`);
        }
      : (k: string, v: unknown) => {
          ctx.count('map output records');
          if (v instanceof JsonPieces && out.recordPieces) out.recordPieces(checkedKey(job, k), v.pieces);
          else out.record(checkedKey(job, k), emittedJson(v));
        };
  // Where a bad line is: the input file (stdin under streaming without a name) and the line
  // number in this task's input (a split that starts inside a file counts from its start).
  const file = ctx.inputFile || 'stdin';
  const from = splitStart ? ` of the split at byte ${splitStart}` : '';
  let lineNo = 0;
  const { encoding } = job;
  return (line, at) => {
    lineNo = at ?? lineNo + 1;
    if (line === '' && job.input === 'records') return;
    ctx.count('map input records');
    if (encoding?.mapText && job.input === 'records') {
      const tab = line.indexOf('\t');
      if (tab >= 0 && encoding.mapText(line.slice(0, tab), line.slice(tab + 1), emit, ctx)) return;
    }
    const [k, v] = splitInput(job, line, `job ${job.name}: ${file}: line ${lineNo}${from}`);
    return job.map(k, v, emit, ctx);
  };
}

/** A reduce task: push sorted `key TAB value-json` lines, then flush() at the end. */
export function reducer(job: Job, out: LineSink, counters: Counters, properties: readonly string[] = []): Grouper {
  const ctx = newContext(counters, properties);
  const emit = (k: string, v: unknown) => {
    ctx.count('reduce output records');
    out(`${checkedKey(job, k)}\t${valueJson(v)}`);
  };
  return new Grouper(job, emit, ctx);
}

/**
 * A combiner over one sorted run: the same grouping, the job's combine function. `inOrder`
 * stays true while every group gave one value under its own key: the output is then as sorted
 * as the input was, and need not be sorted again.
 */
export function combiner(job: Job, out: LineSink, counters: Counters, properties: readonly string[] = []): { grouper: Grouper; inOrder: () => boolean } {
  const ctx = newContext(counters, properties);
  let inOrder = true;
  const emit = (k: string, v: unknown) => out(`${checkedKey(job, k)}\t${emittedJson(v)}`);
  const combine = job.combine!;
  const reduce: Job['reduce'] = (key, values, _emit, c) => {
    let n = 0;
    combine(
      key,
      values,
      (k, v) => {
        if (k !== key || ++n > 1) inOrder = false;
        emit(k, v);
      },
      c,
    );
  };
  return { grouper: new Grouper({ ...job, reduce }, emit, ctx, 'combine input groups'), inOrder: () => inOrder };
}
