/**
 * The `json` kernel's surface (native/json-string.c, native/inlink-anchors.c): a string's JSON
 * as UTF-8 bytes, and such bytes back to the string; a URL's inlinks' count and anchors read
 * from their bytes. Undefined where the addon is not built or `NWAX_NATIVE` leaves the kernel
 * to JavaScript; src/util/json-bytes.ts then uses JSON.stringify and JSON.parse, and
 * crawl/invertlinks-job.ts its own walk over the bytes (the twins).
 */
import { nativeKernel } from './addon.js';

const kernel = nativeKernel('json');

/** `Buffer.from(JSON.stringify(s))`, made in one pass. */
export const jsonString = kernel?.jsonString as ((s: string) => Buffer) | undefined;

/** JSON.parse of the JSON string `b[start, end)` (its quotes included), or undefined where it is not one. */
export const jsonStringDecode = kernel?.jsonStringDecode as ((b: Uint8Array, start: number, end: number) => string | undefined) | undefined;

/**
 * A URL's inlinks in `b[start, end)` as invertlinks writes them (native/inlink-anchors.h): their
 * count, with the distinct non-empty anchors' [start, end) in `spans` after their number
 * (`spans[0]`); -1 for JSON.parse to read (another shape, an escape), -2 for a larger `spans`.
 */
export const inlinkAnchorSpans = kernel?.inlinkAnchors as ((b: Uint8Array, start: number, end: number, spans: Int32Array) => number) | undefined;
