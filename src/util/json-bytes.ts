/**
 * A string's JSON as UTF-8 bytes and back, by the addon where it is built
 * (native/json-string.c). `jsonStringBytes` is `Buffer.from(JSON.stringify(s))`: it writes a
 * page's text at several times the speed of JSON.stringify and an encode, and never makes the
 * JSON a JavaScript string. `jsonStringFromBytes` is JSON.parse of such bytes: the string made
 * once, straight from them, where a decode then JSON.parse made it twice.
 */
import { jsonString, jsonStringDecode } from '../native/json.js';
import { NwaxError } from './errors.js';

export function jsonStringBytes(s: string): Buffer {
  return jsonString ? jsonString(s) : Buffer.from(JSON.stringify(s));
}

/**
 * The string `JSON.parse` gives of the JSON string `bytes[start, end)` (its quotes included,
 * UTF-8); undefined where JSON.parse would throw, the bytes are not valid UTF-8 (a decode would
 * replace them), or the addon is not built: the caller then decodes and parses as usual, which
 * gives the same string or the error that says what is wrong.
 */
export function jsonStringFromBytes(bytes: Uint8Array, start: number, end: number): string | undefined {
  return jsonStringDecode?.(bytes, start, end);
}

/**
 * A JSON string literal kept as its bytes (quotes included) until its text is wanted: the index
 * job hands a page's text to the `fts` kernel this way, which reads it straight from them, so
 * no JavaScript string of it is ever made.
 */
export class JsonText {
  constructor(readonly json: Buffer) {}

  /** The string JSON.parse gives of it (bytes that are not UTF-8 decoded with replacement first, as a line is). */
  text(): string {
    const s = jsonStringFromBytes(this.json, 0, this.json.length);
    if (s !== undefined) return s;
    try {
      return JSON.parse(this.json.toString('utf8')) as string;
    } catch (e) {
      throw new NwaxError('NWAX_BAD_JSON', `not a JSON string (${(e as Error).message}): ${this.json.toString('utf8', 0, 60)}`);
    }
  }
}

/** A text, or the text of one kept as JSON bytes. */
export function plainText(t: string | JsonText): string {
  return typeof t === 'string' ? t : t.text();
}

/**
 * The string a JSON string cut short decodes to, as far as it goes: `bytes[start, end)` from the
 * opening quote, to the last whole character or escape before `end` (a UTF-8 sequence or an
 * escape the cut went through left out; looked for in the last bytes only, as neither is longer
 * than six); and where it stopped (`cut`: the first byte not decoded, where the string's next
 * piece starts: jsonStringPiece). undefined where it does not open with a quote or is not JSON
 * as far as it goes (a quote inside: a string that ended). The bytes are as they were after the call.
 */
export function jsonStringHeadCut(bytes: Buffer, start: number, end: number): { text: string; cut: number } | undefined {
  if (bytes[start] !== 0x22 || end <= start) return undefined;
  let cut = end;
  // A UTF-8 sequence the cut went through: back to its lead byte.
  for (let i = cut - 1; i >= Math.max(start + 1, cut - 3); i--) {
    const c = bytes[i];
    if (c < 0x80) break;
    if (c >= 0xc0) {
      if (i + (c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2) > cut) cut = i;
      break;
    }
  }
  // An escape the cut went through: its backslash is among the last six bytes, the last of an odd run of them.
  for (let i = cut - 1; i >= Math.max(start + 1, cut - 6); i--) {
    if (bytes[i] !== 0x5c) continue;
    let run = 1;
    while (i - run > start && bytes[i - run] === 0x5c) run++;
    if (run % 2 === 1 && i + (bytes[i + 1] === 0x75 ? 6 : 2) > cut) cut = i;
    break;
  }
  const closed = cut < bytes.length ? bytes : Buffer.concat([bytes, Buffer.alloc(1)]);
  const was = closed[cut];
  closed[cut] = 0x22;
  try {
    const fast = jsonStringFromBytes(closed, start, cut + 1);
    if (fast !== undefined) return { text: fast, cut };
    try {
      // Without the addon, a lone surrogate escape at the cut, or bytes that are not UTF-8: JSON.parse says what it makes of them.
      return { text: JSON.parse(closed.toString('utf8', start, cut + 1)) as string, cut };
    } catch {
      return undefined;
    }
  } finally {
    closed[cut] = was;
  }
}

/**
 * A JSON string's next piece: `bytes[from, end)` decoded as the body of a string whose quote
 * opened at `from - 1` (`from` a cut jsonStringHeadCut gave): to its closing quote where
 * `whole` (the quote at `end - 1`), else cut as jsonStringHeadCut cuts. The bytes are as they were after the call.
 */
export function jsonStringPiece(bytes: Buffer, from: number, end: number, whole: boolean): { text: string; cut: number } | undefined {
  const was = bytes[from - 1];
  bytes[from - 1] = 0x22;
  try {
    if (!whole) return jsonStringHeadCut(bytes, from - 1, end);
    const fast = jsonStringFromBytes(bytes, from - 1, end);
    if (fast !== undefined) return { text: fast, cut: end };
    try {
      return { text: JSON.parse(bytes.toString('utf8', from - 1, end)) as string, cut: end };
    } catch {
      return undefined;
    }
  } finally {
    bytes[from - 1] = was;
  }
}
