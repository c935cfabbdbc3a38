/**
 * The decompressed bytes of an archive as a sequence of slices, each tagged with where it
 * sits in the file: for gzip, the member it came from (offset and, on a member's last
 * slice, its end); for plain files, the file offset of its first byte. Damage (a corrupt or
 * truncated gzip member, bytes that are not gzip) comes in the same sequence as an event, at
 * the place where it was found, so readers report it where it stands and go on after it.
 */
import zlib from 'node:zlib';
import type { ByteWindow } from './byte-window.js';
import { Inflater, type InflateResult } from './inflater.js';

export interface Slice {
  kind: 'data';
  data: Buffer;
  /** gzip: offset of the member; plain: file offset of data[0]. */
  offset: number;
  /** gzip: end offset of the member, on its last slice, else -1. plain: offset + data.length. */
  memberEnd: number;
  /** gzip: the first slice of a member. plain: always false. */
  memberStart: boolean;
}

export type DamageReason = 'gzip-corrupt' | 'gzip-truncated' | 'gzip-crc' | 'not-gzip' | 'read-error';

export interface DamageEvent {
  kind: 'damage';
  offset: number;
  reason: DamageReason;
  detail: string;
}

export type SliceEvent = Slice | DamageEvent;

export interface GzipOptions {
  /** Compressed bytes inflated in one synchronous call; longer members are streamed. */
  window: number;
  /** Largest output of one synchronous call; larger members are streamed. */
  maxBuffer: number;
  /** Check each member's CRC-32 and length trailer. */
  verifyCrc: boolean;
}

const STREAM_PIECE = 64 * 1024;
/** Below this many bytes buffered past a member's start, the window is topped up first. */
const MIN_AHEAD = 256 * 1024;

type InflateAttempt = InflateResult;

const MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);

/** One synchronous inflate of the deflate stream at the start of `body`. */
function inflateOnce(inflater: Inflater, body: Buffer, maxBuffer: number): InflateAttempt {
  // Size the output buffer from a hint: where the next gzip magic is, the 4 bytes before it
  // are this member's ISIZE (its exact uncompressed size) if the magic is really the next
  // member. A wrong hint only costs a concat or some slack, never a wrong result.
  const nextMagic = body.indexOf(MAGIC, 8);
  const isize = nextMagic >= 12 ? body.readUInt32LE(nextMagic - 4) : 0;
  const hint = isize > 0 && isize <= maxBuffer ? isize : nextMagic > 0 ? nextMagic * 4 + 512 : Math.min(body.length * 4, 1 << 20);
  return inflater.inflate(body, Math.min(1 << 20, Math.max(1024, hint)), maxBuffer);
}

/** A plain (uncompressed) file's bytes as slices, straight from the window (from `start`). */
export async function* plainSlices(win: ByteWindow, start = 0): AsyncGenerator<SliceEvent> {
  let pos = start;
  for (;;) {
    const have = await win.fill(pos, 1 << 20);
    if (have === 0) return;
    const data = win.view(pos, have);
    yield { kind: 'data', data, offset: pos, memberEnd: pos + have, memberStart: false };
    pos += have;
    win.release(pos);
  }
}

/** Length of the gzip header at `pos` (RFC 1952), 0 if it is not a plausible one, -1 if cut short. */
async function gzipHeaderLength(win: ByteWindow, pos: number): Promise<number> {
  const have = await win.fill(pos, 10);
  if (have < 10) return -1;
  const h = win.view(pos, 10);
  if (h[0] !== 0x1f || h[1] !== 0x8b || h[2] !== 8) return 0;
  const flg = h[3];
  if (flg & 0xe0) return 0; // reserved bits must be zero
  let len = 10;
  if (flg & 0x04) {
    if ((await win.fill(pos + len, 2)) < 2) return -1;
    const x = win.view(pos + len, 2);
    len += 2 + (x[0] | (x[1] << 8));
  }
  for (const bit of [0x08, 0x10]) {
    if (flg & bit) {
      const z = await win.find(Buffer.from([0]), pos + len, 1 << 16);
      if (z < 0) return -1;
      len = z - pos + 1;
    }
  }
  if (flg & 0x02) len += 2;
  if ((await win.fill(pos, len)) < len) return -1;
  return len;
}

/** A window over the same bytes from `pos` on, where the source can be read again. */
export type Reopen = (pos: number) => ByteWindow | undefined;

export async function* gzipSlices(first: ByteWindow, opts: GzipOptions, reopen?: Reopen): AsyncGenerator<SliceEvent> {
  let win = first;
  let pos = 0;
  const inflater = new Inflater();
  // After damage, candidate members that fail are passed over quietly until one inflates.
  let resyncing = false;
  const damage = (offset: number, reason: DamageReason, detail: string): DamageEvent => {
    resyncing = true;
    return { kind: 'damage', offset, reason, detail };
  };
  /** Goes on at the next gzip magic after `from`; false at the end of the file. */
  const nextMagic = async (from: number): Promise<boolean> => {
    const next = await win.find(MAGIC, from, Number.MAX_SAFE_INTEGER, true);
    if (next < 0) return false;
    pos = next;
    return true;
  };
  for (;;) {
    win.release(pos);
    if ((await win.fill(pos, 1)) === 0) return;
    const hdr = await gzipHeaderLength(win, pos);
    if (hdr <= 0) {
      const zeroHere = win.view(pos, 1)[0] === 0;
      const gap = await scanToMagic(win, pos + 1);
      if (!resyncing) {
        if (hdr < 0 && gap.next < 0) yield damage(pos, 'gzip-truncated', `gzip header cut short (${gap.end - pos} bytes at end of file)`);
        else if (!gap.zeros || !zeroHere) yield damage(pos, 'not-gzip', `${gap.end - pos} bytes that are not a gzip member`);
      }
      if (gap.next < 0) return;
      pos = gap.next;
      continue;
    }
    // Inflate from what is buffered already; top up only when little is left, and go to the
    // whole window only for a member that turns out longer (copying the window is not free).
    let avail = win.end - pos;
    if (avail < hdr + MIN_AHEAD && !win.eof) avail = await win.fill(pos, hdr + Math.min(opts.window, 1 << 20));
    let attempt = inflateOnce(inflater, win.view(pos + hdr, avail - hdr), opts.maxBuffer);
    if (attempt.code === 'Z_BUF_ERROR' && !win.eof && avail < hdr + opts.window) {
      avail = await win.fill(pos, hdr + opts.window);
      attempt = inflateOnce(inflater, win.view(pos + hdr, avail - hdr), opts.maxBuffer);
    }
    const code = attempt.code;
    const windowLimited = avail === hdr + opts.window;
    if (!attempt.out && (code === 'ERR_BUFFER_TOO_LARGE' || (code === 'Z_BUF_ERROR' && windowLimited))) {
      // Larger than one synchronous call: streamed, CRC-checked as it goes.
      const result = yield* streamMember(win, pos, hdr, opts.verifyCrc);
      if (!result.damage) {
        pos = result.end;
        resyncing = false;
        continue;
      }
      if (!resyncing) yield damage(pos, result.damage.reason, result.damage.detail);
      // A member cut short may be followed by good ones that its inflating ran over: go back
      // to the first place inside it where a member could start, reading the file again.
      const back = result.candidates.find((c) => c > pos);
      if (back !== undefined && back < win.start) {
        const again = reopen?.(back);
        if (again) {
          win = again;
          pos = back;
          continue;
        }
      }
      if (back !== undefined && back >= win.start) pos = back;
      else if (!(await nextMagic(Math.max(pos + 1, win.start)))) return;
      continue;
    }
    if (!attempt.out) {
      if (!resyncing) {
        yield code === 'Z_BUF_ERROR'
          ? damage(pos, 'gzip-truncated', `gzip member cut short at end of file (${avail} bytes)`)
          : damage(pos, 'gzip-corrupt', `corrupt gzip member (${attempt.message})`);
      }
      if (!(await nextMagic(pos + 1))) return;
      continue;
    }
    const out = attempt.out;
    const trailerAt = pos + hdr + attempt.consumed;
    if ((await win.fill(trailerAt, 8)) < 8) {
      if (!resyncing) yield damage(pos, 'gzip-truncated', 'gzip member cut short before its trailer');
      if (!(await nextMagic(pos + 1))) return;
      continue;
    }
    if (opts.verifyCrc && !trailerMatches(win.view(trailerAt, 8), zlib.crc32(out), out.length)) {
      if (!resyncing) yield damage(pos, 'gzip-crc', 'gzip member fails its CRC-32/length check');
      // A member whose inflating ran into the next ones ends in the wrong place: look again
      // from just after its start.
      if (!(await nextMagic(pos + 1))) return;
      continue;
    }
    resyncing = false;
    const end = trailerAt + 8;
    if (out.length > 0) yield { kind: 'data', data: out, offset: pos, memberEnd: end, memberStart: true };
    pos = end;
  }
}

function trailerMatches(trailer: Buffer, crc: number, size: number): boolean {
  return trailer.readUInt32LE(0) === crc >>> 0 && trailer.readUInt32LE(4) === size >>> 0;
}

/**
 * From `from`, finds the next gzip magic, dropping what it has passed (a stretch of garbage
 * is never held whole); tells whether everything passed was zero bytes (padding).
 */
async function scanToMagic(win: ByteWindow, from: number): Promise<{ next: number; end: number; zeros: boolean }> {
  let zeros = true;
  let at = from;
  for (;;) {
    const have = await win.fill(at, 1 << 20);
    if (have === 0) return { next: -1, end: win.end, zeros };
    const v = win.view(at, have);
    const i = v.indexOf(MAGIC);
    const stop = i < 0 ? Math.max(0, have - (MAGIC.length - 1)) : i;
    if (zeros)
      for (let k = 0; k < stop; k++)
        if (v[k] !== 0) {
          zeros = false;
          break;
        }
    if (i >= 0) return { next: at + i, end: at + i, zeros };
    if (have < MAGIC.length) {
      if (zeros) for (let k = 0; k < have; k++) if (v[k] !== 0) zeros = false;
      if (win.eof && win.end <= at + have) return { next: -1, end: at + have, zeros };
    }
    at += stop;
    win.release(at);
    if (stop === 0 && win.eof) return { next: -1, end: win.end, zeros };
  }
}

interface StreamResult {
  end: number;
  damage?: { reason: DamageReason; detail: string };
  /** Offsets inside the member's compressed bytes where another member could start. */
  candidates: number[];
}

/** How many places inside one damaged member are remembered as possible member starts. */
const MAX_CANDIDATES = 4096;

/**
 * Inflates one large member piece by piece, yielding its output as it comes, with its CRC-32
 * and length checked against the trailer before its last slice is given out (so a reader
 * learns of damage before it takes the member's record as whole).
 */
async function* streamMember(win: ByteWindow, pos: number, hdr: number, verifyCrc: boolean): AsyncGenerator<SliceEvent, StreamResult> {
  const inf = zlib.createInflateRaw({ chunkSize: 256 * 1024 });
  const out: Buffer[] = [];
  let ended = false;
  let error: Error | undefined;
  let crc = 0;
  let size = 0;
  const candidates: number[] = [];
  inf.on('data', (d: Buffer) => {
    out.push(d);
    if (verifyCrc) crc = zlib.crc32(d, crc);
    size += d.length;
  });
  inf.on('end', () => (ended = true));
  inf.on('error', (e) => (error = e));
  // Settles when zlib has taken the piece, or has failed on it (then the callback never comes).
  const write = (piece: Buffer) =>
    new Promise<void>((resolve) => {
      const done = () => {
        inf.off('error', done);
        resolve();
      };
      inf.once('error', done);
      inf.write(piece, done);
    });
  let p = pos + hdr;
  let first = true;
  const slice = (data: Buffer, memberEnd: number): Slice => {
    const s: Slice = { kind: 'data', data, offset: pos, memberEnd, memberStart: first };
    first = false;
    return s;
  };
  const fail = (reason: DamageReason, detail: string): StreamResult => {
    inf.destroy();
    return { end: p, damage: { reason, detail }, candidates };
  };
  while (!ended && !error) {
    const have = await win.fill(p, STREAM_PIECE);
    if (have === 0) break;
    // Include the two bytes before the piece: a magic may straddle two pieces.
    const look = Math.max(pos + hdr, p - 2);
    const scan = win.view(look, p + have - look);
    for (let i = scan.indexOf(MAGIC); i >= 0 && candidates.length < MAX_CANDIDATES; i = scan.indexOf(MAGIC, i + 1)) {
      if (look + i > pos && (candidates.length === 0 || candidates[candidates.length - 1] < look + i)) candidates.push(look + i);
    }
    await write(win.view(p, have));
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Keep the piece just fed: the member's trailer starts inside it or after it.
    win.release(look);
    p += have;
    // Hold back the newest output so the member's last slice can carry its end offset.
    while (out.length > 1) yield slice(out.shift()!, -1);
  }
  if (!ended && !error) {
    inf.end();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (error) return fail('gzip-corrupt', `corrupt gzip member (${error.message})`);
  if (!ended) return fail('gzip-truncated', 'gzip member cut short at end of file');
  const end = pos + hdr + inf.bytesWritten + 8;
  if ((await win.fill(end - 8, 8)) < 8) return fail('gzip-truncated', 'gzip member cut short before its trailer');
  if (verifyCrc && !trailerMatches(win.view(end - 8, 8), crc, size)) {
    return fail('gzip-crc', `gzip member fails its CRC-32/length check (${size} bytes inflated)`);
  }
  while (out.length > 0) {
    const data = out.shift()!;
    yield slice(data, out.length === 0 ? end : -1);
  }
  return { end, candidates };
}
