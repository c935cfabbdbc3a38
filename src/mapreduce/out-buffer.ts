/**
 * Bytes to a file descriptor through a 1 MiB buffer, for the runs and partitions the map task
 * and the merges write: whole lines, a record arena's single keys gathered by the addon, or
 * lines given as strings.
 */
import { writeSync } from 'node:fs';
import { copyBytes, utf8Write, writeAll, type LineArena } from './line-arena.js';
import { nativeSort } from '../native/sort.js';
import { GATHER_USED } from '../native/shared.js';

/** `putSingles`' state for the addon: bytes used. */
const gatherState = new Int32Array(1);

/**
 * Bytes to a file descriptor through a 1 MiB buffer; from byte `position` of the file on when
 * one is given (a part of a file that another thread writes the rest of), else at its offset.
 */
export class OutBuffer {
  private readonly buf = Buffer.allocUnsafeSlow(1 << 20);
  private used = 0;

  constructor(
    private readonly fd: number,
    private position?: number,
  ) {}

  put(src: Uint8Array, from: number, to: number): void {
    const n = to - from;
    if (this.used + n > this.buf.length) {
      this.flush();
      if (n > this.buf.length) {
        this.write(src.subarray(from, to));
        return;
      }
    }
    copyBytes(src, from, to, this.buf, this.used);
    this.used += n;
  }

  /**
   * Records `order[from, ...)` of a record arena while each one's key differs from the next
   * one's (the single keys a combine passes on), through the addon; returns where the first
   * group of a repeated key starts (`to` when none does). Without the addon, `from`.
   */
  putSingles(arena: LineArena, order: Int32Array, from: number, to: number): number {
    if (!nativeSort || arena.klen.length < arena.count) return from;
    const st = gatherState;
    let k = from;
    for (;;) {
      st[GATHER_USED] = this.used;
      k = nativeSort.gatherSingles(arena.buf, arena.start, arena.len, arena.klen, order, k, to, this.buf, st);
      this.used = st[GATHER_USED];
      if (k === to) return k;
      const i = order[k];
      const single = k + 1 === to || !arena.sameKey(i, order[k + 1]);
      if (!single) return k;
      // A line that did not fit: a new buffer, or a line larger than one, written as it lies.
      if (this.used > 0) this.flush();
      else {
        this.write(arena.buf.subarray(arena.start[i], arena.start[i] + arena.len[i] + 1));
        k++;
      }
    }
  }

  /** A line (without its newline), encoded as UTF-8, and a newline. */
  putLine(line: string): void {
    const need = line.length * 3 + 1;
    if (this.used + need > this.buf.length) {
      this.flush();
      if (need > this.buf.length) {
        this.write(Buffer.from(`${line}\n`));
        return;
      }
    }
    this.used += utf8Write(this.buf, line, this.used);
    this.buf[this.used++] = 0x0a;
  }

  flush(): void {
    if (this.used > 0) this.write(this.buf.subarray(0, this.used));
    this.used = 0;
  }

  private write(bytes: Uint8Array): void {
    if (this.position === undefined) writeAll(this.fd, bytes);
    else {
      for (let off = 0; off < bytes.length; ) off += writeSync(this.fd, bytes, off, bytes.length - off, this.position + off);
      this.position += bytes.length;
    }
  }
}
