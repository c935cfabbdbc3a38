/*
 * Three-way radix quicksort (Bentley & Sedgewick) with cached keys (Ng & Kakehi): a range is
 * partitioned on the next seven bytes of its lines, loaded once into `cache` as one integer
 * that orders as the bytes do; the part equal on all seven moves on to the next seven. A range
 * that agrees on a whole step is checked for what else it shares, and jumps over it at once
 * (repeated CDX captures agree to their last byte). Outer parts past a depth limit go to
 * qsort_r with memcmp, so no input makes the sort quadratic or its stack deep.
 */
#define _GNU_SOURCE
#include "line-sort.h"

#include <stdlib.h>
#include <string.h>

#define STEP 7
#define SMALL 16

/*
 * The seven bytes of line i from byte d, big-endian, shifted left by three, plus how many of
 * them the line has (0-7): a line that ends inside the step is padded with zeros, and its
 * count puts it before a line with real zero bytes there, as in byte order.
 */
static inline uint64_t key_at(const nwax_lines *L, int32_t i, int32_t d) {
  const size_t at = (size_t)L->start[i] + (size_t)d;
  const int32_t left = L->len[i] - d;
  const uint8_t *p = L->buf + at;
  uint64_t v = 0;
  if (left >= STEP) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (at + 8 <= L->buf_len) {
      memcpy(&v, p, 8);
      return ((__builtin_bswap64(v) >> 8) << 3) | STEP;
    }
#endif
    for (int k = 0; k < STEP; k++) v = (v << 8) | p[k];
    return (v << 3) | STEP;
  }
  for (int k = 0; k < STEP; k++) v = (v << 8) | (k < left ? p[k] : 0);
  return (v << 3) | (uint64_t)(left > 0 ? left : 0);
}

/* Lines a and b compared from byte d on (both have at least d bytes). */
static inline int compare_from(const nwax_lines *L, int32_t a, int32_t b, int32_t d) {
  const int32_t la = L->len[a] - d;
  const int32_t lb = L->len[b] - d;
  const int32_t m = la < lb ? la : lb;
  if (m > 0) {
    const int c = memcmp(L->buf + L->start[a] + d, L->buf + L->start[b] + d, (size_t)m);
    if (c != 0) return c;
  }
  return la < lb ? -1 : la > lb ? 1 : 0;
}

typedef struct {
  const nwax_lines *lines;
  int32_t d;
} qsort_ctx;

static int qsort_compare(const void *x, const void *y, void *arg) {
  const qsort_ctx *c = (const qsort_ctx *)arg;
  return compare_from(c->lines, *(const int32_t *)x, *(const int32_t *)y, c->d);
}

static void insertion_sort(const nwax_lines *L, int32_t *idx, size_t n, int32_t d) {
  for (size_t i = 1; i < n; i++) {
    const int32_t v = idx[i];
    size_t j = i;
    while (j > 0 && compare_from(L, idx[j - 1], v, d) > 0) {
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = v;
  }
}

/* How many bytes from byte d on all lines of idx[0, n) share with the first. */
static int32_t shared_prefix(const nwax_lines *L, const int32_t *idx, size_t n, int32_t d) {
  const int32_t r = idx[0];
  const uint8_t *rp = L->buf + L->start[r] + d;
  int32_t m = L->len[r] - d;
  for (size_t k = 1; k < n && m > 0; k++) {
    const int32_t i = idx[k];
    const uint8_t *p = L->buf + L->start[i] + d;
    int32_t c = L->len[i] - d;
    if (c > m) c = m;
    if (c == m && memcmp(p, rp, (size_t)c) == 0) continue;
    int32_t q = 0;
    while (q < c && p[q] == rp[q]) q++;
    m = q;
  }
  return m > 0 ? m : 0;
}

static inline uint64_t median3(uint64_t a, uint64_t b, uint64_t c) {
  return a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
}

static void sort_range(const nwax_lines *L, int32_t *idx, uint64_t *cache, size_t n, int32_t d, int loaded, int depth) {
  for (;;) {
    if (n <= 1) return;
    if (n <= SMALL) {
      insertion_sort(L, idx, n, d);
      return;
    }
    if (depth <= 0) {
      qsort_ctx c = {L, d};
      qsort_r(idx, n, sizeof(int32_t), qsort_compare, &c);
      return;
    }
    if (!loaded)
      for (size_t i = 0; i < n; i++) cache[i] = key_at(L, idx[i], d);
    const uint64_t pivot = median3(cache[0], cache[n >> 1], cache[n - 1]);
    /* [0, lt) < pivot, [lt, gt) == pivot, [gt, n) > pivot */
    size_t lt = 0, gt = n, i = 0;
    while (i < gt) {
      const uint64_t v = cache[i];
      if (v < pivot) {
        const int32_t t = idx[lt];
        idx[lt] = idx[i];
        idx[i] = t;
        cache[i] = cache[lt];
        cache[lt] = v;
        lt++;
        i++;
      } else if (v > pivot) {
        gt--;
        const int32_t t = idx[gt];
        idx[gt] = idx[i];
        idx[i] = t;
        cache[i] = cache[gt];
        cache[gt] = v;
      } else {
        i++;
      }
    }
    sort_range(L, idx, cache, lt, d, 1, depth - 1);
    sort_range(L, idx + gt, cache + gt, n - gt, d, 1, depth - 1);
    if ((pivot & 7) != STEP) return; /* the equal part ended within the step: equal lines */
    const int32_t skip = (lt == 0 && gt == n) ? shared_prefix(L, idx, n, d + STEP) : 0;
    idx += lt;
    cache += lt;
    n = gt - lt;
    d += STEP + skip;
    loaded = 0;
  }
}

void nwax_sort_lines(const nwax_lines *lines, int32_t *idx, uint64_t *cache, size_t n) {
  int depth = 64;
  for (size_t m = n; m > 1; m >>= 1) depth += 2;
  sort_range(lines, idx, cache, n, 0, 0, depth);
}
