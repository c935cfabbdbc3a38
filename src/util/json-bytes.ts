/**
 * A string's JSON as UTF-8 bytes and back, by the addon where it is built
 * (native/json-string.c). `jsonStringBytes` is `Buffer.from(JSON.stringify(s))`: it writes a
 * page's text at several times the speed of JSON.stringify and an encode, and never makes the
 * JSON a JavaScript string. `jsonStringFromBytes` is JSON.parse of such bytes: the string made
 * once, straight from them, where a decode then JSON.parse made it twice.
 */
import { jsonString, jsonStringDecode } from '../native/json.js';

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
 * The string a JSON string cut short decodes to, as far as it goes: `bytes[start, end)` from the
 * opening quote, to the last whole character or escape before `end` (a UTF-8 sequence or an
 * escape the cut went through left out; looked for in the last bytes only, as neither is longer
 * than six). `bytes[end]` may be overwritten. undefined where it does not open with a quote or is
 * not JSON as far as it goes (a quote inside: a string that ended).
 */
export function jsonStringHead(bytes: Buffer, start: number, end: number): string | undefined {
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
  closed[cut] = 0x22;
  const fast = jsonStringFromBytes(closed, start, cut + 1);
  if (fast !== undefined) return fast;
  try {
    // Without the addon, a lone surrogate escape at the cut, or bytes that are not UTF-8: JSON.parse says what it makes of them.
    return JSON.parse(closed.toString('utf8', start, cut + 1)) as string;
  } catch {
    return undefined;
  }
}
