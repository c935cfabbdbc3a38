/**
 * A local archive file (or `-`, stdin) as a byte source: streamed in 1 MB chunks and read again
 * from an offset after damage; and one byte range of a local file, by positional reads.
 * Errors name the file and say what is wrong, without a stack.
 */
import { createReadStream, promises as fsp } from 'node:fs';
import { basename } from 'node:path';
import { InputError, describeFsError } from '../util/errors.js';
import type { ByteRange, ByteSource } from './locations.js';

const CHUNK = 1 << 20;

export async function openFileSource(path: string): Promise<ByteSource> {
  if (path === '-') {
    return {
      name: 'stdin',
      fileName: '-',
      size: undefined,
      chunks: () => (process.stdin as AsyncIterable<Buffer>)[Symbol.asyncIterator](),
      close: () => {},
    };
  }
  let size: number;
  try {
    const st = await fsp.stat(path);
    if (st.isDirectory()) throw new InputError(`${path}: is a directory, not an archive file`);
    if (!st.isFile()) throw new InputError(`${path}: not a regular file`);
    size = st.size;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
  }
  let stream: ReturnType<typeof createReadStream> | undefined;
  const chunksFrom = (start: number): AsyncIterator<Buffer> => {
    stream?.destroy();
    stream = createReadStream(path, { highWaterMark: CHUNK, start });
    const it = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    return {
      next: async () => {
        try {
          return await it.next();
        } catch (err) {
          throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
        }
      },
      return: async () => (it.return ? it.return() : { done: true, value: undefined }),
    };
  };
  return {
    name: path,
    fileName: basename(path),
    size,
    chunks: () => chunksFrom(0),
    reopen: (offset) => chunksFrom(offset),
    close() {
      stream?.destroy();
    },
  };
}

/** One byte range of a local file: positional reads, nothing outside the range. */
export async function openFileRange(path: string, range: ByteRange): Promise<ByteSource> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(path, 'r');
  } catch (err) {
    throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
  }
  let closed = false;
  const close = () => {
    if (!closed) void fh.close().catch(() => {});
    closed = true;
  };
  return {
    name: `${path} at ${range.offset}`,
    fileName: basename(path),
    size: range.length,
    chunks: () => rangeChunks(0),
    reopen: (offset) => rangeChunks(offset),
    close,
  };

  function rangeChunks(from: number): AsyncIterator<Buffer> {
    let at = range.offset + from;
    const end = range.length === undefined ? Infinity : range.offset + range.length;
    return {
      next: async (): Promise<IteratorResult<Buffer>> => {
        if (at >= end || closed) return { done: true, value: undefined };
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, end - at));
        let n: number;
        try {
          ({ bytesRead: n } = await fh.read(buf, 0, buf.length, at));
        } catch (err) {
          throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
        }
        if (n === 0) return { done: true, value: undefined };
        at += n;
        return { done: false, value: buf.subarray(0, n) };
      },
      return: async () => {
        close();
        return { done: true, value: undefined };
      },
    };
  }
}
