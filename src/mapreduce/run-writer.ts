/**
 * Writing an arena's sorted lines: as chunks of whole lines (through the native gather where
 * the addon is built), to a file descriptor, or as one run file.
 */
import { closeSync, openSync } from 'node:fs';
import { copyBytes, writeAll, type LineArena } from './line-arena.js';
import { nativeSort, type NativeSort } from '../native/sort.js';
import { GATHER_PREV, GATHER_USED } from '../native/shared.js';

/**
 * The chunk that runs are written through, one per thread and kept: a new megabyte per run was
 * garbage outside V8's heap that it collected late (a 2 GB sort-cdx writes 128 runs).
 */
let writeScratch: Buffer | undefined;

/** Sorts an arena's lines and writes them to `path` as one run. */
export function writeRun(arena: LineArena, path: string, unique: boolean): void {
  const { order } = arena.sorted();
  const fd = openSync(path, 'w');
  try {
    writeArenaLines(arena, fd, order, 0, arena.count, unique);
  } finally {
    closeSync(fd);
  }
}

/** Writes the arena's lines `order[from, to)` to `fd`, as `arenaChunks` gives them. */
export function writeArenaLines(arena: LineArena, fd: number, order: Int32Array, from: number, to: number, unique = false): void {
  writeScratch ??= Buffer.allocUnsafeSlow(1 << 20);
  for (const chunk of arenaChunks(arena, order, from, to, unique, writeScratch)) writeAll(fd, chunk);
}

/**
 * The arena's lines `order[from, to)` as chunks of whole lines (each with its newline) in
 * `chunk`; a chunk is valid until the next is asked for.
 */
export function* arenaChunks(
  arena: LineArena,
  order: Int32Array,
  from: number,
  to: number,
  unique = false,
  chunk: Buffer = Buffer.allocUnsafeSlow(1 << 20),
): Generator<Buffer> {
  if (nativeSort) {
    yield* nativeChunks(arena, nativeSort, order, from, to, unique, chunk);
    return;
  }
  let used = 0;
  let prev = -1;
  for (let k = from; k < to; k++) {
    const i = order[k];
    if (unique && prev >= 0 && arena.same(prev, i)) continue;
    prev = i;
    const n = arena.len[i] + 1;
    if (used + n > chunk.length) {
      if (used > 0) yield chunk.subarray(0, used);
      used = 0;
      if (n > chunk.length) {
        yield arena.buf.subarray(arena.start[i], arena.start[i] + n);
        continue;
      }
    }
    copyBytes(arena.buf, arena.start[i], arena.start[i] + n, chunk, used);
    used += n;
  }
  if (used > 0) yield chunk.subarray(0, used);
}

/** `arenaChunks` through the native gather: one call per chunk, not a copy through JavaScript per line. */
function* nativeChunks(arena: LineArena, addon: NativeSort, order: Int32Array, from: number, to: number, unique: boolean, chunk: Buffer): Generator<Buffer> {
  // Bytes of the chunk used, and the last line put out (for `unique`).
  const st = new Int32Array(2);
  st[GATHER_USED] = 0;
  st[GATHER_PREV] = -1;
  let k = from;
  while (k < to) {
    k = addon.gatherLines(arena.buf, arena.start, arena.len, order, k, to, chunk, st, unique);
    if (k === to) break;
    if (st[GATHER_USED] > 0) yield chunk.subarray(0, st[GATHER_USED]);
    else {
      // A line longer than the chunk goes as it lies.
      const i = order[k++];
      yield arena.buf.subarray(arena.start[i], arena.start[i] + arena.len[i] + 1);
      st[GATHER_PREV] = i;
    }
    st[GATHER_USED] = 0;
  }
  if (st[GATHER_USED] > 0) yield chunk.subarray(0, st[GATHER_USED]);
}
