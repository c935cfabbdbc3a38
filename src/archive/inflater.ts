/**
 * Inflates one raw-deflate stream (a gzip member's body) synchronously into a buffer of a
 * given size, reporting how much input it used. zlib.inflateRawSync builds a new engine (a
 * native handle, its window, JS state) per call: for an archive of 40,000 small members that
 * setup and its garbage cost as much as a third of the inflating. Here one engine is reused,
 * reset between members, driving the handle the way zlib.js's own processChunkSync does. The
 * handle is internal API, so it is feature-detected, falls back to inflateRawSync, and an
 * engine that reported an error is thrown away rather than reused.
 */
import zlib from 'node:zlib';
import { Z_FINISH, zlibCode, zlibHandle, type ZlibHandle } from '../util/zlib-handle.js';

export interface InflateResult {
  out?: Buffer;
  /** Compressed bytes used by the stream. */
  consumed: number;
  /** zlib error code (`Z_DATA_ERROR`, `Z_BUF_ERROR` for input that ends early) or ERR_BUFFER_TOO_LARGE. */
  code?: string;
  message?: string;
}

export class Inflater {
  private handle: ZlibHandle | undefined;
  private state: Uint32Array | undefined;
  private error: { message: string; errno: number } | undefined;
  private readonly usable: boolean;

  constructor() {
    this.usable = this.make();
  }

  private make(): boolean {
    const h = zlibHandle(zlib.createInflateRaw());
    if (!h) return false;
    h.handle.onerror = (message, errno) => {
      this.error = { message, errno };
    };
    this.handle = h.handle;
    this.state = h.state;
    return true;
  }

  /** Inflates the deflate stream at the start of `input`; `size` is the expected output size. */
  inflate(input: Buffer, size: number, maxOutput: number): InflateResult {
    if (!this.usable) return fallback(input, size, maxOutput);
    const handle = this.handle!;
    const state = this.state!;
    // One byte of slack: an exact size hint then ends the stream without another round.
    let out = Buffer.allocUnsafe(Math.max(64, Math.min(size, maxOutput) + 1));
    let outOff = 0;
    let inOff = 0;
    let availIn = input.length;
    const parts: Buffer[] = [];
    let total = 0;
    this.error = undefined;
    for (;;) {
      const availOut = out.length - outOff;
      handle.writeSync(Z_FINISH, input, inOff, availIn, out, outOff, availOut);
      // Set by the handle's onerror callback during writeSync.
      const e = this.error as { message: string; errno: number } | undefined;
      if (e) {
        this.replace();
        return { consumed: 0, code: zlibCode(e.errno), message: e.message };
      }
      const availOutAfter = state[0];
      const availInAfter = state[1];
      const have = availOut - availOutAfter;
      outOff += have;
      total += have;
      inOff += availIn - availInAfter;
      availIn = availInAfter;
      if (total > maxOutput) {
        this.replace();
        return { consumed: 0, code: 'ERR_BUFFER_TOO_LARGE', message: `more than ${maxOutput} bytes` };
      }
      if (availOutAfter !== 0) break; // the stream ended (or wants input it will not get: an error above)
      // Output full: keep it and go on into a new buffer.
      parts.push(out);
      out = Buffer.allocUnsafe(Math.min(Math.max(out.length, 64 * 1024), 1 << 20));
      outOff = 0;
    }
    handle.reset();
    const last = out.subarray(0, outOff);
    const result = parts.length === 0 ? last : Buffer.concat([...parts, last], total);
    return { out: result, consumed: inOff };
  }

  /** After an error the engine is not trusted again. */
  private replace(): void {
    try {
      this.handle?.close();
    } catch {
      /* already closed */
    }
    this.make();
  }
}

function fallback(input: Buffer, size: number, maxOutput: number): InflateResult {
  try {
    const r = zlib.inflateRawSync(input, { info: true, maxOutputLength: maxOutput, chunkSize: Math.min(1 << 20, Math.max(1024, size)) }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    return { out: r.buffer, consumed: r.engine.bytesWritten };
  } catch (err) {
    return { consumed: 0, code: (err as NodeJS.ErrnoException).code, message: (err as Error).message };
  }
}
