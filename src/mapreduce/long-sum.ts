/**
 * Hadoop's LongSumReducer as a built-in combine and reduce function: a key's numeric values
 * summed (a value that is not a number counts 0). A job that names `longSum` as its combine or
 * reduce is summed by the local runner over the lines' bytes, with no line decoded and no JSON
 * parsed for an integer value; the streaming tasks call the function itself, and both give the
 * same bytes (the equivalence test runs them side by side). Values are summed in the byte order
 * of their JSON text, the order the Grouper hands them to a reduce, so even fractions sum alike.
 */
import { NwaxError } from '../util/errors.js';
import type { Counters, Emit } from './job.js';

/** The combine or reduce function: emits the sum of the numeric values under the key. */
export function longSum(key: string, values: unknown[], emit: Emit): void {
  let sum = 0;
  for (const v of values) if (typeof v === 'number') sum += v;
  emit(key, sum);
}

const TAB = 0x09;
const MINUS = 0x2d;
const ZERO = 0x30;

/** Digits a double holds exactly whatever they are (10^15 < 2^53). */
const EXACT_DIGITS = 15;

/**
 * The number the JSON text `buf[s, e)` holds, 0 for any other JSON value: canonical integers
 * (`-?(0|[1-9][0-9]*)`, up to 15 digits) are read from the bytes, anything else is parsed as
 * JSON, with an error that names `where()` when it is not JSON.
 */
export function numberAt(buf: Buffer, s: number, e: number, where: () => string): number {
  let p = s;
  if (buf[p] === MINUS) p++;
  const digits = e - p;
  if (digits >= 1 && digits <= EXACT_DIGITS && (buf[p] !== ZERO || digits === 1)) {
    let n = 0;
    for (; p < e; p++) {
      const d = buf[p] - ZERO;
      if (d < 0 || d > 9) break;
      n = n * 10 + d;
    }
    if (p === e) return buf[s] === MINUS ? -n : n;
  }
  const text = buf.toString('utf8', s, e);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new NwaxError('NWAX_FORMAT', `${where()}: not "key TAB value-json" (${JSON.stringify(text.slice(0, 60))})`);
  }
  return typeof value === 'number' ? value : 0;
}

/**
 * Sorted `key TAB value-json` lines, pushed as bytes, summed per key: each group's key and the
 * JSON of its sum go to `out` when the next key begins (and at `flush`). Counts one `counter`
 * per group, as the Grouper does. A line without a tab is a key with the value null (0).
 */
export class LongSumGroups {
  private key = Buffer.allocUnsafe(1024);
  private keyLen = -1;
  private sum = 0;
  private lineNo = 0;

  constructor(
    private readonly out: (key: Buffer, keyLen: number, sumJson: string) => void,
    private readonly counters: Counters,
    private readonly counter: string,
    private readonly what: string,
  ) {}

  /** Adds the line `buf[s, e)` (without its newline). */
  push(buf: Buffer, s: number, e: number): void {
    this.lineNo++;
    let tab = buf.indexOf(TAB, s);
    if (tab < 0 || tab > e) tab = e;
    const n = tab - s;
    if (n !== this.keyLen || buf.compare(this.key, 0, n, s, tab) !== 0) {
      this.flush();
      if (n > this.key.length) this.key = Buffer.allocUnsafe(n * 2);
      buf.copy(this.key, 0, s, tab);
      this.keyLen = n;
    }
    if (tab < e) this.sum += numberAt(buf, tab + 1, e, () => `${this.what}, line ${this.lineNo}`);
  }

  /** Ends the group under way. */
  flush(): void {
    if (this.keyLen < 0) return;
    this.counters[this.counter] = (this.counters[this.counter] ?? 0) + 1;
    // JSON of a number: its string, and null for what JSON has no number for.
    this.out(this.key, this.keyLen, Number.isFinite(this.sum) ? String(this.sum) : 'null');
    this.keyLen = -1;
    this.sum = 0;
  }
}
