/**
 * How a job's values may travel as text or bytes instead of as parsed values: one optional
 * object of the Job (`Job.encoding`). Raw values change what combine and reduce are given under
 * both runners; the byte hooks are the local runner's alone, each one a faster path to the bytes
 * its plain twin (map, combine, reduce) gives, which stays the definition: Hadoop Streaming's
 * tasks call the twin, and the equivalence tests (test/byte-jobs.test.ts) hold the two to the
 * same bytes. The engine reads these; it knows no job's format.
 */
import type { Emit, TaskContext } from './task-types.js';

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

export interface JobEncoding {
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
   * A `records` input record whose value map would only pass on: called with the value's JSON
   * text before it is parsed, it emits RawJson (built around that text) and returns true, or
   * returns false to have the value parsed and given to `map`. Optional: it must emit the
   * bytes `map` would (the index job passes a version's text on this way; parsing and
   * stringifying it again was a fifth of its map).
   */
  mapText?(key: string, valueJson: string, emit: Emit, ctx: TaskContext): boolean;
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
}
