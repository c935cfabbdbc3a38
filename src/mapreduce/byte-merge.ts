/**
 * The k-way merge of sorted runs, over bytes: each run is read a megabyte at a time, lines are
 * compared where they lie (`Buffer#compare` on ranges, which is `LC_ALL=C` order) and copied to
 * the output as bytes. No line becomes a JS string on its way through a merge pass; a consumer
 * that wants strings decodes each output chunk at once (`decodeLines`).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { copyBytes, type LineArena } from './line-arena.js';

/** A sorted source of lines: after `next()` returns true, the line is `buf[s, e)`. */
export interface LineCursor {
  buf: Buffer;
  s: number;
  e: number;
  next(): boolean;
  close(): void;
}

const READ = 1 << 20;

/** The lines of a run file (`\n`-terminated; a last line without one is taken as is). */
export class FileLines implements LineCursor {
  buf = Buffer.allocUnsafeSlow(READ);
  s = 0;
  e = 0;
  private fill = 0;
  private pos = 0;
  private eof = false;
  private fd: number | undefined;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'r');
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
    const n = readSync(this.fd!, this.buf, this.fill, this.buf.length - this.fill, null);
    if (n === 0) this.eof = true;
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
  private k: number;

  constructor(private readonly arena: LineArena, private readonly order: Int32Array, from: number, private readonly to: number) {
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
export function* mergeLines(cursors: LineCursor[], unique = false, chunkBytes = READ): Generator<Buffer> {
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
