/**
 * The `json` kernel's surface (native/json-string.c): a string's JSON as UTF-8 bytes, and such
 * bytes back to the string. Undefined where the addon is not built or `NWAX_NATIVE` leaves the
 * kernel to JavaScript; src/util/json-bytes.ts then uses JSON.stringify and JSON.parse (the twin).
 */
import { nativeKernel } from './addon.js';

const kernel = nativeKernel('json');

/** `Buffer.from(JSON.stringify(s))`, made in one pass. */
export const jsonString = kernel?.jsonString as ((s: string) => Buffer) | undefined;

/** JSON.parse of the JSON string `b[start, end)` (its quotes included), or undefined where it is not one. */
export const jsonStringDecode = kernel?.jsonStringDecode as ((b: Uint8Array, start: number, end: number) => string | undefined) | undefined;
