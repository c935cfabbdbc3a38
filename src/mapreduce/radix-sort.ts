/**
 * Sorting lines in byte order without calling a comparator: the lines are packed into one
 * Latin-1 buffer and an index array is sorted by multikey quicksort (Bentley & Sedgewick's
 * three-way radix quicksort): a partition on one byte position at a time, so shared prefixes
 * (every CDX key of a site shares one) are walked once, not once per comparison. Used when
 * every character is at most U+00FF, where Latin-1 byte order is code point order and so
 * UTF-8 byte order; other input is sorted by the caller's fallback.
 */

const SMALL = 12;

/** Sorted copy of `lines` in byte order, or undefined when a character is above U+00FF. */
export function radixSortLines(lines: string[]): string[] | undefined {
  const n = lines.length;
  const joined = lines.join('\n');
  if (/[^\x00-\xff]/.test(joined)) return undefined;
  const buf = Buffer.from(joined, 'latin1');
  const start = new Int32Array(n);
  const len = new Int32Array(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    start[i] = at;
    len[i] = lines[i].length;
    at += lines[i].length + 1;
  }
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  sortRange(idx, start, len, buf, 0, n, 0);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = lines[idx[i]];
  return out;
}

function byteAt(buf: Uint8Array, start: Int32Array, len: Int32Array, i: number, d: number): number {
  return d < len[i] ? buf[start[i] + d] : -1;
}

/** Compares two lines from byte d on. */
function compareFrom(buf: Uint8Array, start: Int32Array, len: Int32Array, a: number, b: number, d: number): number {
  const la = len[a];
  const lb = len[b];
  const m = Math.min(la, lb);
  let pa = start[a] + d;
  let pb = start[b] + d;
  for (let k = d; k < m; k++, pa++, pb++) {
    const x = buf[pa];
    const y = buf[pb];
    if (x !== y) return x - y;
  }
  return la - lb;
}

function sortRange(idx: Int32Array, start: Int32Array, len: Int32Array, buf: Uint8Array, lo: number, hi: number, d: number): void {
  // Iterate on the middle ("equal") part, recurse on the outer ones: the stack stays shallow.
  for (;;) {
    const size = hi - lo;
    if (size <= 1) return;
    if (size <= SMALL) {
      for (let i = lo + 1; i < hi; i++) {
        const v = idx[i];
        let j = i - 1;
        while (j >= lo && compareFrom(buf, start, len, idx[j], v, d) > 0) {
          idx[j + 1] = idx[j];
          j--;
        }
        idx[j + 1] = v;
      }
      return;
    }
    // Median of three bytes as the pivot.
    const a = byteAt(buf, start, len, idx[lo], d);
    const b = byteAt(buf, start, len, idx[lo + (size >> 1)], d);
    const c = byteAt(buf, start, len, idx[hi - 1], d);
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
    // Three-way partition: [lo, lt) < pivot, [lt, gt) == pivot, [gt, hi) > pivot.
    let lt = lo;
    let gt = hi;
    let i = lo;
    while (i < gt) {
      const v = byteAt(buf, start, len, idx[i], d);
      if (v < pivot) {
        const t = idx[lt];
        idx[lt++] = idx[i];
        idx[i++] = t;
      } else if (v > pivot) {
        const t = idx[--gt];
        idx[gt] = idx[i];
        idx[i] = t;
      } else i++;
    }
    sortRange(idx, start, len, buf, lo, lt, d);
    sortRange(idx, start, len, buf, gt, hi, d);
    if (pivot < 0) return; // the equal part ended at d: equal lines
    lo = lt;
    hi = gt;
    d++;
  }
}
