/**
 * A gzip file's inflated bytes, read and inflated on the calling thread: a task thread that
 * reads a dataset's part through a zlib stream hands every megabyte to libuv's thread pool and
 * waits for it (the index's map threads idled a quarter of their time so). One engine, driven
 * as zlib.js's processChunkSync drives it; node:zlib's native side goes on into the next gzip
 * member by itself, as its streams do, so a record file's thousands of members read as one.
 */
import { readSync } from 'node:fs';
import zlib from 'node:zlib';
import { Z_FINISH, Z_NO_FLUSH, zlibCode, zlibHandle } from './zlib-handle.js';

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
 * The inflated bytes of the gzip data read from `fd` (from its current position to its end),
 * in chunks of at most `chunkBytes`: each a view valid until the next is asked for. Throws a
 * GunzipError for corrupt data, or data that ends inside a member.
 */
export function* gunzipChunksSync(fd: number, chunkBytes = 1 << 20): Generator<Buffer> {
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
  try {
    for (;;) {
      const n = readSync(fd, input, 0, input.length, null);
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
        if (availOut < out.length) yield out.subarray(0, out.length - availOut);
        // Room left over: the engine took all it could of this read.
        if (availOut !== 0) break;
      }
      if (n === 0) return;
    }
  } finally {
    handle.close();
  }
}
