/**
 * A run of lines held as bytes: one Buffer of UTF-8 lines (each followed by `\n`) and typed
 * arrays of where each starts, so that buffering, sorting and spilling ten million lines
 * makes no JS string or object per line (the garbage of holding strings was a fifth of the
 * engine's time). Memory counted against the budget is exact: the bytes of the lines plus
 * `INDEX_BYTES_PER_LINE` for the index arrays and the sort's scratch space.
 */
import { isAscii } from 'node:buffer';
import { writeSync } from 'node:fs';
import { nativeSort, type NativeSort } from '../native/sort.js';
import { sortLineIndex } from './radix-sort.js';
import { ADD_COUNT, ADD_USED } from '../native/shared.js';

/** start + length + partition (Int32 each) + sorted index (Int32) + sort cache (Float64). */
export const INDEX_BYTES_PER_LINE = 24;
/** A record's key length (Int32), kept by arenas of records (map output). */
const KEY_BYTES_PER_LINE = 4;

/**
 * Buffer's own UTF-8 encoder without `write()`'s argument handling (a third of the cost of
 * writing a short key): the caller has made sure of the room.
 */
export const utf8Write = (buf: Buffer, s: string, at: number): number => (buf as unknown as { utf8Write(s: string, at: number): number }).utf8Write(s, at);

/** Copies a short range byte by byte (Buffer#copy's call costs more below this length). */
const SHORT_COPY = 32;

export function copyBytes(src: Uint8Array, from: number, to: number, dst: Uint8Array, at: number): void {
  if (to - from < SHORT_COPY) {
    for (let i = from; i < to; i++) dst[at++] = src[i];
  } else bufferCopy.call(src, dst, at, from, to);
}

/** Buffer#copy on any Uint8Array: no subarray made per copy (set(subarray()) allocated one each time). */
const bufferCopy = Buffer.prototype.copy as unknown as (
  this: Uint8Array,
  target: Uint8Array,
  targetStart: number,
  sourceStart: number,
  sourceEnd: number,
) => number;

const FIRST_BYTES = 1 << 20;
const MAX_FIRST = 1 << 30;
const FIRST_LINES = 1 << 14;
const NEWLINE = 0x0a;

/** An arena's storage as a kernel that writes lines in place sees it: the buffer and index arrays, and the fill it advances. */
export interface ArenaStorage {
  readonly buf: Buffer;
  readonly start: Int32Array;
  readonly len: Int32Array;
  readonly part: Int32Array;
  /** The arena's byte budget, and what a line costs of it besides its bytes. */
  readonly limit: number;
  readonly bytesPerLine: number;
  used: number;
  count: number;
}

/** How a fill stopped, at `at` in its input: done (or a line left to its caller), out of room (`need` more bytes of buffer), or the arena full (spill it first). */
export interface FillStop {
  at: number;
  status: 'done' | 'room' | 'full';
  need?: number;
}

export class LineArena {
  buf: Buffer;
  /** Bytes of `buf` in use. */
  used = 0;
  start: Int32Array;
  len: Int32Array;
  /** Partition of each line (the runner's reduces); 0 when there is one. */
  part: Int32Array;
  /**
   * Bytes of each record's key (`addRecord*`), so that telling equal keys apart in a combine
   * is a length and one comparison, not a walk to the tab; empty in an arena of plain lines.
   */
  klen = new Int32Array(0);
  count = 0;

  /** Bytes of lines and index past which `full()` holds. */
  readonly limit: number;

  /**
   * `limit`: the run's budget, at most 1 GiB (offsets are 32-bit; a larger budget makes more
   * runs, not larger ones).
   */
  constructor(limit: number) {
    this.limit = Math.min(limit, MAX_FIRST);
    // The whole budget at once: untouched pages cost no memory (the allocation is an mmap), and
    // growing by doubling would hold the old and the new buffer at once, 1.5x the budget.
    this.buf = Buffer.allocUnsafeSlow(Number.isFinite(limit) ? Math.max(4096, this.limit) : FIRST_BYTES);
    this.start = new Int32Array(FIRST_LINES);
    this.len = new Int32Array(FIRST_LINES);
    this.part = new Int32Array(FIRST_LINES);
  }

  /** An arena over lines already laid out (a run handed to the spill worker). */
  static of(buf: Buffer, used: number, start: Int32Array, len: Int32Array, count: number): LineArena {
    const a = Object.create(LineArena.prototype) as LineArena;
    Object.assign(a, { limit: Infinity, buf, used, start, len, part: new Int32Array(0), count });
    return a;
  }

  /** Takes back its memory after a transfer to the spill worker and back. */
  adopt(buf: Buffer, start: Int32Array, len: Int32Array): void {
    this.buf = buf;
    this.start = start;
    this.len = len;
  }

  /** Empties the arena, keeping its memory for the next run. */
  reset(): void {
    this.used = 0;
    this.count = 0;
  }

  /** Bytes counted against the budget. */
  get size(): number {
    return this.used + this.count * (INDEX_BYTES_PER_LINE + (this.klen.length > 0 ? KEY_BYTES_PER_LINE : 0));
  }

  full(): boolean {
    return this.size >= this.limit;
  }

  /** Adds a line (without its newline), encoded as UTF-8. */
  add(line: string, partition = 0): void {
    const need = line.length * 3 + 1;
    if (this.used + need > this.buf.length) this.grow(need);
    const at = this.used;
    const n = utf8Write(this.buf, line, at);
    this.push(at, n, partition);
  }

  /** Adds `key TAB value` without making the line as a string first. */
  addRecord(key: string, value: string, partition = 0): void {
    const need = (key.length + value.length) * 3 + 2;
    if (this.used + need > this.buf.length) this.grow(need);
    const at = this.used;
    let n = utf8Write(this.buf, key, at);
    this.keyLength(n);
    this.buf[at + n++] = 0x09;
    n += utf8Write(this.buf, value, at + n);
    this.push(at, n, partition);
  }

  /** Adds `key TAB value` from the key's bytes `key[from, to)` and the value's. */
  addRecordBytes(key: Uint8Array, from: number, to: number, value: Uint8Array, partition = 0): void {
    const k = to - from;
    const need = k + value.length + 2;
    if (this.used + need > this.buf.length) this.grow(need);
    const at = this.used;
    copyBytes(key, from, to, this.buf, at);
    this.keyLength(k);
    this.buf[at + k] = 0x09;
    copyBytes(value, 0, value.length, this.buf, at + k + 1);
    this.push(at, k + 1 + value.length, partition);
  }

  /** Adds `key TAB value` from the key's bytes `key[from, to)` and the value's pieces, in order. */
  addRecordPieces(key: Uint8Array, from: number, to: number, pieces: readonly (Uint8Array | string)[], partition = 0): void {
    const k = to - from;
    let need = k + 2;
    for (const p of pieces) need += typeof p === 'string' ? 3 * p.length : p.length;
    if (this.used + need > this.buf.length) this.grow(need);
    const at = this.used;
    copyBytes(key, from, to, this.buf, at);
    this.keyLength(k);
    this.buf[at + k] = 0x09;
    let n = k + 1;
    for (const p of pieces) {
      if (typeof p === 'string') n += utf8Write(this.buf, p, at + n);
      else {
        copyBytes(p, 0, p.length, this.buf, at + n);
        n += p.length;
      }
    }
    this.push(at, n, partition);
  }

  /**
   * Adds records `key TAB value` through the addon (`NativeSort.addRecords`), keys
   * `keys[pairs[2j], pairs[2j + 1])` for j in [from, n); returns the first j not added (the
   * arena is full, or that record needs `addRecordBytes`).
   */
  addRecordBatch(addon: NativeSort, keys: Uint8Array, pairs: Int32Array, from: number, n: number, value: Uint8Array, partitions: number): number {
    const st = batchState;
    st[ADD_USED] = this.used;
    st[ADD_COUNT] = this.count;
    const j = addon.addRecords(
      this.buf,
      this.start,
      this.len,
      this.part,
      this.klen,
      st,
      this.limit,
      INDEX_BYTES_PER_LINE + KEY_BYTES_PER_LINE,
      keys,
      pairs,
      from,
      n,
      value,
      partitions,
    );
    this.used = st[ADD_USED];
    this.count = st[ADD_COUNT];
    return j;
  }

  /**
   * Lines written in place by a kernel (dedup-cdx's native CDX keys): `f` gets the arena's
   * storage and its fill, advances the fill, and says how it stopped (the external sorter calls
   * it again after making room or spilling a run).
   */
  fill(f: (storage: ArenaStorage) => FillStop): FillStop {
    const s: ArenaStorage = {
      buf: this.buf,
      start: this.start,
      len: this.len,
      part: this.part,
      limit: this.limit,
      bytesPerLine: INDEX_BYTES_PER_LINE,
      used: this.used,
      count: this.count,
    };
    const stop = f(s);
    this.used = s.used;
    this.count = s.count;
    return stop;
  }

  /** Room for one more line of `bytes` (its newline included), in the buffer and the index. */
  makeRoom(bytes: number): void {
    if (this.used + bytes > this.buf.length) this.grow(bytes);
    if (this.count === this.start.length) this.growIndex();
  }

  /**
   * Room for a line of at most `max` bytes, written in place at `buf[at, ...)` (the offset
   * returned; `buf` may be a new Buffer after this call), then added with `commit`.
   */
  reserve(max: number): number {
    if (this.used + max + 1 > this.buf.length) this.grow(max + 1);
    return this.used;
  }

  /** Adds the line of `n` bytes written at `reserve`'s offset `at`. */
  commit(at: number, n: number, partition = 0): void {
    this.push(at, n, partition);
  }

  /** Adds a line given as bytes (without its newline). */
  addBytes(src: Uint8Array, from: number, to: number, partition = 0): void {
    const need = to - from + 1;
    if (this.used + need > this.buf.length) this.grow(need);
    const at = this.used;
    copyBytes(src, from, to, this.buf, at);
    this.push(at, to - from, partition);
  }

  /**
   * Adds the lines of `src[from, to)`, each ending with its newline, until the arena is full;
   * returns where it stopped (`to` when all went in). The bytes are copied in stretches, not
   * line by line (sort-cdx: a third of its reading time went to per-line copies).
   */
  addLines(src: Buffer, from: number, to: number): number {
    let p = from;
    let copyFrom = from;
    let copyAt = this.used;
    while (p < to && !this.full()) {
      const nl = src.indexOf(NEWLINE, p);
      const n = nl - p;
      if (this.used + n + 1 > this.buf.length) {
        src.copy(this.buf, copyAt, copyFrom, p);
        this.grow(n + 1);
        copyFrom = p;
        copyAt = this.used;
      }
      if (this.count === this.start.length) this.growIndex();
      this.start[this.count] = this.used;
      this.len[this.count] = n;
      this.part[this.count] = 0;
      this.count++;
      this.used += n + 1;
      p = nl + 1;
    }
    src.copy(this.buf, copyAt, copyFrom, p);
    return p;
  }

  /** Notes the key length of the record about to be pushed. */
  private keyLength(n: number): void {
    if (this.klen.length <= this.count) {
      const k = new Int32Array(Math.max(FIRST_LINES, this.klen.length * 2, this.count + 1));
      k.set(this.klen);
      this.klen = k;
    }
    this.klen[this.count] = n;
  }

  private push(at: number, n: number, partition: number): void {
    this.buf[at + n] = NEWLINE;
    this.used = at + n + 1;
    if (this.count === this.start.length) this.growIndex();
    this.start[this.count] = at;
    this.len[this.count] = n;
    this.part[this.count] = partition;
    this.count++;
  }

  private grow(need: number): void {
    let size = this.buf.length * 2;
    while (size < this.used + need) size *= 2;
    const next = Buffer.allocUnsafeSlow(size);
    this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }

  private growIndex(): void {
    const grow = (a: Int32Array) => {
      const b = new Int32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.start = grow(this.start);
    this.len = grow(this.len);
    this.part = grow(this.part);
  }

  /**
   * The lines' numbers in sorted order, grouped by partition (partition 0's lines first);
   * `bounds[p]` .. `bounds[p + 1]` is partition p's range of the result.
   */
  sorted(partitions = 1): { order: Int32Array; bounds: Int32Array } {
    const n = this.count;
    const order = new Int32Array(n);
    const bounds = new Int32Array(partitions + 1);
    if (partitions === 1) {
      for (let i = 0; i < n; i++) order[i] = i;
      bounds[1] = n;
    } else {
      // Counting sort by partition, then each partition's range by its bytes.
      for (let i = 0; i < n; i++) bounds[this.part[i] + 1]++;
      for (let p = 1; p <= partitions; p++) bounds[p] += bounds[p - 1];
      const at = bounds.slice(0, partitions);
      for (let i = 0; i < n; i++) order[at[this.part[i]]++] = i;
    }
    const cache = new Float64Array(n);
    for (let p = 0; p < partitions; p++) {
      if (nativeSort) nativeSort.sortLines(this.buf, this.start, this.len, order, cache, bounds[p], bounds[p + 1]);
      else sortLineIndex(order, this.buf, this.start, this.len, bounds[p], bounds[p + 1], cache);
    }
    return { order, bounds };
  }

  /** Whether lines i and j hold the same bytes. */
  same(i: number, j: number): boolean {
    const l = this.len[i];
    return l === this.len[j] && this.buf.compare(this.buf, this.start[j], this.start[j] + l, this.start[i], this.start[i] + l) === 0;
  }

  /** Whether lines i and j (`key TAB value` records) have the same key. */
  sameKey(i: number, j: number): boolean {
    const buf = this.buf;
    if (this.klen.length > 0) {
      const k = this.klen[i];
      if (k !== this.klen[j]) return false;
      return buf.compare(buf, this.start[j], this.start[j] + k, this.start[i], this.start[i] + k) === 0;
    }
    const a = this.start[i];
    const b = this.start[j];
    const n = Math.min(this.len[i], this.len[j]);
    for (let p = 0; p < n; p++) {
      const x = buf[a + p];
      if (x !== buf[b + p]) return false;
      if (x === 0x09) return true;
    }
    // No tab in the first n bytes, which agree: the shorter line's key is all of it, and the
    // longer one's is the same only if its tab comes right there.
    const li = this.len[i];
    const lj = this.len[j];
    if (li === lj) return true;
    return (li < lj ? buf[b + n] : buf[a + n]) === 0x09;
  }

  /** Line i decoded. */
  line(i: number): string {
    const s = this.start[i];
    return this.buf.toString('utf8', s, s + this.len[i]);
  }
}

/** `addRecordBatch`'s state for the addon: bytes used, lines. */
const batchState = new Int32Array(2);

/**
 * Whole lines (each ending with `\n`) in `buf[0, end)`, decoded: Latin-1 where the bytes are
 * ASCII (the fast path), else UTF-8 (whole lines are whole characters).
 */
export function decodeLines(buf: Buffer, end: number): string[] {
  const text = buf.toString(isAscii(buf.subarray(0, end)) ? 'latin1' : 'utf8', 0, end - 1);
  return text.split('\n');
}

/** All of `bytes` written to `fd` at its offset. */
export function writeAll(fd: number, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
}
