#include "long-sum.h"

#include <string.h>

/* Digits a double holds exactly whatever they are (10^15 < 2^53), as src/mapreduce/long-sum.ts. */
#define EXACT_DIGITS 15
#define SAFE_INTEGER 9007199254740991.0

/* The canonical integer -?(0|[1-9][0-9]*) of up to 15 digits in [s, e), or 0 when it is not one. */
static int canonical_integer(const uint8_t *s, const uint8_t *e, double *out) {
  const uint8_t *p = s;
  const int negative = p < e && *p == '-';
  if (negative) p++;
  const ptrdiff_t digits = e - p;
  if (digits < 1 || digits > EXACT_DIGITS || (*p == '0' && digits != 1)) return 0;
  int64_t n = 0;
  for (; p < e; p++) {
    if (*p < '0' || *p > '9') return 0;
    n = n * 10 + (*p - '0');
  }
  *out = negative ? -(double)n : (double)n;
  return 1;
}

/* UTF-16 units of UTF-8 bytes: one per character, two for a four-byte one. */
static int32_t utf16_units(const uint8_t *s, size_t n) {
  int32_t u = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t c = s[i];
    if ((c & 0xc0) != 0x80) u += c >= 0xf0 ? 2 : 1;
  }
  return u;
}

/* Writes the decimal digits of a safe integer at `at`; returns their count. */
static int32_t format_integer(double sum, uint8_t *at) {
  uint8_t digits[24];
  int32_t n = 0;
  int64_t v = (int64_t)sum;
  const int negative = v < 0;
  uint64_t u = negative ? (uint64_t)(-v) : (uint64_t)v;
  do {
    digits[n++] = (uint8_t)('0' + u % 10);
    u /= 10;
  } while (u > 0);
  int32_t w = 0;
  if (negative) at[w++] = '-';
  while (n > 0) at[w++] = digits[--n];
  return w;
}

/* Appends the group's line to the block; 0 when the caller must (a sum JavaScript formats, or no room). */
static int emit_group(const nwax_sum_buffers *b, int32_t *st, double sum) {
  const size_t k = (size_t)st[SUM_KEY_LEN];
  if (!(sum >= -SAFE_INTEGER && sum <= SAFE_INTEGER) || sum != (double)(int64_t)sum) return 0;
  const size_t used = (size_t)st[SUM_USED];
  if (used + k + 24 > b->block_cap) return 0;
  uint8_t *at = b->block + used;
  memcpy(at, b->key, k);
  at[k] = '\t';
  const int32_t digits = format_integer(sum, at + k + 1);
  at[k + 1 + digits] = '\n';
  st[SUM_USED] = (int32_t)(used + k + digits + 2);
  st[SUM_UNITS] += utf16_units(b->key, k) + digits + 2;
  st[SUM_LINES]++;
  st[SUM_GROUPS]++;
  st[SUM_KEY_LEN] = -1;
  return 1;
}

int32_t nwax_long_sum(const nwax_sum_buffers *b, const uint8_t *chunk, int32_t from, int32_t to, int32_t *st,
                      double *sum) {
  int32_t p = from;
  while (p < to) {
    const uint8_t *line = chunk + p;
    const uint8_t *nl = memchr(line, '\n', (size_t)(to - p));
    const uint8_t *end = nl != NULL ? nl : chunk + to;
    const uint8_t *tab = memchr(line, '\t', (size_t)(end - line));
    const uint8_t *key_end = tab != NULL ? tab : end;
    const size_t k = (size_t)(key_end - line);
    if (st[SUM_KEY_LEN] < 0 || (size_t)st[SUM_KEY_LEN] != k || memcmp(b->key, line, k) != 0) {
      if (st[SUM_KEY_LEN] >= 0) {
        if (!emit_group(b, st, *sum)) {
          st[SUM_STATUS] = SUM_EMIT;
          return p;
        }
        *sum = 0;
        if (st[SUM_UNITS] >= b->block_size) {
          st[SUM_STATUS] = SUM_BLOCK_FULL;
          return p;
        }
      }
      if (k > b->key_cap) {
        st[SUM_STATUS] = SUM_KEY_ROOM;
        st[SUM_ARG] = (int32_t)k;
        return p;
      }
      memcpy(b->key, line, k);
      st[SUM_KEY_LEN] = (int32_t)k;
      *sum = 0;
    }
    st[SUM_LINE_NO]++;
    const int32_t next = (int32_t)(end - chunk) + 1;
    if (tab != NULL) {
      double v;
      if (!canonical_integer(tab + 1, end, &v)) {
        st[SUM_STATUS] = SUM_VALUE;
        st[SUM_ARG] = (int32_t)(tab + 1 - chunk);
        st[SUM_ARG2] = (int32_t)(end - chunk);
        return next;
      }
      *sum += v;
    }
    p = next;
  }
  st[SUM_STATUS] = SUM_DONE;
  return p;
}
