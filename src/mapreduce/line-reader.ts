/**
 * Lines of a text file (or stdin, `-`), gunzipped on the fly when the file is gzip (by its
 * magic bytes, so `.cdx.gz` and ZipNum blocks read the same way). Chunked: each read splits a
 * whole 1 MiB of text at once, which is where the speed is (docs/decisions.md, "The first choices": split beats csv-parse 6x).
 */
import { closeSync, createReadStream, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { isAscii } from 'node:buffer';
import { createGunzip } from 'node:zlib';
import { completeUtf8 } from '../util/utf8.js';
import { gunzipChunksSync, gunzipsSync } from '../util/gunzip-sync.js';
import { InputError, describeFsError } from '../util/errors.js';

const CHUNK = 1 << 20;

async function isGzipFile(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const b = Buffer.alloc(2);
    const { bytesRead } = await fh.read(b, 0, 2, 0);
    return bytesRead === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

async function openStream(path: string): Promise<NodeJS.ReadableStream> {
  if (path === '-') return process.stdin;
  try {
    const gz = await isGzipFile(path);
    const raw = createReadStream(path, { highWaterMark: CHUNK });
    return gz ? raw.pipe(createGunzip({ chunkSize: CHUNK })) : raw;
  } catch (err) {
    throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
  }
}

/** Batches of lines (without their newline); a final line without newline is included. */
export async function* lineBatches(path: string): AsyncGenerator<string[]> {
  const stream = await openStream(path);
  let carry = '';
  let tail: Buffer | undefined;
  let lineNo = 0;
  try {
    for await (const raw of stream as AsyncIterable<Buffer>) {
      const chunk = tail ? Buffer.concat([tail, raw]) : raw;
      // ASCII (nearly all CDX) decodes fastest as Latin-1, into one-byte strings.
      let text: string;
      if (isAscii(chunk)) {
        text = carry + chunk.toString('latin1');
        tail = undefined;
      } else {
        const end = completeUtf8(chunk);
        text = carry + chunk.toString('utf8', 0, end);
        tail = end < chunk.length ? Buffer.from(chunk.subarray(end)) : undefined;
      }
      const lines = text.split('\n');
      carry = lines.pop()!;
      lineNo += lines.length;
      if (lines.length > 0) yield lines;
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'Z_DATA_ERROR' || e.code === 'Z_BUF_ERROR')
      throw new InputError(`${path}: after line ${lineNo}: corrupt or cut-short gzip data (${e.message})`);
    throw new InputError(describeFsError(path, e));
  }
  const last = carry + (tail ? tail.toString('utf8') : '');
  if (last !== '') yield [last];
}

/**
 * The file's bytes in chunks that each end at a line's end (its newline included; a last line
 * without one gets one), for readers that take fields from the bytes and never decode a line
 * they do not need as text. Gunzipped on the fly as lineBatches. `linesRead` tells an error
 * how many lines the caller had taken when the data broke off. A chunk is valid until the
 * next is asked for.
 */
export async function* lineChunks(path: string, linesRead?: () => number): AsyncGenerator<Buffer> {
  if (path !== '-' && !(await isGzipFileOrMissing(path))) {
    yield* plainLineChunks(path);
    return;
  }
  // Inflated here, synchronously, where node:zlib allows (gunzip-sync.ts says why).
  let fd: number | undefined;
  let inflated: Iterable<Buffer> | AsyncIterable<Buffer>;
  if (path !== '-' && gunzipsSync) {
    try {
      fd = openSync(path, 'r');
    } catch (err) {
      throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
    }
    inflated = gunzipChunksSync(fd, CHUNK);
  } else {
    inflated = (await openStream(path)) as AsyncIterable<Buffer>;
  }
  let carry: Buffer | undefined;
  let text = 0;
  try {
    for await (const raw of inflated) {
      let from = 0;
      if (carry) {
        // Only the line cut at the last read is joined, not the whole read (a copy of
        // everything read, and garbage V8 collects late).
        const nl = raw.indexOf(0x0a);
        from = nl < 0 ? raw.length : nl + 1;
        const joined = Buffer.concat([carry, raw.subarray(0, from)]);
        if (nl < 0) {
          carry = joined;
          continue;
        }
        carry = undefined;
        text += joined.length;
        yield joined;
      }
      const end = raw.lastIndexOf(0x0a) + 1;
      if (end > from) {
        text += end - from;
        yield raw.subarray(from, end);
      }
      if (end < raw.length) carry = Buffer.from(raw.subarray(end));
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // Where: the lines the caller has taken (it counts them as it reads), else the bytes.
    const where = linesRead ? `line ${linesRead()}` : `${text} bytes of text`;
    if (e.code === 'Z_DATA_ERROR' || e.code === 'Z_BUF_ERROR') throw new InputError(`${path}: after ${where}: corrupt or cut-short gzip data (${e.message})`);
    throw new InputError(describeFsError(path, e));
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (carry && carry.length > 0) yield Buffer.concat([carry, Buffer.from('\n')]);
}

/** Whether a file is gzip; false for one that cannot be opened (the reader then says why). */
async function isGzipFileOrMissing(path: string): Promise<boolean> {
  try {
    return await isGzipFile(path);
  } catch {
    return false;
  }
}

const NEWLINE = Buffer.from('\n');

/**
 * `lineChunks` of a plain file: read into one buffer, the line a read cuts moved to its front
 * for the next read to follow (a stream's new megabyte per read was garbage outside V8's heap
 * that it collected late: tens of megabytes of RSS on a sort of gigabytes).
 */
async function* plainLineChunks(path: string): AsyncGenerator<Buffer> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
  }
  try {
    let buf = Buffer.allocUnsafeSlow(2 * CHUNK);
    let carry = 0;
    for (;;) {
      if (carry === buf.length) {
        const bigger = Buffer.allocUnsafeSlow(buf.length * 2);
        buf.copy(bigger, 0, 0, carry);
        buf = bigger;
      }
      let n: number;
      try {
        ({ bytesRead: n } = await fh.read(buf, carry, Math.min(CHUNK, buf.length - carry), null));
      } catch (err) {
        throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
      }
      if (n === 0) {
        if (carry > 0) yield Buffer.concat([buf.subarray(0, carry), NEWLINE]);
        return;
      }
      const size = carry + n;
      const end = buf.lastIndexOf(0x0a, size - 1) + 1;
      if (end > 0) yield buf.subarray(0, end);
      buf.copy(buf, 0, end, size);
      carry = size - end;
    }
  } finally {
    await fh.close();
  }
}

export async function* lines(path: string): AsyncGenerator<string> {
  for await (const batch of lineBatches(path)) yield* batch;
}
