/**
 * Sorting lines in byte order without calling a comparator: an index array over the lines of
 * a line arena (UTF-8 bytes) is sorted by multikey quicksort (Bentley & Sedgewick's three-way
 * radix quicksort), on six bytes at a time (cached keys, as Ng & Kakehi's cached multikey
 * quicksort): a partition on one position at a time, so shared prefixes (every CDX key of a
 * site shares one) are walked once, not once per comparison. Where a whole range agrees on a
 * step, the bytes it shares beyond are skipped in one pass (repeated captures agree to their
 * last byte: 50 steps otherwise). UTF-8 byte order is code point order, the order of
 * `LC_ALL=C sort`.
 */

const SMALL = 12;

/**
 * Sorts `idx[lo, hi)` (line numbers) by the bytes of the lines they name: line i is
 * `buf[start[i], start[i] + len[i])`. Byte order of UTF-8 is code point order, so lines held as
 * UTF-8 (the external sort's arenas) need no fallback. `cache` is scratch space as long as `idx`.
 */
export function sortLineIndex(
  idx: Int32Array,
  buf: Buffer,
  start: Int32Array,
  len: Int32Array,
  lo: number,
  hi: number,
  cache = new Float64Array(idx.length),
): void {
  sortRange(idx, cache, start, len, buf, lo, hi, 0, false);
}

/** Bytes per step of the sort: six bytes and a count (0-6) fit a double exactly (256^6 * 7 < 2^53). */
const STEP = 6;
const RADIX = STEP + 1;

/**
 * The next six bytes of line i from byte d as one number that orders as the bytes do: the
 * bytes big-endian, times 7, plus how many of the six the line has (0-6). A line that ends
 * inside the six is padded with zeros and its count breaks the tie with a line that has real
 * zero bytes there, so the shorter line sorts first, as in byte order. Six, not four: keys
 * that share long prefixes (every capture of a URL and digest in dedup-cdx) are walked in
 * a third fewer steps.
 */
function keyAt(buf: Buffer, start: Int32Array, len: Int32Array, i: number, d: number): number {
  const s = start[i] + d;
  const left = len[i] - d;
  if (left >= STEP) {
    const hi = (buf[s] << 8) | buf[s + 1];
    const lo = ((buf[s + 2] << 24) | (buf[s + 3] << 16) | (buf[s + 4] << 8) | buf[s + 5]) >>> 0;
    return (hi * 4294967296 + lo) * RADIX + STEP;
  }
  let v = 0;
  for (let k = 0; k < STEP; k++) v = v * 256 + (k < left ? buf[s + k] : 0);
  return v * RADIX + (left > 0 ? left : 0);
}

/** Compares two lines from byte d on. */
function compareFrom(buf: Buffer, start: Int32Array, len: Int32Array, a: number, b: number, d: number): number {
  const la = len[a];
  const lb = len[b];
  const m = Math.min(la, lb);
  let pa = start[a] + d;
  let pb = start[b] + d;
  // Long tails (the lines of a small range often agree to their end) go to memcmp.
  if (m - d >= NATIVE_EQUAL) return buf.compare(buf, pb, pb + lb - d, pa, pa + la - d);
  for (let k = d; k < m; k++, pa++, pb++) {
    const x = buf[pa];
    const y = buf[pb];
    if (x !== y) return x - y;
  }
  return la - lb;
}

/**
 * Three-way radix quicksort on six bytes at a time: the keys of a range at depth d are loaded
 * once into `cache` (parallel to `idx`), so partitions compare numbers in a sequential array
 * instead of reaching into the lines' bytes at random for every element and byte.
 */
function sortRange(
  idx: Int32Array,
  cache: Float64Array,
  start: Int32Array,
  len: Int32Array,
  buf: Buffer,
  lo: number,
  hi: number,
  d: number,
  loaded: boolean,
): void {
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
    if (!loaded) for (let i = lo; i < hi; i++) cache[i] = keyAt(buf, start, len, idx[i], d);
    // Median of three as the pivot.
    const a = cache[lo];
    const b = cache[lo + (size >> 1)];
    const c = cache[hi - 1];
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    // Three-way partition: [lo, lt) < pivot, [lt, gt) == pivot, [gt, hi) > pivot.
    let lt = lo;
    let gt = hi;
    let i = lo;
    while (i < gt) {
      const v = cache[i];
      if (v < pivot) {
        const t = idx[lt];
        idx[lt] = idx[i];
        idx[i] = t;
        cache[i] = cache[lt];
        cache[lt] = v;
        lt++;
        i++;
      } else if (v > pivot) {
        gt--;
        const t = idx[gt];
        idx[gt] = idx[i];
        idx[i] = t;
        cache[i] = cache[gt];
        cache[gt] = v;
      } else i++;
    }
    sortRange(idx, cache, start, len, buf, lo, lt, d, true);
    sortRange(idx, cache, start, len, buf, gt, hi, d, true);
    if (pivot % RADIX !== STEP) return; // the equal part ended within these bytes: equal lines
    // The whole range agreed on these six bytes: it may share far more (a site's prefix, or
    // captures equal up to their last field). Jump over what all of it shares in one pass
    // instead of a partition pass per six bytes (60 passes per line on repeated CDX, 15 after).
    const skip = lt === lo && gt === hi ? sharedPrefix(idx, start, len, buf, lo, hi, d + STEP) : 0;
    lo = lt;
    hi = gt;
    d += STEP + skip;
    loaded = false;
  }
}

/** Below this many bytes a loop in JS compares faster than a call to memcmp. */
const NATIVE_EQUAL = 64;

/** How many bytes from byte d on every line of `idx[lo, hi)` shares with the first one. */
function sharedPrefix(idx: Int32Array, start: Int32Array, len: Int32Array, buf: Buffer, lo: number, hi: number, d: number): number {
  const r = idx[lo];
  const rs = start[r] + d;
  let m = len[r] - d;
  for (let k = lo + 1; k < hi && m > 0; k++) {
    const i = idx[k];
    const s = start[i] + d;
    const n = Math.min(m, len[i] - d);
    // A line equal to the first over all that is left (repeated captures) is one memcmp.
    if (n === m && n >= NATIVE_EQUAL && buf.compare(buf, s, s + n, rs, rs + n) === 0) continue;
    let p = 0;
    while (p < n && buf[s + p] === buf[rs + p]) p++;
    m = p;
  }
  return m > 0 ? m : 0;
}
