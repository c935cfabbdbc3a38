/**
 * A string's JSON as UTF-8 bytes and back, by the addon where it is built
 * (native/json-string.c). `jsonStringBytes` is `Buffer.from(JSON.stringify(s))`: it writes a
 * page's text at several times the speed of JSON.stringify and an encode, and never makes the
 * JSON a JavaScript string. `jsonStringFromBytes` is JSON.parse of such bytes: the string made
 * once, straight from them, where a decode then JSON.parse made it twice.
 */
import { nativeKernel } from './native-addon.js';

const jsonString = nativeKernel('json')?.jsonString as ((s: string) => Buffer) | undefined;
const jsonStringDecode = nativeKernel('json')?.jsonStringDecode as ((b: Uint8Array, start: number, end: number) => string | undefined) | undefined;

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
