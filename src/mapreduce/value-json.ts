/**
 * A job's values as JSON text, the form they travel in between the phases (so the local runner
 * and Hadoop Streaming see the same bytes): text passed on as it came (RawJson), a value's JSON
 * in pieces of strings and bytes (JsonPieces), and the JSON a map, combine or reduce writes.
 */

/**
 * JSON text a reduce passes on as it came (a field of a value it does not change): written as
 * it is where the value is written, never parsed and stringified again. A job with `rawValues`
 * gets its values as their JSON text and wraps what it passes on in this.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * A map output value's JSON in pieces, strings and UTF-8 bytes one after another, for a map
 * that holds part of a value's JSON as bytes already (the import: a page's text, written by
 * the addon). The local runner copies the pieces into its sort buffer as they are; a
 * streaming task writes them joined. The bytes are the value's JSON either way.
 */
export class JsonPieces {
  constructor(readonly pieces: readonly (string | Uint8Array)[]) {}

  get text(): string {
    return this.pieces.map((p) => (typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8'))).join('');
  }
}

/**
 * A value's JSON text: `JSON.stringify`, except that RawJson, as the value or as a field of an
 * object value, is its text (the bytes JSON.stringify of the parsed text gives).
 */
export function valueJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.values(value).some((v) => v instanceof RawJson))
    return JSON.stringify(value) ?? 'null';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function') continue;
    parts.push(`${JSON.stringify(k)}:${v instanceof RawJson ? v.text : JSON.stringify(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * A map or combine output value's JSON text: a RawJson's text as it is, anything else
 * stringified. (Only the reduce's output looks inside objects for RawJson fields: valueJson.)
 */
export function emittedJson(value: unknown): string {
  return value instanceof RawJson || value instanceof JsonPieces ? value.text : (JSON.stringify(value) ?? 'null');
}
