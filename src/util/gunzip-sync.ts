/**
 * A gzip file's inflated bytes, read and inflated on the calling thread: a task thread that
 * reads a dataset's part through a zlib stream hands every megabyte to libuv's thread pool and
 * waits for it (the index's map threads idled a quarter of their time so). A record file is
 * thousands of members: the `inflate` kernel inflates each whole by libdeflate, about four
 * times node:zlib's rate; node:zlib is the twin, one engine driven as zlib.js's
 * processChunkSync drives it, whose native side goes on into the next member by itself.
 */
import { readSync } from 'node:fs';
import zlib from 'node:zlib';
import { Z_FINISH, Z_NO_FLUSH, zlibCode, zlibHandle } from './zlib-handle.js';
import { GUNZIP_ALL_TAKEN, GUNZIP_NOT_INFLATED, GUNZIP_NO_ROOM, gunzipMembers } from '../native/inflate.js';

/** A gzip error as node:zlib's streams throw it: `code` names it (`Z_DATA_ERROR`, `Z_BUF_ERROR` for data cut short). */
export class GunzipError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Whether this Node's zlib can be driven this way (else a caller reads through a stream). */
export const gunzipsSync = zlibHandle(zlib.createGunzip()) !== undefined;

/**
 * The inflated bytes of the gzip file open at `fd` (from its start to its end), in chunks
 * each a view valid until the next is asked for. Members are inflated whole by the `inflate`
 * kernel (libdeflate) where it is built, else by node:zlib, which also takes over from the
 * kernel wherever it leaves a member (corrupt, cut short, a header CRC, larger than its buffers):
 * the bytes and the errors are node:zlib's. Throws a GunzipError for corrupt data, or data
 * that ends inside a member.
 */
export function* gunzipChunksSync(fd: number, chunkBytes = 1 << 20): Generator<Buffer> {
  if (gunzipMembers) yield* memberChunks(fd, chunkBytes, gunzipMembers);
  else yield* zlibChunks(fd, chunkBytes, 0, 0);
}

/**
 * Whole members inflated by the kernel, chunks of up to four times chunkBytes: the input is
 * read in chunkBytes (a record file's member is some 25 kB), and a member that does not fit
 * in the output room left is inflated again into the next chunk. A member larger than either
 * buffer is not held whole: node:zlib streams the rest of the file (a file of one large member,
 * as gzip writes one, costs a failed try on its first megabyte, not a buffer of its size).
 * Where the kernel stops, node:zlib goes on from the last member it inflated (inflating that
 * one again, its bytes not given twice), so that what follows is read as zlib's engine reads
 * it after a member: zero padding, garbage, a member cut short.
 */
function* memberChunks(fd: number, chunkBytes: number, inflate: NonNullable<typeof gunzipMembers>): Generator<Buffer> {
  const counts = new Uint32Array(4);
  const input = Buffer.allocUnsafeSlow(Math.max(chunkBytes, 4096));
  const out = Buffer.allocUnsafeSlow(Math.max(4 * chunkBytes, 1 << 16));
  let filePos = 0; // the file offset of input[0]
  let start = 0;
  let end = 0;
  let eof = false;
  let lastAt = -1; // the file offset of the last member inflated, and its bytes
  let lastMade = 0;
  let fill = true;
  for (;;) {
    if (fill && !eof) {
      // A member larger than the input held: zlib's.
      if (start === 0 && end === input.length) break;
      if (start > 0) {
        input.copy(input, 0, start, end);
        filePos += start;
        end -= start;
        start = 0;
      }
      while (end < input.length) {
        const n = readSync(fd, input, end, input.length - end, filePos + end);
        if (n === 0) {
          eof = true;
          break;
        }
        end += n;
      }
    }
    fill = false;
    if (start === end) {
      if (eof) {
        // The end, at a member's end; an empty file is zlib's to judge.
        if (lastAt >= 0) return;
        break;
      }
      fill = true;
      continue;
    }
    const why = inflate(input, start, end, out, counts);
    if (counts[0] > 0) {
      start += counts[0];
      lastAt = filePos + start - counts[2];
      lastMade = counts[3];
    }
    if (counts[1] > 0) yield out.subarray(0, counts[1]);
    if (why === GUNZIP_ALL_TAKEN) fill = true;
    else if (why === GUNZIP_NO_ROOM) {
      // A member larger than the output room: zlib's.
      if (counts[1] === 0) break;
    } else if (why === GUNZIP_NOT_INFLATED) {
      // Perhaps cut by the end of what is held: more is read, else it is zlib's.
      if (eof) break;
      fill = true;
    } else throw new Error(`gunzipMembers: unknown result ${why}`);
  }
  yield* zlibChunks(fd, chunkBytes, lastAt >= 0 ? lastAt : filePos + start, lastAt >= 0 ? lastMade : 0);
}

/**
 * node:zlib's inflate of the file from byte `from`, its first `skip` bytes of output left out:
 * one engine, driven as zlib.js's processChunkSync drives it, reads of chunkBytes.
 */
function* zlibChunks(fd: number, chunkBytes: number, from: number, skip: number): Generator<Buffer> {
  const stream = zlib.createGunzip();
  const h = zlibHandle(stream);
  if (!h) throw new Error('gunzipChunksSync: node:zlib has no handle to drive (check gunzipsSync first)');
  const { handle, state } = h;
  let error: GunzipError | undefined;
  handle.onerror = (message, errno) => {
    error = new GunzipError(message, zlibCode(errno));
  };
  const input = Buffer.allocUnsafeSlow(chunkBytes);
  const out = Buffer.allocUnsafeSlow(chunkBytes);
  let pos = from;
  try {
    for (;;) {
      const n = readSync(fd, input, 0, input.length, pos);
      pos += n;
      // The last call finishes: data that ends inside a member is an error there.
      const flush = n === 0 ? Z_FINISH : Z_NO_FLUSH;
      let inOff = 0;
      let availIn = n;
      for (;;) {
        handle.writeSync(flush, input, inOff, availIn, out, 0, out.length);
        if (error) throw error;
        const availOut = state[0];
        inOff += availIn - state[1];
        availIn = state[1];
        const made = out.length - availOut;
        let at = 0;
        if (skip > 0) {
          at = Math.min(skip, made);
          skip -= at;
        }
        if (made > at) yield out.subarray(at, made);
        // Room left over: the engine took all it could of this read.
        if (availOut !== 0) break;
      }
      if (n === 0) return;
    }
  } finally {
    handle.close();
  }
}
