/**
 * dedup-cdx's native kernels seen from TypeScript (native/cdx-keys.h; their `st` fields are
 * native/shared.ts's): the keys of CDX11 lines written by the addon straight into an external
 * sorter's arena of lines (the engine offers the arena through `fill`, knowing nothing of CDX).
 */
import type { ExternalSorter } from '../mapreduce/external-sort.js';
import type { FillStop } from '../mapreduce/line-arena.js';
import type { NativeSort } from '../native/sort.js';
import { CDX_KEYS_COUNT, CDX_KEYS_FULL, CDX_KEYS_NEED, CDX_KEYS_ROOM, CDX_KEYS_STATUS, CDX_KEYS_USED } from '../native/shared.js';

/**
 * The keys (`URLKEY sha1:DIGEST DATE[ FILE]`) of the CDX11 lines of `chunk[from, to)` added to
 * the sorter (runs spilled on the way); resolves to where the addon stopped: `to`, or a line it
 * leaves to the caller (a legend, CDXJ, anything to report). `st`'s counts are added to.
 */
export function addCdxKeys(
  sorter: ExternalSorter,
  addon: NativeSort,
  chunk: Buffer,
  from: number,
  to: number,
  revisits: boolean,
  st: Int32Array,
): Promise<number> {
  let at = from;
  return sorter.fill((a): FillStop => {
    st[CDX_KEYS_USED] = a.used;
    st[CDX_KEYS_COUNT] = a.count;
    at = addon.cdxKeys(a.buf, a.start, a.len, a.part, st, a.limit, a.bytesPerLine, chunk, at, to, revisits);
    a.used = st[CDX_KEYS_USED];
    a.count = st[CDX_KEYS_COUNT];
    const status = st[CDX_KEYS_STATUS];
    return { at, status: status === CDX_KEYS_ROOM ? 'room' : status === CDX_KEYS_FULL ? 'full' : 'done', need: st[CDX_KEYS_NEED] };
  });
}
