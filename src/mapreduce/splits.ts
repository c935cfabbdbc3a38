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

/**
 * The lines of a plain-text split as bytes: chunks of whole lines, each line with its newline
 * (a last line of the file without one gets one). A chunk is valid until the next is asked for.
 */
export function* splitChunks(split: Split): Generator<Buffer> {
  const fd = openSync(split.path, 'r');
  try {
    let pos = Math.max(0, split.start - 1);
    // One buffer for the whole split: the part of a line cut by a read moves to its front and
    // the next read follows it (a new buffer per read was garbage outside V8's heap).
    let buf = Buffer.allocUnsafeSlow(2 * CHUNK);
    let carry = 0;
    // A split that does not start the file begins after the first newline at or after start-1.
    let skipping = split.start > 0;
    // Offset in the file of buf[0].
    let dataAt = pos;
    for (;;) {
      if (carry === buf.length) {
        const bigger = Buffer.allocUnsafeSlow(buf.length * 2);
        buf.copy(bigger, 0, 0, carry);
        buf = bigger;
      }
      const n = readSync(fd, buf, carry, Math.min(CHUNK, buf.length - carry), pos);
      pos += n;
      if (n === 0) {
        // The last line of the file, without a newline.
        if (carry && !skipping && (split.end < 0 || dataAt < split.end)) yield Buffer.concat([buf.subarray(0, carry), NEWLINE]);
        return;
      }
      const size = carry + n;
      let from = 0;
      if (skipping) {
        const nl = buf.indexOf(10);
        if (nl < 0 || nl >= size) {
          // All of it is the line the split before reads.
          carry = 0;
          dataAt += size;
          continue;
        }
        skipping = false;
        from = nl + 1;
      }
      const end = Math.max(from, buf.lastIndexOf(10, size - 1) + 1);
      // Lines that start at or past the split's end belong to the next split.
      const past = split.end < 0 ? -1 : split.end - dataAt;
      if (past >= 0 && past <= end) {
        const cut = past <= from ? from : buf.indexOf(10, past - 1) + 1;
        if (cut > from) yield buf.subarray(from, cut);
        return;
      }
      if (end > from) yield buf.subarray(from, end);
      buf.copy(buf, 0, end, size);
      carry = size - end;
      dataAt += end;
    }
  } finally {
    closeSync(fd);
  }
}

const NEWLINE = Buffer.from('\n');

/** The lines of a plain-text split, in batches. */
export function* splitLines(split: Split): Generator<string[]> {
  for (const chunk of splitChunks(split)) {
    const lines: string[] = [];
    for (let s = 0; s < chunk.length; ) {
      const nl = chunk.indexOf(10, s);
      lines.push(decode(chunk.subarray(s, nl)));
      s = nl + 1;
    }
    yield lines;
  }
}

function decode(b: Buffer): string {
  return b.toString(isAscii(b) ? 'latin1' : 'utf8');
}
