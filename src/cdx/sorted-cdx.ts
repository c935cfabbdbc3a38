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
        if (!cdxLineComplete(carry, this.legend ? this.legend.trim().split(/\s+/).length - 1 : 11)) {
          throw new FormatError(this.path, at - Buffer.byteLength(carry), 'cut-short', 'the last line is cut short (the file ends inside it)');
        }
        yield carry;
      }
    } finally {
      closeSync(fd);
    }
  }
}
