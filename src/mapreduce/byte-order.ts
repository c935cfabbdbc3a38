import { radixSortLines } from './radix-sort.js';

/**
 * Byte-order comparison of strings as their UTF-8 encodings compare (LC_ALL=C sort). JS
 * compares UTF-16 code units, which agrees with UTF-8 byte order except between a surrogate
 * (U+D800-DFFF, characters past U+FFFF) and U+E000-FFFF; only lines that hold such characters
 * need the slow path.
 */
export function hasHighChars(s: string): boolean {
  return /[\ud800-\uffff]/.test(s);
}

function fix(c: number): number {
  return c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c;
}

export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const ca = a.charCodeAt(i);
  const cb = b.charCodeAt(i);
  if (ca < 0xd800 && cb < 0xd800) return ca - cb;
  return fix(ca) - fix(cb);
}

/**
 * Sorts in byte order. CDX-like lines repeat their first field (the URL key of every capture
 * of a URL), so lines are bucketed by it, the distinct first fields sorted, then each bucket:
 * far fewer comparisons than one big sort (1.7x faster on CDX). This gives the order of whole
 * lines because a first field (up to the first space or tab) holds, checked here, no character
 * below U+0020: where one field is a prefix of another, the shorter line has its space or tab
 * where the longer has a larger character. Lines whose first fields rarely repeat are sorted whole.
 */
export function sortByteOrder(lines: string[]): string[] {
  if (lines.length < 1024) return lines.some(hasHighChars) ? lines.sort(compareBytes) : lines.sort();
  // Long lines (records that carry a page's text) differ in their keys: packing them all for a
  // radix sort costs more than comparing their first bytes.
  if (lines.length < 65536 && averageLength(lines) > 512) return lines.some(hasHighChars) ? lines.sort(compareBytes) : lines.sort();
  // First fields that rarely repeat (a job's distinct keys): radix sort the whole lines.
  if (distinctHeadShare(lines) > 0.9) return radixOrSort(lines);
  if (lines.some(hasHighChars)) return lines.sort(compareBytes);
  const buckets = new Map<string, string[]>();
  for (const l of lines) {
    // The first field ends at a space (CDX) or a tab (`key TAB value` records).
    const head = headOf(l);
    const b = buckets.get(head);
    if (b) b.push(l);
    else buckets.set(head, [l]);
  }
  if (buckets.size * 4 > lines.length * 3) return radixOrSort(lines);
  const heads = [...buckets.keys()];
  if (heads.some((h) => /[\x00-\x1f]/.test(h))) return radixOrSort(lines);
  // (No character at or above U+D800 here: JS order is byte order for what follows.)
  heads.sort();
  let i = 0;
  for (const h of heads) {
    const b = buckets.get(h)!;
    if (b.length > 1) b.sort();
    for (const l of b) lines[i++] = l;
  }
  return lines;
}

function averageLength(lines: string[]): number {
  const step = Math.max(1, lines.length >> 8);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < lines.length; i += step, n++) sum += lines[i].length;
  return sum / n;
}

function headOf(l: string): string {
  const sp = l.indexOf(' ');
  const tab = l.indexOf('\t');
  const end = sp < 0 ? tab : tab < 0 ? sp : Math.min(sp, tab);
  return end < 0 ? l : l.slice(0, end);
}

/** Share of distinct first fields in an even sample of the lines (the choice of method). */
function distinctHeadShare(lines: string[]): number {
  const step = Math.max(1, Math.floor(lines.length / 20000));
  const seen = new Set<string>();
  let n = 0;
  for (let i = 0; i < lines.length; i += step, n++) seen.add(headOf(lines[i]));
  return seen.size / n;
}

/** Radix sort where every character is at most U+00FF, else a comparison sort; in place. */
function radixOrSort(lines: string[]): string[] {
  const sorted = radixSortLines(lines);
  if (!sorted) return lines.some(hasHighChars) ? lines.sort(compareBytes) : lines.sort();
  for (let i = 0; i < sorted.length; i++) lines[i] = sorted[i];
  return lines;
}
