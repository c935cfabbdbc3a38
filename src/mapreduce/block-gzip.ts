/**
 * gzip members of record file blocks from one reused engine per level: zlib.gzipSync builds a
 * new engine per call (a native handle with its window and hash tables, a JS stream object,
 * output buffers), and a record file is thousands of 64 KiB blocks (the bench corpus's
 * segment: 5,000). Besides the setup, that garbage is mostly outside V8's heap, and a reduce
 * that makes little garbage of its own (the import's, over bytes) let it pile up: the RSS of
 * a 55-archive import's reduce grew by 360 MB. The engine is reset between members, which
 * zlib defines to give the output of a fresh one, header included, so the members are
 * gzipSync's bytes (test/record-file.test.ts). Driven as inflater.ts drives its engine: the
 * handle is internal API, feature-detected, with gzipSync as the fallback.
 */
import zlib from 'node:zlib';
import { Z_FINISH, zlibHandle, type ZlibHandle } from '../util/zlib-handle.js';

class BlockGzip {
  private handle: ZlibHandle | undefined;
  private state: Uint32Array | undefined;
  private failed = false;
  /** The output buffer, reused: a member is read out of it before the next is made. */
  private out = Buffer.allocUnsafeSlow(128 * 1024);

  constructor(private readonly level: number) {
    const h = zlibHandle(zlib.createGzip({ level }));
    if (!h) return;
    h.handle.onerror = () => {
      this.failed = true;
    };
    this.handle = h.handle;
    this.state = h.state;
  }

  /** The gzip member of `input`: a view valid until the next call. */
  gzip(input: Buffer): Buffer {
    if (!this.handle || this.failed) return zlib.gzipSync(input, { level: this.level });
    const handle = this.handle;
    // deflate's bound for stored blocks, and a gzip header and trailer.
    const bound = input.length + (input.length >> 12) + (input.length >> 14) + 64;
    if (this.out.length < bound) this.out = Buffer.allocUnsafeSlow(bound);
    handle.writeSync(Z_FINISH, input, 0, input.length, this.out, 0, this.out.length);
    const availOut = this.state![0];
    const availIn = this.state![1];
    if (this.failed || availIn !== 0 || availOut === 0) {
      // Not finished in one call (it always is, with the bound): made again the usual way.
      this.failed = true;
      handle.close();
      return zlib.gzipSync(input, { level: this.level });
    }
    handle.reset();
    return this.out.subarray(0, this.out.length - availOut);
  }
}

/** This thread's engines, by level (a task thread's record files are written one block at a time). */
const engines = new Map<number, BlockGzip>();

/** The gzip member of `input` at `level`, as zlib.gzipSync gives it: a view valid until the next call. */
export function gzipBlock(input: Buffer, level: number): Buffer {
  let e = engines.get(level);
  if (!e) engines.set(level, (e = new BlockGzip(level)));
  return e.gzip(input);
}
