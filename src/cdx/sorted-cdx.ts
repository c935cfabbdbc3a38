/**
 * A sorted CDX file searched in place, as `look` does: a binary search by seeking (each probe
 * reads the line after a byte position) finds where the key range starts, then lines are read
 * on from there until the range ends. A gzipped CDX cannot be seeked and is scanned.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { gunzipSync, constants } from 'node:zlib';
import { lineBatches } from '../mapreduce/line-reader.js';
import { FormatError, InputError, describeFsError } from '../util/errors.js';
import { cdxLineComplete, cdxLineProblem } from './cdx-reader.js';

const PROBE = 8 * 1024;
const READ = 1 << 20;
const FIRST_READ = 16 << 10;

export class SortedCdxFile {
  readonly size: number;
  readonly gzip: boolean;
  /** The ` CDX ...` legend line, where the file starts with one. */
  readonly legend: string | undefined;

  constructor(readonly path: string) {
    let fd: number;
    try {
      if (!statSync(path).isFile()) throw new InputError(`${path}: not a file`);
      fd = openSync(path, 'r');
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
    }
    try {
      this.size = statSync(path).size;
      const head = Buffer.alloc(Math.min(PROBE, this.size));
      readSync(fd, head, 0, head.length, 0);
      if (this.size === 0) throw new InputError(`${path}: empty file: no CDX lines`);
      this.gzip = head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
      // The head as text (a gzipped file's first block inflated as far as it goes).
      let text: string;
      try {
        text = (this.gzip ? gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH }) : head).toString('utf8');
      } catch (err) {
        throw new InputError(`${path}: not gzip data that can be read (${(err as Error).message})`);
      }
      const lines = text.split('\n');
      this.legend = lines[0].startsWith(' CDX ') ? lines[0] : undefined;
      const lineNo = lines.findIndex((l) => l !== '' && l[0] !== ' ' && l[0] !== '!');
      const problem = lineNo >= 0 && (lineNo < lines.length - 1 || text.length < PROBE) ? cdxLineProblem(lines[lineNo]) : undefined;
      if (problem) throw new FormatError(path, 0, 'not-cdx', `line ${lineNo + 1}: ${problem}`);
    } finally {
      closeSync(fd);
    }
  }

  /** The line that starts at the first line start after byte `pos`, and where it starts. */
  private lineAfter(fd: number, pos: number, buf: Buffer): [string, number] | undefined {
    let n = readSync(fd, buf, 0, buf.length, pos);
    let nl = buf.subarray(0, n).indexOf(0x0a);
    if (nl < 0) return undefined;
    const start = pos + nl + 1;
    n = readSync(fd, buf, 0, buf.length, start);
    if (n === 0) return undefined;
    nl = buf.subarray(0, n).indexOf(0x0a);
    return [buf.toString('utf8', 0, nl < 0 ? n : nl), start];
  }

  /** A line start before every line >= key (0, or a line that sorts before key). */
  private seek(key: string): number {
    const fd = openSync(this.path, 'r');
    const buf = Buffer.allocUnsafe(PROBE);
    try {
      let lo = 0;
      let hi = this.size;
      while (hi - lo > PROBE) {
        const mid = Math.floor((lo + hi) / 2);
        const at = this.lineAfter(fd, mid, buf);
        if (!at || at[1] >= hi) {
          hi = mid;
          continue;
        }
        if (at[0] < key) lo = at[1];
        else hi = mid;
      }
      return lo;
    } finally {
      closeSync(fd);
    }
  }

  /** Where the first line >= key starts (the file's size where none does), and the line before it ends. */
  private offsetOf(fd: number, key: string): number {
    let at = this.seek(key);
    let buf = Buffer.allocUnsafe(PROBE);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, at);
      if (n === 0) return this.size;
      const nl = buf.subarray(0, n).indexOf(0x0a);
      if (nl < 0 && n === buf.length) {
        // A line longer than the buffer: read it again whole.
        buf = Buffer.allocUnsafe(buf.length * 2);
        continue;
      }
      const line = buf.toString('utf8', 0, nl < 0 ? n : nl);
      if (line >= key && line[0] !== ' ' && line[0] !== '!') return at;
      if (nl < 0) return this.size;
      at += nl + 1;
    }
  }

  /** Where the last line that starts before byte `end` (and at or after `from`) starts. */
  private lastLineStart(fd: number, from: number, end: number): number {
    const buf = Buffer.allocUnsafe(PROBE);
    // The byte before `end` ends the line (a newline) or is inside the file's last line.
    for (let hi = end - 1; hi > from; ) {
      const lo = Math.max(from, hi - buf.length);
      readSync(fd, buf, 0, hi - lo, lo);
      const nl = buf.subarray(0, hi - lo).lastIndexOf(0x0a);
      if (nl >= 0) return lo + nl + 1;
      hi = lo;
    }
    return from;
  }

  /**
   * The fixed byte blocks (`blockBytes` each, from the file's start) that a key range's lines
   * start in: a flat file's stand-in for a ZipNum cluster's blocks, so that /cdx pages it by
   * pywb's rules, each page found by seeking. Undefined where the range holds no line.
   */
  blockSpan(startKey: string, endKey: string, blockBytes: number): { first: number; last: number } | undefined {
    const fd = openSync(this.path, 'r');
    try {
      const from = this.offsetOf(fd, startKey);
      const end = this.offsetOf(fd, endKey);
      if (from >= end) return undefined;
      return { first: Math.floor(from / blockBytes), last: Math.floor(this.lastLineStart(fd, from, end) / blockBytes) };
    } finally {
      closeSync(fd);
    }
  }

  /** Lines with startKey <= line < endKey that start in blocks [from, to) of `blockBytes` bytes: one page's. */
  async *blockLines(from: number, to: number, startKey: string, endKey: string, blockBytes: number): AsyncGenerator<string> {
    const fd = openSync(this.path, 'r');
    try {
      const stop = Math.min(this.size, to * blockBytes);
      // The first line starting at or after the block's first byte.
      let at = from * blockBytes;
      if (at > 0) {
        const next = this.lineAfterByte(fd, at - 1, Buffer.allocUnsafe(PROBE));
        if (next === undefined) return;
        at = next;
      }
      let buf = Buffer.allocUnsafe(FIRST_READ);
      while (at < stop) {
        const n = readSync(fd, buf, 0, buf.length, at);
        if (n === 0) return;
        const eof = at + n >= this.size;
        let start = 0;
        for (;;) {
          let nl = buf.indexOf(0x0a, start);
          if (nl < 0 || nl >= n) {
            // The file's last line may end without a newline.
            if (!eof || start >= n) break;
            nl = n;
          }
          // A line belongs to the page its first byte is in.
          if (at + start >= stop) return;
          const l = buf.toString('utf8', start, nl);
          if (nl === n) this.checkLastLine(l, at + start);
          start = nl + 1;
          if (l === '' || l < startKey || l[0] === ' ' || l[0] === '!') continue;
          if (l >= endKey) return;
          yield l;
        }
        if (eof) return;
        // No whole line in the buffer: a longer one, read again with room for it.
        if (start === 0) buf = Buffer.allocUnsafe(buf.length * 2);
        else if (buf.length < READ) buf = Buffer.allocUnsafe(Math.min(READ, buf.length * 4));
        at += start;
      }
    } finally {
      closeSync(fd);
    }
  }

  /** The file's last line, which no newline ends: an error where the file ends inside it. */
  private checkLastLine(line: string, offset: number): void {
    if (!cdxLineComplete(line, this.legend ? this.legend.trim().split(/\s+/).length - 1 : 11)) {
      throw new FormatError(this.path, offset, 'cut-short', 'the last line is cut short (the file ends inside it)');
    }
  }

  /** Where the first line that starts after byte `pos` starts (after the newline at or after it). */
  private lineAfterByte(fd: number, pos: number, buf: Buffer): number | undefined {
    for (let at = pos; at < this.size; at += buf.length) {
      const n = readSync(fd, buf, 0, buf.length, at);
      const nl = buf.subarray(0, n).indexOf(0x0a);
      if (nl >= 0) return at + nl + 1 < this.size ? at + nl + 1 : undefined;
    }
    return undefined;
  }

  async *lines(startKey: string, endKey: string): AsyncGenerator<string> {
    if (this.gzip) {
      for await (const batch of lineBatches(this.path)) {
        for (const l of batch) {
          if (l < startKey || l[0] === ' ' || l[0] === '!') continue;
          if (l >= endKey) return;
          yield l;
        }
      }
      return;
    }
    const fd = openSync(this.path, 'r');
    try {
      let at = this.seek(startKey);
      let carry = '';
      let buf = Buffer.allocUnsafe(FIRST_READ);
      // A lookup wants a few lines (a replay's, an export's resource): the first read is small,
      // the next ones grow to READ for a long range (a 1 MB read and split cost each of an
      // export's lookups 0.9 ms).
      for (let want = FIRST_READ; ; want = Math.min(READ, want * 4)) {
        if (buf.length < want) buf = Buffer.allocUnsafe(want);
        const n = readSync(fd, buf, 0, want, at);
        if (n === 0) break;
        // Cut at the last newline so that no UTF-8 sequence is split.
        const last = n < want ? n : buf.subarray(0, n).lastIndexOf(0x0a) + 1 || n;
        at += last;
        const lines = (carry + buf.toString('utf8', 0, last)).split('\n');
        carry = lines.pop()!;
        for (const l of lines) {
          if (l < startKey) continue;
          if (l >= endKey) return;
          yield l;
        }
      }
      if (carry !== '' && carry >= startKey && carry < endKey) {
        this.checkLastLine(carry, at - Buffer.byteLength(carry));
        yield carry;
      }
    } finally {
      closeSync(fd);
    }
  }
}
