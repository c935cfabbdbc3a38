/**
 * Input splits: byte ranges of text files, read the way Hadoop's LineRecordReader reads them:
 * a split holds the lines that start inside it (its first partial line belongs to the split
 * before; its last line is read to its end even past the split). Gzipped files are not
 * splittable and make one split each.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { isAscii } from 'node:buffer';

export interface Split {
  path: string;
  start: number;
  /** End of the split; -1 for "to the end of the file". */
  end: number;
}

/** Whether a file starts with the gzip magic bytes. */
export function isGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** Splits of about `size` bytes (at least one per file). */
export function makeSplits(paths: string[], size: number): Split[] {
  const out: Split[] = [];
  for (const path of paths) {
    if (path === '-' || isGzip(path)) {
      out.push({ path, start: 0, end: -1 });
      continue;
    }
    const total = statSync(path).size;
    const n = Math.max(1, Math.ceil(total / size));
    for (let i = 0; i < n; i++) {
      const start = Math.floor((total * i) / n);
      out.push({ path, start, end: i === n - 1 ? -1 : Math.floor((total * (i + 1)) / n) });
    }
  }
  return out;
}

/**
 * Splits of `n` lines each (Hadoop's NLineInputFormat): a manifest of archives gives one map
 * task per archive. Inputs are small text files (lists), read whole here.
 */
export function lineSplits(paths: string[], n: number): Split[] {
  const out: Split[] = [];
  for (const path of paths) {
    const data = readFileSync(path);
    const starts = [0];
    for (let i = data.indexOf(10); i >= 0 && i + 1 < data.length; i = data.indexOf(10, i + 1)) starts.push(i + 1);
    for (let i = 0; i < starts.length; i += n) {
      out.push({ path, start: starts[i], end: i + n < starts.length ? starts[i + n] : -1 });
    }
  }
  return out;
}

const CHUNK = 1 << 20;

/** The lines of a plain-text split, in batches. */
export function* splitLines(split: Split): Generator<string[]> {
  const fd = openSync(split.path, 'r');
  try {
    let pos = Math.max(0, split.start - 1);
    let carry: Buffer = Buffer.alloc(0);
    // A split that does not start the file begins after the first newline at or after start-1.
    let skipping = split.start > 0;
    // Offset in the file of carry[0].
    let carryAt = pos;
    const buf = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, pos);
      const data = n > 0 ? Buffer.concat([carry, buf.subarray(0, n)]) : carry;
      pos += n;
      let lineStart = 0;
      const lines: string[] = [];
      let done = false;
      for (;;) {
        const nl = data.indexOf(10, lineStart);
        if (nl < 0) break;
        if (skipping) {
          skipping = false;
        } else {
          if (split.end >= 0 && carryAt + lineStart >= split.end) {
            done = true;
            break;
          }
          lines.push(decode(data.subarray(lineStart, nl)));
        }
        lineStart = nl + 1;
      }
      if (lines.length) yield lines;
      if (done) return;
      carry = data.subarray(lineStart);
      carryAt += lineStart;
      if (n === 0) {
        // The last line of the file, without a newline.
        if (carry.length && !skipping && (split.end < 0 || carryAt < split.end)) yield [decode(carry)];
        return;
      }
    }
  } finally {
    closeSync(fd);
  }
}

function decode(b: Buffer): string {
  return b.toString(isAscii(b) ? 'latin1' : 'utf8');
}
