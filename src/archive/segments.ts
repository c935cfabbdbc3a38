/**
 * The decompressed bytes of an archive as a sequence of segments, each tagged with where it
 * sits in the file: for gzip, the member it came from (offset and, on a member's last
 * segment, its end); for plain files, the file offset of its first byte. Damage (a corrupt or
 * truncated gzip member, bytes that are not gzip) comes in the same sequence as an event, at
 * the place where it was found, so readers report it where it stands and go on after it.
 */
import zlib from 'node:zlib';
import { ByteWindow } from './byte-window.js';
import { Inflater, type InflateResult } from './inflater.js';

export interface Segment {
  kind: 'data';
  data: Buffer;
  /** gzip: offset of the member; plain: file offset of data[0]. */
  offset: number;
  /** gzip: end offset of the member, on its last segment, else -1. plain: offset + data.length. */
  memberEnd: number;
  /** gzip: the first segment of a member. plain: always false. */
  memberStart: boolean;
}

export type DamageReason = 'gzip-corrupt' | 'gzip-truncated' | 'gzip-crc' | 'not-gzip' | 'read-error';

export interface DamageEvent {
  kind: 'damage';
  offset: number;
  reason: DamageReason;
  detail: string;
}

export type SegmentEvent = Segment | DamageEvent;

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

/** A plain (uncompressed) file's bytes as segments, straight from the window. */
export async function* plainSegments(win: ByteWindow): AsyncGenerator<SegmentEvent> {
  let pos = 0;
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

export async function* gzipSegments(win: ByteWindow, opts: GzipOptions): AsyncGenerator<SegmentEvent> {
  let pos = 0;
  const inflater = new Inflater();
  // After damage, candidate members that fail are passed over quietly until one inflates.
  let resyncing = false;
  const damage = (offset: number, reason: DamageReason, detail: string): DamageEvent => {
    resyncing = true;
    return { kind: 'damage', offset, reason, detail };
  };
  for (;;) {
    win.release(pos);
    if ((await win.fill(pos, 1)) === 0) return;
    const hdr = await gzipHeaderLength(win, pos);
    if (hdr <= 0) {
      const next = await win.find(MAGIC, pos + 1, Number.MAX_SAFE_INTEGER);
      const end = next < 0 ? win.end : next;
      if (!resyncing) {
        if (hdr < 0 && next < 0) yield damage(pos, 'gzip-truncated', `gzip header cut short (${end - pos} bytes at end of file)`);
        else if (!isZeroPadding(win, pos, end)) yield damage(pos, 'not-gzip', `${end - pos} bytes that are not a gzip member`);
      }
      if (next < 0) return;
      pos = next;
      continue;
    }
    // Inflate from what is buffered already; top up only when little is left, and go to the
    // whole window only for a member that turns out longer (copying the window is not free).
    let avail = win.end - pos;
    if (avail < hdr + MIN_AHEAD && !win.eof) avail = await win.fill(pos, hdr + Math.min(opts.window, 1 << 20));
    let out: Buffer | undefined;
    let consumed = 0;
    let stream = false;
    let attempt = inflateOnce(inflater, win.view(pos + hdr, avail - hdr), opts.maxBuffer);
    if (attempt.code === 'Z_BUF_ERROR' && !win.eof && avail < hdr + opts.window) {
      avail = await win.fill(pos, hdr + opts.window);
      attempt = inflateOnce(inflater, win.view(pos + hdr, avail - hdr), opts.maxBuffer);
    }
    if (attempt.out) {
      out = attempt.out;
      consumed = attempt.consumed;
    } else {
      const code = attempt.code;
      const windowLimited = avail === hdr + opts.window;
      if (code === 'ERR_BUFFER_TOO_LARGE' || (code === 'Z_BUF_ERROR' && windowLimited)) {
        stream = true;
      } else if (code === 'Z_BUF_ERROR') {
        if (!resyncing) yield damage(pos, 'gzip-truncated', `gzip member cut short at end of file (${avail} bytes)`);
        const next = await win.find(MAGIC, pos + 1, Number.MAX_SAFE_INTEGER);
        if (next < 0) return;
        pos = next;
        continue;
      } else {
        if (!resyncing) yield damage(pos, 'gzip-corrupt', `corrupt gzip member (${attempt.message})`);
        const next = await win.find(MAGIC, pos + 1, Number.MAX_SAFE_INTEGER);
        if (next < 0) return;
        pos = next;
        continue;
      }
    }
    if (stream) {
      const result = yield* streamMember(win, pos, hdr);
      if (result.damage) {
        if (!resyncing) yield damage(pos, result.damage.reason, result.damage.detail);
        const next = await win.find(MAGIC, Math.max(pos + 1, win.start), Number.MAX_SAFE_INTEGER);
        if (next < 0) return;
        pos = next;
        continue;
      }
      pos = result.end;
      resyncing = false;
      continue;
    }
    const trailerAt = pos + hdr + consumed;
    if ((await win.fill(trailerAt, 8)) < 8) {
      if (!resyncing) yield damage(pos, 'gzip-truncated', 'gzip member cut short before its trailer');
      return;
    }
    if (opts.verifyCrc) {
      const t = win.view(trailerAt, 8);
      if (t.readUInt32LE(0) !== zlib.crc32(out!) >>> 0 || t.readUInt32LE(4) !== (out!.length >>> 0)) {
        if (!resyncing) yield damage(pos, 'gzip-crc', 'gzip member fails its CRC-32/length check');
        pos = trailerAt + 8;
        continue;
      }
    }
    resyncing = false;
    const end = trailerAt + 8;
    if (out!.length > 0) yield { kind: 'data', data: out!, offset: pos, memberEnd: end, memberStart: true };
    pos = end;
  }
}

function isZeroPadding(win: ByteWindow, from: number, to: number): boolean {
  const v = win.view(from, to - from);
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return v.length === to - from;
}

interface StreamResult {
  end: number;
  damage?: { reason: DamageReason; detail: string };
}

/** Inflates one large member piece by piece, yielding its output as it comes. */
async function* streamMember(win: ByteWindow, pos: number, hdr: number): AsyncGenerator<SegmentEvent, StreamResult> {
  const inf = zlib.createInflateRaw({ chunkSize: 256 * 1024 });
  const out: Buffer[] = [];
  let ended = false;
  let error: Error | undefined;
  inf.on('data', (d: Buffer) => out.push(d));
  inf.on('end', () => (ended = true));
  inf.on('error', (e) => (error = e));
  let p = pos + hdr;
  let first = true;
  const segment = (data: Buffer, memberEnd: number): Segment => {
    const s: Segment = { kind: 'data', data, offset: pos, memberEnd, memberStart: first };
    first = false;
    return s;
  };
  while (!ended && !error) {
    const have = await win.fill(p, STREAM_PIECE);
    if (have === 0) break;
    const piece = win.view(p, have);
    await new Promise<void>((resolve) => inf.write(piece, () => resolve()));
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Keep the piece just fed: the member's trailer starts inside it or after it.
    win.release(p);
    p += have;
    // Hold back the newest output so the member's last segment can carry its end offset.
    while (out.length > 1) yield segment(out.shift()!, -1);
  }
  if (!ended && !error) {
    inf.end();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (error) return { end: p, damage: { reason: 'gzip-corrupt', detail: `corrupt gzip member (${error.message})` } };
  if (!ended) return { end: p, damage: { reason: 'gzip-truncated', detail: 'gzip member cut short at end of file' } };
  const end = pos + hdr + inf.bytesWritten + 8;
  if ((await win.fill(end - 8, 8)) < 8) {
    return { end, damage: { reason: 'gzip-truncated', detail: 'gzip member cut short before its trailer' } };
  }
  while (out.length > 0) {
    const data = out.shift()!;
    yield segment(data, out.length === 0 ? end : -1);
  }
  return { end };
}
