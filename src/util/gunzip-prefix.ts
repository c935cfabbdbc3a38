/**
 * The head of a gzip member: inflated a step at a time, until the caller has what it wants (a
 * lookup by key wants its line, on average half of a block) or the member ends. One engine
 * serves every call, reset between them (zlib-handle.ts), where zlib's *Sync functions build one
 * per call; a Node without the handle inflates whole.
 */
import zlib from 'node:zlib';
import { Z_FINISH, zlibCode, zlibHandle, type ZlibHandle } from './zlib-handle.js';
import { GunzipError } from './gunzip-sync.js';

interface Engine {
  handle: ZlibHandle;
  state: Uint32Array;
  error?: GunzipError;
}

/** The engine, made at the first call; null where node:zlib has no handle to drive. */
let engine: Engine | null | undefined;

function theEngine(): Engine | null {
  if (engine !== undefined) return engine;
  const h = zlibHandle(zlib.createGunzip());
  if (!h) return (engine = null);
  const e: Engine = { ...h };
  h.handle.onerror = (message, errno) => {
    e.error = new GunzipError(message, zlibCode(errno));
  };
  return (engine = e);
}

/** Where every call inflates: kept between calls (a lookup's block, hundreds of kilobytes, is garbage the moment it is read). */
let scratch = Buffer.allocUnsafeSlow(256 << 10);

/**
 * Inflates `member` until `enough(bytes, length)` is true of the first `length` bytes inflated
 * or the member ends; returns those bytes, **valid until the next call** (one buffer serves
 * every call). Throws a GunzipError for corrupt data.
 */
export function gunzipPrefixSync(member: Buffer, enough: (bytes: Buffer, length: number) => boolean, step = 16 << 10): Buffer {
  const e = theEngine();
  if (!e) return zlib.gunzipSync(member);
  e.handle.reset();
  e.error = undefined;
  let out = scratch;
  let length = 0;
  let inOff = 0;
  let availIn = member.length;
  for (;;) {
    if (out.length - length < step) {
      const bigger = Buffer.allocUnsafeSlow(out.length * 2);
      out.copy(bigger, 0, 0, length);
      // Kept up to 16 MB (a page's text is at most nwax.import.content.limit, 1M characters by default).
      if (bigger.length <= 16 << 20) scratch = bigger;
      out = bigger;
    }
    e.handle.writeSync(Z_FINISH, member, inOff, availIn, out, length, step);
    if (e.error) throw e.error;
    const made = step - e.state[0];
    inOff += availIn - e.state[1];
    availIn = e.state[1];
    length += made;
    // Output room left over, or nothing more made of no more input: the member ended (Z_FINISH
    // inflates all it can into the room given; one cut short is zlib's error, above).
    if (e.state[0] !== 0 || (made === 0 && availIn === 0) || enough(out, length)) return out.subarray(0, length);
  }
}
