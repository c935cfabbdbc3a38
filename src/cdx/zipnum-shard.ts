/**
 * Writes one shard of a ZipNum cluster: sorted CDX lines cut into blocks of N lines, each
 * block one gzip member appended to the part file, and for each block its summary entry
 * (first `urlkey timestamp`, offset, length). Reads a byte range of a plain file (shards of
 * one input written in parallel) or the whole of a gzipped one, as Buffers: the lines of a
 * block are the input's own bytes, never decoded. Checks the order as it goes.
 */
import { createReadStream, openSync, writeSync, closeSync, fsyncSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip, gzipSync } from 'node:zlib';
import { InputError, NwaxError } from '../util/errors.js';
import { cdxLineComplete, cdxLineProblem } from './cdx-reader.js';

export interface ShardTask {
  input: string;
  /** Byte range of a plain input [start, end); the whole file when gzip. */
  start: number;
  end: number;
  gzip: boolean;
  /** Line number of the first line of the range (for messages; 0 when unknown). */
  firstLine: number;
  out: string;
  linesPerBlock: number;
  level: number;
}

export interface ShardResult {
  /** One per block: first key (`urlkey timestamp`), offset, length in the part file. */
  blocks: [string, number, number][];
  lines: number;
  bytes: number;
  first?: string;
  last?: string;
}

const CDX11_LEGEND = ' CDX N b a m s k r M S V g';
const NL = 0x0a;
const NL_BUF = Buffer.from('\n');

async function* rangeChunks(path: string, start: number, end: number): AsyncGenerator<Buffer> {
  const fh = await open(path, 'r');
  try {
    for (let at = start; at < end; ) {
      const buf = Buffer.allocUnsafe(Math.min(4 << 20, end - at));
      const { bytesRead } = await fh.read(buf, 0, buf.length, at);
      if (bytesRead === 0) break;
      at += bytesRead;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}

function blockKey(line: Buffer): string {
  const s = line.toString('utf8', 0, Math.min(line.length, 8192));
  const a = s.indexOf(' ');
  const b = a < 0 ? -1 : s.indexOf(' ', a + 1);
  return b < 0 ? s : s.slice(0, b);
}

export async function writeShard(t: ShardTask): Promise<ShardResult> {
  const chunks = t.gzip ? (createReadStream(t.input).pipe(createGunzip()) as AsyncIterable<Buffer>) : rangeChunks(t.input, t.start, t.end);
  const fd = openSync(t.out, 'w');
  const res: ShardResult = { blocks: [], lines: 0, bytes: 0 };
  let parts: Buffer[] = [];
  let inBlock = 0;
  let firstOfBlock: Buffer | undefined;
  let prev: Buffer | undefined;
  let outAt = 0;
  let lineNo = t.firstLine;
  // Shards after the first start at a byte, not a known line number.
  const where = () => (t.start > 0 ? `${t.input}: line ${lineNo} after byte ${t.start}` : `${t.input}: line ${lineNo}`);
  const flush = () => {
    if (inBlock === 0) return;
    const gz = gzipSync(parts.length === 1 ? parts[0] : Buffer.concat(parts), { level: t.level });
    writeSync(fd, gz);
    res.blocks.push([blockKey(firstOfBlock!), outAt, gz.length]);
    outAt += gz.length;
    parts = [];
    inBlock = 0;
  };
  const take = (line: Buffer, last = false) => {
    lineNo++;
    let l = line;
    if (l.length && l[l.length - 1] === 0x0d) l = l.subarray(0, l.length - 1);
    if (l.length === 0 || l[0] === 0x21 /* ! */) return;
    if (l[0] === 0x20) {
      const legend = l.toString('utf8').trim().replace(/\s+/g, ' ');
      if (` ${legend}` !== CDX11_LEGEND)
        throw new InputError(
          `${where()}: legend "${legend}": a ZipNum cluster holds CDX11 or CDXJ lines (as pywb and OpenWayback read them); write CDX11 with nwax cdx --format cdx11`,
        );
      return;
    }
    // The first line tells a CDX from something else; the last, without its newline, may be cut.
    if (res.lines === 0 || last) {
      const text = l.toString('utf8');
      const problem = cdxLineProblem(text) ?? (last && !cdxLineComplete(text) ? 'the last line is cut short (the file ends inside it)' : undefined);
      if (problem) throw new NwaxError('NWAX_FORMAT', `${where()}: ${problem}`);
    }
    if (prev && Buffer.compare(prev, l) > 0) {
      throw new NwaxError('NWAX_FORMAT', `${where()}: not sorted (sorts before the line above it); sort with LC_ALL=C sort or nwax sort-cdx first`);
    }
    prev = l;
    res.first ??= l.toString('utf8');
    if (inBlock === 0) firstOfBlock = l;
    parts.push(l, NL_BUF);
    res.lines++;
    res.bytes += l.length + 1;
    if (++inBlock >= t.linesPerBlock) flush();
  };
  let carry: Buffer | undefined;
  try {
    for await (const raw of chunks) {
      const chunk = carry ? Buffer.concat([carry, raw]) : raw;
      let at = 0;
      for (let nl = chunk.indexOf(NL, at); nl >= 0; nl = chunk.indexOf(NL, at)) {
        take(chunk.subarray(at, nl));
        at = nl + 1;
      }
      carry = at < chunk.length ? Buffer.from(chunk.subarray(at)) : undefined;
    }
    if (carry) take(carry, true);
    flush();
    fsyncSync(fd);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'Z_DATA_ERROR' || e.code === 'Z_BUF_ERROR') throw new InputError(`${t.input}: after line ${lineNo}: corrupt or cut-short gzip data`);
    throw err;
  } finally {
    closeSync(fd);
  }
  if (prev) res.last = prev.toString('utf8');
  return res;
}
