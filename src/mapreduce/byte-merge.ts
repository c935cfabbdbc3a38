/**
 * The k-way merge of sorted runs, over bytes: each run is read a megabyte at a time, lines are
 * compared where they lie (`Buffer#compare` on ranges, which is `LC_ALL=C` order) and copied to
 * the output as bytes. No line becomes a JS string on its way through a merge pass; a consumer
 * that wants strings decodes each output chunk at once (`decodeLines`).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { copyBytes, type LineArena } from './line-arena.js';
import { OutBuffer } from './out-buffer.js';
import { nativeSort, type NativeSort } from '../native/sort.js';
import { CUR_E, CUR_FIELDS, CUR_FILL, CUR_POS, CUR_S, MERGE_DONE, MERGE_OUT_FULL, ST_ARG, ST_LAST, ST_USED } from '../native/shared.js';

/** A sorted source of lines: after `next()` returns true, the line is `buf[s, e)`. */
export interface LineCursor {
  buf: Buffer;
  s: number;
  e: number;
  next(): boolean;
  close(): void;
}

const READ = 1 << 20;
/** A run being merged reads this much at a time, unless its merge says otherwise (`RunRange.read`). */
const RUN_READ = 256 << 10;

/**
 * Lines of a run file from byte `from` (a line's start) up to byte `to` (one's end, or the
 * file's), read `read` bytes at a time.
 */
export interface RunRange {
  path: string;
  from?: number;
  to?: number;
  read?: number;
}

/** The lines of a run file (`\n`-terminated; a last line without one is taken as is), or of a range of it. */
export class FileLines implements LineCursor {
  buf: Buffer;
  s = 0;
  e = 0;
  /** Bytes of `buf` read, and where the next line starts (the native merge moves it on). */
  fill = 0;
  pos = 0;
  private eof = false;
  private fd: number | undefined;
  /** File offset of the next read, and where reading stops. */
  private at: number;
  private readonly end: number;

  constructor(
    readonly path: string,
    from = 0,
    to = Infinity,
    read = RUN_READ,
  ) {
    this.buf = Buffer.allocUnsafeSlow(read);
    this.fd = openSync(path, 'r');
    this.at = from;
    this.end = to;
  }

  next(): boolean {
    for (;;) {
      const nl = this.pos < this.fill ? this.buf.indexOf(0x0a, this.pos) : -1;
      if (nl >= 0 && nl < this.fill) {
        this.s = this.pos;
        this.e = nl;
        this.pos = nl + 1;
        return true;
      }
      if (this.eof) {
        if (this.pos < this.fill) {
          this.s = this.pos;
          this.e = this.fill;
          this.pos = this.fill;
          return true;
        }
        this.close();
        return false;
      }
      this.refill();
    }
  }

  /** Moves the partial line to the front (growing the buffer for a line longer than it) and reads on. */
  private refill(): void {
    const left = this.fill - this.pos;
    if (this.pos === 0 && left === this.buf.length) {
      const bigger = Buffer.allocUnsafeSlow(this.buf.length * 2);
      this.buf.copy(bigger, 0, 0, left);
      this.buf = bigger;
    } else if (left > 0) this.buf.copy(this.buf, 0, this.pos, this.fill);
    this.pos = 0;
    this.fill = left;
    const want = Math.min(this.buf.length - this.fill, this.end - this.at);
    const n = want > 0 ? readSync(this.fd!, this.buf, this.fill, want, this.at) : 0;
    if (n === 0) this.eof = true;
    this.at += n;
    this.fill += n;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** The lines of an arena in a sorted order (the last run of a sort, never written to disk). */
export class ArenaLines implements LineCursor {
  buf: Buffer;
  s = 0;
  e = 0;
  /** Position in `order` of the next line. */
  k: number;

  constructor(
    readonly arena: LineArena,
    readonly order: Int32Array,
    from: number,
    readonly to: number,
  ) {
    this.buf = arena.buf;
    this.k = from;
  }

  next(): boolean {
    if (this.k >= this.to) return false;
    const i = this.order[this.k++];
    this.s = this.arena.start[i];
    this.e = this.s + this.arena.len[i];
    return true;
  }

  close(): void {}
}

/**
 * Merges sorted cursors; yields chunks of whole lines (each line with its `\n`), about
 * `chunkBytes` each. A chunk is only valid until the next one is asked for. With `unique`, a
 * line equal to the one before it is left out.
 *
 * The cursors play a tournament of losers (Knuth, TAOCP 5.4.1): after the winner's cursor moves
 * on, it replays only its path to the root, one comparison per level, half of what sifting a
 * binary heap takes (two per level), and comparisons are the merge's cost.
 */
export function mergeLines(cursors: LineCursor[], unique = false, chunkBytes = READ): Generator<Buffer> {
  if (nativeSort && cursors.every((c) => c instanceof FileLines || c instanceof ArenaLines))
    return nativeMerge(nativeSort, cursors as (FileLines | ArenaLines)[], unique, chunkBytes);
  return mergeLinesJs(cursors, unique, chunkBytes);
}

/** `mergeLines` in JavaScript: without the addon, and for cursors of other kinds. */
export function* mergeLinesJs(cursors: LineCursor[], unique = false, chunkBytes = READ): Generator<Buffer> {
  const k = cursors.length;
  const done = cursors.map((c) => !c.next());
  // a beats b: a's line first in byte order; an exhausted cursor loses; ties go to the
  // earlier cursor, so a merge is stable.
  const beats = (a: number, b: number): boolean => {
    if (done[a]) return false;
    if (done[b]) return true;
    const x = cursors[a];
    const y = cursors[b];
    const c = x.buf.compare(y.buf, y.s, y.e, x.s, x.e);
    return c < 0 || (c === 0 && a < b);
  };
  // Leaves k..2k-1 (cursor i at k + i), inner nodes 1..k-1 keep the loser of their match,
  // tree[0] the overall winner.
  const tree = new Int32Array(Math.max(1, k));
  if (k > 0) {
    const win = new Int32Array(2 * k);
    for (let i = 0; i < k; i++) win[k + i] = i;
    for (let t = k - 1; t >= 1; t--) {
      const l = win[2 * t];
      const r = win[2 * t + 1];
      if (beats(l, r)) {
        win[t] = l;
        tree[t] = r;
      } else {
        win[t] = r;
        tree[t] = l;
      }
    }
    tree[0] = k === 1 ? 0 : win[1];
  }
  let out = Buffer.allocUnsafeSlow(chunkBytes);
  let used = 0;
  // The last line put out, for `unique` (kept aside: the chunk that holds it is handed over).
  let prev = Buffer.allocUnsafeSlow(unique ? 4096 : 0);
  let prevLen = -1;
  try {
    while (k > 0 && !done[tree[0]]) {
      const w = tree[0];
      const top = cursors[w];
      const n = top.e - top.s;
      if (!unique || prevLen !== n || top.buf.compare(prev, 0, n, top.s, top.e) !== 0) {
        if (used + n + 1 > out.length) {
          if (used > 0) yield out.subarray(0, used);
          used = 0;
          if (n + 1 > out.length) out = Buffer.allocUnsafeSlow(n + 1);
        }
        copyBytes(top.buf, top.s, top.e, out, used);
        out[used + n] = 0x0a;
        used += n + 1;
        if (unique) {
          if (n > prev.length) prev = Buffer.allocUnsafeSlow(Math.max(n, prev.length * 2));
          top.buf.copy(prev, 0, top.s, top.e);
          prevLen = n;
        }
      }
      if (!top.next()) done[w] = true;
      // The winner's new line replays its matches up to the root.
      let c = w;
      for (let t = (w + k) >> 1; t > 0; t >>= 1) {
        if (beats(tree[t], c)) {
          const l = c;
          c = tree[t];
          tree[t] = l;
        }
      }
      tree[0] = c;
    }
    if (used > 0) yield out.subarray(0, used);
  } finally {
    for (const c of cursors) c.close();
  }
}

/**
 * `mergeLines` in native code: the addon merges whole lines out of the sources' buffers into
 * the chunk, and returns here when the chunk is full or a file's buffer holds no whole line
 * more, to be read on by its `FileLines` (so reading, and a last line without a newline, are
 * handled in one place).
 */
function* nativeMerge(addon: NativeSort, cursors: (FileLines | ArenaLines)[], unique: boolean, chunkBytes: number): Generator<Buffer> {
  const k = cursors.length;
  const cur = new Int32Array(CUR_FIELDS * Math.max(1, k));
  const tree = new Int32Array(Math.max(1, k));
  const m = addon.mergeOpen(k, unique, cur, tree);
  // Copies cursor i's line and position into `cur` after its `next()`, and its buffer to the addon.
  const load = (i: number, more: boolean): void => {
    const c = cursors[i];
    if (!more) {
      cur[CUR_FIELDS * i + CUR_E] = -1;
      return;
    }
    cur[CUR_FIELDS * i + CUR_S] = c.s;
    cur[CUR_FIELDS * i + CUR_E] = c.e;
    if (c instanceof FileLines) {
      cur[CUR_FIELDS * i + CUR_POS] = c.pos;
      cur[CUR_FIELDS * i + CUR_FILL] = c.fill;
      addon.mergeSource(m, i, c.buf);
    } else {
      cur[CUR_FIELDS * i + CUR_POS] = c.k;
      cur[CUR_FIELDS * i + CUR_FILL] = c.to;
      addon.mergeSource(m, i, c.buf, c.order, c.arena.start, c.arena.len);
    }
  };
  try {
    for (let i = 0; i < k; i++) load(i, cursors[i].next());
    let out = Buffer.allocUnsafeSlow(chunkBytes);
    // Bytes used, start of the last line put in `out` (for `unique`), argument (-2: start).
    const st = new Int32Array(ST_ARG + 1);
    st[ST_USED] = 0;
    st[ST_LAST] = -1;
    st[ST_ARG] = -2;
    for (;;) {
      const status = addon.mergeRun(m, out, st);
      if (status === MERGE_DONE) break;
      if (status === MERGE_OUT_FULL) {
        if (st[ST_USED] > 0) yield out.subarray(0, st[ST_USED]);
        // The line that did not fit was compared with the last one before it: none to compare
        // in the next chunk.
        st[ST_USED] = 0;
        st[ST_LAST] = -1;
        const w = tree[0];
        const n = cur[CUR_FIELDS * w + CUR_E] - cur[CUR_FIELDS * w + CUR_S];
        if (n + 1 > out.length) out = Buffer.allocUnsafeSlow(n + 1);
        continue;
      }
      // MERGE_REFILL: the source's file is read on from where the addon left it.
      const w = st[ST_ARG];
      const c = cursors[w] as FileLines;
      c.pos = cur[CUR_FIELDS * w + CUR_POS];
      load(w, c.next());
    }
    if (st[ST_USED] > 0) yield out.subarray(0, st[ST_USED]);
  } finally {
    for (const c of cursors) c.close();
  }
}

/**
 * Merges run ranges into the file `out` (a merge pass, or one side of a split final merge);
 * with `at`, into the existing file `out` from byte `at` on (the upper half of a final merge
 * written in its place in the output).
 */
export function mergeToFile(sources: RunRange[], out: string, unique: boolean, at?: number): void {
  const fd = openSync(out, at === undefined ? 'w' : 'r+');
  try {
    const o = new OutBuffer(fd, at);
    for (const chunk of mergeLines(
      sources.map((r) => new FileLines(r.path, r.from, r.to, r.read)),
      unique,
    ))
      o.put(chunk, 0, chunk.length);
    o.flush();
  } finally {
    closeSync(fd);
  }
}

/** The line that starts at byte `at` of a file (without its newline), read on until its end. */
function lineAt(fd: number, at: number, size: number): Buffer {
  let buf = Buffer.allocUnsafe(4096);
  let n = 0;
  for (;;) {
    const got = at + n < size ? readSync(fd, buf, n, buf.length - n, at + n) : 0;
    const nl = buf.indexOf(0x0a, n);
    if (nl >= 0 && nl < n + got) return buf.subarray(0, nl);
    n += got;
    if (got === 0) return buf.subarray(0, n);
    if (n === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, n);
      buf = bigger;
    }
  }
}

/** The start of the first line at or after byte `at` of a run file (`size` when none). */
function lineStartFrom(fd: number, at: number, size: number): number {
  if (at === 0) return 0;
  const buf = Buffer.allocUnsafe(4096);
  for (let p = at - 1; p < size; p += buf.length) {
    const got = readSync(fd, buf, 0, Math.min(buf.length, size - p), p);
    const nl = buf.indexOf(0x0a);
    if (nl >= 0 && nl < got) return p + nl + 1;
  }
  return size;
}

/**
 * The byte offset of the first line of a sorted run file that is not below `key` in byte order
 * (the file's size when every line is): a binary search over byte offsets, each probe moved to
 * the next line's start, and a scan line by line where the probes run out.
 */
export function lowerBound(path: string, key: Buffer): number {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    // Every line starting before lo is below key; the answer is a line start in [lo, hi].
    let lo = 0;
    let hi = size;
    while (lo < hi) {
      const p = lineStartFrom(fd, lo + Math.floor((hi - lo) / 2), size);
      const probe = p < hi ? p : lo;
      const line = lineAt(fd, probe, size);
      if (Buffer.compare(line, key) >= 0) hi = probe;
      else lo = probe + line.length + 1;
    }
    return Math.min(lo, size);
  } finally {
    closeSync(fd);
  }
}

/** The line in the middle of a run file (by bytes), a sample for splitting a merge. */
export function middleLine(path: string): Buffer | undefined {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const p = lineStartFrom(fd, Math.floor(size / 2), size);
    return p < size ? Buffer.from(lineAt(fd, p, size)) : undefined;
  } finally {
    closeSync(fd);
  }
}

/** A file of whole lines (each with its newline) in chunks of whole lines, each valid until the next. */
export function* fileChunks(path: string): Generator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    let buf = Buffer.allocUnsafeSlow(READ);
    let fill = 0;
    for (;;) {
      const n = readSync(fd, buf, fill, buf.length - fill, null);
      fill += n;
      const end = n === 0 ? fill : buf.lastIndexOf(0x0a, fill - 1) + 1;
      if (end > 0) yield buf.subarray(0, end);
      if (n === 0) return;
      if (end === 0 && fill === buf.length) {
        const bigger = Buffer.allocUnsafeSlow(buf.length * 2);
        buf.copy(bigger, 0, 0, fill);
        buf = bigger;
      } else if (end > 0) {
        buf.copy(buf, 0, end, fill);
        fill -= end;
      }
    }
  } finally {
    closeSync(fd);
  }
}
