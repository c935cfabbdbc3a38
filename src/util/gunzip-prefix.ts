/**
 * The head of a gzip member: inflated a step at a time, until the caller has what it wants (a
 * lookup by key wants its line, on average half of a block) or the member ends, and on from
 * there when it wants more. One engine serves every member, reset between them
 * (zlib-handle.ts), where zlib's *Sync functions build one per call; a Node without the handle
 * inflates whole.
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

/** Inflates since the engine was last reset: a prefix made before another began cannot go on. */
let generation = 0;

/** Every prefix made so far stops being live (a caller about to overwrite the input they read). */
export function retirePrefixes(): void {
  generation++;
}

/**
 * A member inflated from its start as far as a caller wants, and further on a later call where
 * nothing else inflated meanwhile (`live`): a lookup that wants more of the same text (a snippet
 * not in a page's first 8 kB) goes on from where it stopped, not from the block's start.
 */
export class GunzipPrefix {
  private readonly generation: number;
  private out: Buffer;
  private length = 0;
  private inOff = 0;
  private availIn: number;
  /** The member is inflated to its end. */
  ended = false;

  constructor(
    private readonly member: Buffer,
    private readonly step = 16 << 10,
  ) {
    this.availIn = member.length;
    const e = theEngine();
    if (!e) {
      // No handle to drive: inflated whole, once (and never stale: it holds its own bytes).
      this.out = zlib.gunzipSync(member);
      this.length = this.out.length;
      this.ended = true;
      this.generation = -1;
      return;
    }
    e.handle.reset();
    e.error = undefined;
    this.generation = ++generation;
    this.out = scratch;
  }

  /** Whether it can go on: no other prefix has begun since (they share the engine and its buffer). */
  get live(): boolean {
    return this.generation < 0 || this.generation === generation;
  }

  /** What is inflated so far, **valid while live**. */
  get bytes(): Buffer {
    return this.out.subarray(0, this.length);
  }

  /**
   * Inflates on until `enough(bytes, length)` is true of the first `length` bytes inflated or the
   * member ends; returns those bytes, valid while live. Throws a GunzipError for corrupt data.
   */
  until(enough: (bytes: Buffer, length: number) => boolean): Buffer {
    if (!this.live) throw new Error('gunzip prefix: another inflate began since (check live)');
    const e = theEngine()!;
    while (!this.ended) {
      if (this.out.length - this.length < this.step) {
        const bigger = Buffer.allocUnsafeSlow(this.out.length * 2);
        this.out.copy(bigger, 0, 0, this.length);
        // Kept up to 16 MB (a page's text is at most nwax.import.content.limit, 1M characters by default).
        if (bigger.length <= 16 << 20) scratch = bigger;
        this.out = bigger;
      }
      e.handle.writeSync(Z_FINISH, this.member, this.inOff, this.availIn, this.out, this.length, this.step);
      if (e.error) throw e.error;
      const made = this.step - e.state[0];
      this.inOff += this.availIn - e.state[1];
      this.availIn = e.state[1];
      this.length += made;
      // Output room left over, or nothing more made of no more input: the member ended (Z_FINISH
      // inflates all it can into the room given; one cut short is zlib's error, above).
      if (e.state[0] !== 0 || (made === 0 && this.availIn === 0)) this.ended = true;
      else if (enough(this.out, this.length)) break;
    }
    return this.bytes;
  }
}
