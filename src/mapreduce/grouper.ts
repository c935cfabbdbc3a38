/** The reduce side's grouping of sorted `key TAB value-json` lines into a job's reduce calls. */
import { compareBytes } from './byte-order.js';
import { parseValue, type Emit, type Job, type TaskContext } from './job.js';

/**
 * Feeds `key TAB value-json` lines, grouped by key, to `reduce`, group by group. The values of
 * a group reach `reduce` in the byte order of their JSON text, whatever order they came in:
 * Hadoop sorts by key only, so under streaming the values of a key arrive in no defined order,
 * while the local runner sorts whole lines. With this, no reducer can depend on that order
 * (the import's "first capture by date", a seed's first metadata, generate's per-host caps)
 * and both engines give the same bytes. Already-ordered groups (the local runner's) cost one
 * comparison a value.
 */
export class Grouper {
  private key: string | undefined;
  private values: unknown[] = [];
  private texts: string[] = [];
  private ordered = true;

  constructor(
    private readonly job: Job,
    private readonly emit: Emit,
    private readonly ctx: TaskContext,
    private readonly counter = 'reduce input groups',
  ) {
    this.raw = counter === 'reduce input groups' ? job.encoding?.rawValues === true : job.encoding?.rawCombineValues === true;
  }

  /** Values handed over as their JSON text (Job.rawValues in reduce, Job.rawCombineValues in combine). */
  private readonly raw: boolean;

  private lineNo = 0;

  push(line: string): void {
    this.lineNo++;
    const tab = line.indexOf('\t');
    const key = tab < 0 ? line : line.slice(0, tab);
    const text = tab < 0 ? 'null' : line.slice(tab + 1);
    const value = tab < 0 ? null : this.raw ? text : this.parse(text);
    if (key !== this.key) this.flush();
    this.key = key;
    const last = this.texts[this.texts.length - 1];
    if (last !== undefined && this.ordered && compareBytes(last, text) > 0) this.ordered = false;
    this.values.push(value);
    this.texts.push(text);
  }

  /**
   * The line `line[start, end)` of the local runner's merged runs, for a job with
   * reduceValueFromBytes: its value made from its bytes where the job can. The runs' lines come
   * in byte order, and so do a group's values: no text is kept to order them by.
   */
  pushBytes(line: Buffer, start: number, end: number): void {
    this.lineNo++;
    const tab = line.indexOf(0x09, start);
    const hasTab = tab >= 0 && tab < end;
    const key = line.toString('utf8', start, hasTab ? tab : end);
    let value: unknown = null;
    if (hasTab) {
      value = this.job.encoding!.reduceValueFromBytes!(line, tab + 1, end);
      if (value === undefined) value = this.parse(line.toString('utf8', tab + 1, end));
    }
    if (key !== this.key) this.flush();
    this.key = key;
    this.values.push(value);
  }

  /** The last value parsed, when a primitive (counts: the same text again and again) is reused. */
  private lastText: string | undefined;
  private lastValue: unknown;

  private parse(text: string): unknown {
    if (text === this.lastText) return this.lastValue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      parseValue(text, this.where); // throws the error that names the line
    }
    if (value === null || typeof value !== 'object') {
      this.lastText = text;
      this.lastValue = value;
    }
    return value;
  }

  /** The input line, for an error (made only when one is thrown). */
  private get where(): string {
    return `job ${this.job.name} ${this.counter === 'reduce input groups' ? 'reduce' : 'combine'} input, line ${this.lineNo}`;
  }

  flush(): void {
    if (this.key === undefined) return;
    this.ctx.count(this.counter);
    let values = this.values;
    if (!this.ordered) {
      const texts = this.texts;
      const order = values.map((_, i) => i).sort((a, b) => compareBytes(texts[a], texts[b]));
      values = order.map((i) => this.values[i]);
    }
    this.job.reduce(this.key, values, this.emit, this.ctx);
    this.key = undefined;
    this.values = [];
    this.texts = [];
    this.ordered = true;
  }
}
