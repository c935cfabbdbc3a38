/**
 * FTS5's structure record (the %_data row of id 10): which segments the index holds, on which
 * levels, and their leaves; read and written here as SQLite's fts5_index.c reads and writes it
 * (fts5StructureDecode, fts5StructureWrite). The fts kernel writes segments, and its loader
 * (fts-load.ts) must say where they are: after the segments FTS5 already merged, if any.
 *
 * Layout: the configuration cookie (4 bytes, big-endian), then varints: levels, segments, the
 * write counter; per level its segments under merge and its segments; per segment its id,
 * first and last leaf. FTS5 refuses a record of more than 2000 segments (FTS5_MAX_SEGMENT) as
 * corrupt. The second form (SQLite 3.45, a marker after the cookie) is written only for
 * contentless-delete tables, which the index's table is not: it is refused here.
 */
import { NwaxError } from '../util/errors.js';

/** The most segments a structure record may hold, and the largest segment id (FTS5_MAX_SEGMENT). */
export const FTS5_MAX_SEGMENT = 2000;

export interface Fts5Segment {
  segid: number;
  firstLeaf: number;
  lastLeaf: number;
}

export interface Fts5Level {
  /** Segments of the level being merged (0: none). */
  merging: number;
  segments: Fts5Segment[];
}

export interface Fts5Structure {
  cookie: number;
  writeCounter: number;
  levels: Fts5Level[];
}

/** SQLite's varint (big-endian groups of 7 bits; values here stay below 2^53). */
function readVarint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const c = b[at + i];
    if (c === undefined) throw new RangeError('structure record cut short');
    v = v * 128 + (c & 0x7f);
    if (c < 0x80) return [v, at + i + 1];
  }
  const c = b[at + 8];
  if (c === undefined) throw new RangeError('structure record cut short');
  return [v * 256 + c, at + 9];
}

function putVarint(out: number[], v: number): void {
  if (!Number.isSafeInteger(v) || v < 0 || v >= 2 ** 49) throw new RangeError(`FTS5 structure: ${v} is not a varint this writer takes`);
  const groups: number[] = [];
  do {
    groups.unshift(v % 128);
    v = Math.floor(v / 128);
  } while (v > 0);
  for (let i = 0; i < groups.length; i++) out.push(i < groups.length - 1 ? groups[i] | 0x80 : groups[i]);
}

/** A structure record's content; a clear error naming `where` for one FTS5 would call corrupt. */
export function readStructure(b: Uint8Array, where: string): Fts5Structure {
  const bad = (why: string) => new NwaxError('NWAX_FORMAT', `${where}: FTS5 structure record: ${why}`);
  if (b.length < 4) throw bad('shorter than its cookie');
  const cookie = ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
  if (b.length >= 8 && b[4] === 0xff && b[5] === 0 && b[6] === 0 && b[7] === 1) throw bad('the contentless-delete form, which an nwax index does not use');
  try {
    let at = 4;
    const next = (): number => {
      const [v, after] = readVarint(b, at);
      at = after;
      return v;
    };
    const nLevel = next();
    const nSegment = next();
    const writeCounter = next();
    if (nLevel > FTS5_MAX_SEGMENT || nSegment > FTS5_MAX_SEGMENT) throw bad(`${nLevel} levels, ${nSegment} segments`);
    const levels: Fts5Level[] = [];
    let total = 0;
    for (let l = 0; l < nLevel; l++) {
      const merging = next();
      const n = next();
      if (n < merging) throw bad(`level ${l} merges more segments than it holds`);
      const segments: Fts5Segment[] = [];
      for (let i = 0; i < n; i++) {
        const segment = { segid: next(), firstLeaf: next(), lastLeaf: next() };
        if (segment.lastLeaf < segment.firstLeaf) throw bad(`segment ${segment.segid} ends before it starts`);
        segments.push(segment);
      }
      total += n;
      levels.push({ merging, segments });
    }
    if (total !== nSegment) throw bad(`${total} segments on its levels, ${nSegment} in its header`);
    return { cookie, writeCounter, levels };
  } catch (e) {
    if (e instanceof RangeError) throw bad(e.message);
    throw e;
  }
}

/** The record of a structure, as fts5StructureWrite writes it. */
export function writeStructure(s: Fts5Structure): Buffer {
  const segments = s.levels.reduce((n, l) => n + l.segments.length, 0);
  if (segments > FTS5_MAX_SEGMENT) throw new RangeError(`FTS5 structure: ${segments} segments, more than FTS5 reads (${FTS5_MAX_SEGMENT})`);
  const out: number[] = [(s.cookie >>> 24) & 0xff, (s.cookie >>> 16) & 0xff, (s.cookie >>> 8) & 0xff, s.cookie & 0xff];
  putVarint(out, s.levels.length);
  putVarint(out, segments);
  putVarint(out, s.writeCounter);
  for (const l of s.levels) {
    putVarint(out, l.merging);
    putVarint(out, l.segments.length);
    for (const g of l.segments) {
      putVarint(out, g.segid);
      putVarint(out, g.firstLeaf);
      putVarint(out, g.lastLeaf);
    }
  }
  return Buffer.from(out);
}

/** Every segment of a structure. */
export function segmentsOf(s: Fts5Structure): Fts5Segment[] {
  return s.levels.flatMap((l) => l.segments);
}
