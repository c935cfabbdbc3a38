/**
 * One large archive, several map tasks: a gzip archive of one member per record (as WARC and
 * ARC writers make them) is cut into byte ranges that each start where a member starts, as a
 * splittable input format would. A split reads the records that start in it, [start, end):
 * the last may run past `end`, and the next split starts at the first record at or after
 * `end`, so every record is read once and the segment is the one a single task gives.
 *
 * A cut point k x size moves forward to the first gzip member whose first bytes inflate to a
 * record's first line (`WARC/1.x` or an ARC header): the bytes 1f 8b 08 alone may occur inside
 * compressed data. An archive that is one gzip stream, or plain, or read over the network, is
 * one task (a plain file has no marks that cannot occur in a payload).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { constants, gunzipSync } from 'node:zlib';
import { recordAt } from '../archive/record-start.js';
import { isClusterPath, isRemote } from '../archive/byte-source.js';
import type { ManifestEntry } from './manifest.js';

export interface ArchiveSplit {
  archive: string;
  collection: string;
  /** The first byte of the split: a record's first byte. */
  start: number;
  /** Records that start at or after this byte belong to the next split; none: to the end. */
  end?: number;
}

/** The bytes of a local archive `planSplits` may cut (0 for any other). */
export function splittableBytes(entry: ManifestEntry): number {
  if (isRemote(entry.location) || isClusterPath(entry.location) || entry.location === '-') return 0;
  try {
    const st = statSync(entry.location);
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}

/** How far past a cut point a member start is looked for before the cut is given up. */
const SEARCH = 16 << 20;
const WINDOW = 1 << 20;

/** Whether a gzip member that holds a record's first line starts at `at` in `buf`. */
function memberAt(buf: Buffer, at: number): boolean {
  if (buf[at] !== 0x1f || buf[at + 1] !== 0x8b || buf[at + 2] !== 0x08) return false;
  let head: Buffer;
  try {
    // Z_SYNC_FLUSH: what the bytes at hand inflate to, without asking for the member's end.
    head = gunzipSync(buf.subarray(at, at + 4096), { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    return false;
  }
  return head.length >= 16 && recordAt(head, 0, undefined);
}

/** The first member start at or after `from` (within SEARCH bytes), or -1. */
function memberStartFrom(fd: number, from: number, size: number): number {
  const buf = Buffer.allocUnsafe(WINDOW + 4096);
  for (let pos = from; pos < size && pos < from + SEARCH; pos += WINDOW) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    const view = buf.subarray(0, n);
    for (let i = view.indexOf(0x1f); i >= 0 && i < Math.min(n, WINDOW); i = view.indexOf(0x1f, i + 1)) {
      if (memberAt(view, i)) return pos + i;
    }
  }
  return -1;
}

/**
 * The splits of one manifest entry: one split (the whole archive) unless it is larger than
 * `splitSize`. Then the ranges shrink toward the end of the job (guided scheduling): each is
 * the bytes left (of this archive, and `bytesAfter` of the archives after it) over twice the
 * threads, at most `splitSize` and at least a thirty-second of it. The threads take them as
 * they come free, so the last tasks are short and the threads end together: equal bytes are
 * not equal work (one archive of 107 MB in four equal ranges left one thread idle for 0.6 s
 * of a 6.5 s map phase; ranges from 27 MB down to 4 MB left it idle 0.18-0.39 s of a
 * profiled map, down to 1 MB 0.07-0.12 s, three runs each), and equal ranges smaller
 * throughout would have made more runs for the reduce to merge.
 */
export function planSplits(entry: ManifestEntry, splitSize: number, threads = 1, bytesAfter = 0): ArchiveSplit[] {
  const whole: ArchiveSplit[] = [{ archive: entry.location, collection: entry.collection, start: 0 }];
  if (isRemote(entry.location) || isClusterPath(entry.location) || entry.location === '-' || splitSize <= 0) return whole;
  let size: number;
  let fd: number;
  try {
    const st = statSync(entry.location);
    if (!st.isFile() || st.size <= splitSize) return whole;
    size = st.size;
    fd = openSync(entry.location, 'r');
  } catch {
    // Missing or unreadable: the task reports it, as for any archive.
    return whole;
  }
  try {
    const magic = Buffer.alloc(2);
    readSync(fd, magic, 0, 2, 0);
    if (magic[0] !== 0x1f || magic[1] !== 0x8b) return whole;
    const least = Math.max(1, Math.floor(splitSize / 32));
    const starts = [0];
    for (;;) {
      const at = starts[starts.length - 1];
      const left = size - at;
      const length = Math.min(splitSize, Math.max(least, Math.ceil((left + bytesAfter) / (2 * Math.max(1, threads)))));
      // A rest smaller than the least range goes with the last one.
      if (left - length < least) break;
      const next = memberStartFrom(fd, at + length, size);
      if (next < 0) break;
      starts.push(next);
    }
    return starts.map((start, i) => ({ archive: entry.location, collection: entry.collection, start, end: starts[i + 1] }));
  } finally {
    closeSync(fd);
  }
}
