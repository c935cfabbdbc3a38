/**
 * The `sort` kernel's surface (native/line-*.c, record-add.c, long-sum.c, cdx-keys.c): the
 * sort, gather and merge of lines, records added in batches, the built-in sum, dedup-cdx's keys.
 * Its `st` fields and statuses are shared.ts's (generated with the C headers' from
 * native/shared.json). Without it (no compiler on the machine, or `NWAX_NATIVE` without
 * `sort`), the JavaScript sort and merge do the same work, to the same bytes: the tests hold
 * the two to each other.
 *
 * Why native: the sort and merge of lines are a byte loop and a memcmp/memcpy per line, and in
 * JavaScript each of those paid a native call's fixed cost or a bounds-checked byte access.
 * They were most of the group-and-count's CPU (docs/decisions.md, "Native sort and merge").
 */
import { nativeKernel } from './addon.js';

export interface NativeSort {
  /** Sorts `order[lo, hi)` (line numbers) by the bytes of the lines; `cache` is scratch as long as `order`. */
  sortLines(buf: Uint8Array, start: Int32Array, len: Int32Array, order: Int32Array, cache: Float64Array, lo: number, hi: number): void;
  /**
   * Copies lines `order[from, to)` of an arena, each with its newline, into `out` from `st[0]`
   * on, until one does not fit; with `unique`, a line equal to the last one put out (line
   * number `st[1]`, -1 for none) is left out. Returns where it stopped; `st` is moved on.
   */
  gatherLines(
    buf: Uint8Array,
    start: Int32Array,
    len: Int32Array,
    order: Int32Array,
    from: number,
    to: number,
    out: Uint8Array,
    st: Int32Array,
    unique: boolean,
  ): number;
  /**
   * Copies records `order[from, ...)` of a record arena (`klen`: their keys' lengths) into
   * `out` from `st[0]` on while each one's key differs from the next one's; stops at the first
   * record whose key the next shares, or that does not fit. Returns where it stopped.
   */
  gatherSingles(
    buf: Uint8Array,
    start: Int32Array,
    len: Int32Array,
    klen: Int32Array,
    order: Int32Array,
    from: number,
    to: number,
    out: Uint8Array,
    st: Int32Array,
  ): number;
  /**
   * Adds `key TAB value` records to a record arena, keys `keys[pairs[2j], pairs[2j + 1])` for j
   * in [from, n), each partitioned by Hadoop's hash of its bytes; `st` = [bytes used, lines],
   * moved on. Stops after the record that makes the arena full (`limit` bytes of lines and
   * `perLine` index bytes each), and before one that does not fit its buffer or index arrays or
   * whose key holds a tab or newline. Returns the first j not added.
   */
  addRecords(
    buf: Uint8Array,
    start: Int32Array,
    len: Int32Array,
    part: Int32Array,
    klen: Int32Array,
    st: Int32Array,
    limit: number,
    perLine: number,
    keys: Uint8Array,
    pairs: Int32Array,
    from: number,
    n: number,
    value: Uint8Array,
    reduces: number,
  ): number;
  /**
   * The built-in sum's reduce over merged lines `chunk[from, to)`: groups by key (the group's
   * key in `key`), sums canonical integers, appends `key TAB sum` lines to a record file's
   * block; `st` as native/long-sum.h's fields, `sum` the group's sum. Returns the position
   * reached; `st[SUM_STATUS]` says why it returned.
   */
  longSum(key: Uint8Array, block: Uint8Array, blockSize: number, chunk: Uint8Array, from: number, to: number, st: Int32Array, sum: Float64Array): number;
  /** A merge of k sources; `cur` (4 per source: s, e, pos, fill) and `tree` (k) stay the caller's. */
  mergeOpen(k: number, unique: boolean, cur: Int32Array, tree: Int32Array): object;
  /** Source i's bytes; with `order`, `start` and `len`, a source of arena lines. */
  mergeSource(m: object, i: number, buf: Uint8Array, order?: Int32Array, start?: Int32Array, len?: Int32Array): void;
  /**
   * Merges into `out` from `st[0]` on (`st`: bytes used, start of the last line put out or -1,
   * argument: -2 to start, -1 to go on, or the source refilled); returns MERGE_DONE,
   * MERGE_OUT_FULL or MERGE_REFILL (the source to refill in `st[2]`).
   */
  mergeRun(m: object, out: Uint8Array, st: Int32Array): number;
  /**
   * dedup-cdx's keys (`URLKEY sha1:DIGEST DATE[ FILE]`) of the CDX11 lines of `chunk[from,
   * to)` added to an arena of lines; `st` as native/cdx-keys.h's fields (CDX_KEYS_* in cdx/cdx-keys-native.ts).
   * Returns the position of the first line not taken; `st[CDX_KEYS_STATUS]` says why.
   */
  cdxKeys(
    buf: Uint8Array,
    start: Int32Array,
    len: Int32Array,
    part: Int32Array,
    st: Int32Array,
    limit: number,
    perLine: number,
    chunk: Uint8Array,
    from: number,
    to: number,
    revisits: boolean,
  ): number;
  /**
   * dedup-cdx's lines from its sorted keys `chunk[from, to)`: every line of a URLKEY + digest
   * group but the first, into `out` from `st[CDX_DUPS_USED]` on; `group` (as long as the range
   * at least) and `st[CDX_DUPS_GROUP_LEN]` carry the open group from chunk to chunk.
   */
  cdxDups(chunk: Uint8Array, from: number, to: number, group: Uint8Array, out: Uint8Array, st: Int32Array): void;
  /** The UTF-16 code units of the UTF-8 bytes `buf[s, e)` (record-file.ts's utf16Length). */
  utf16Length(buf: Uint8Array, s: number, e: number): number;
}

/** The addon, or undefined where it is not built or `NWAX_NATIVE` leaves the sort kernel to JavaScript. */
export const nativeSort: NativeSort | undefined = nativeKernel('sort') as NativeSort | undefined;
