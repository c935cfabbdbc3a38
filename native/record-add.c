#include "record-add.h"

#include <string.h>

/* A byte as Java's signed byte, widened. */
#define SB(c) ((uint32_t)(int32_t)(int8_t)(c))

/*
 * Text.hashCode (WritableComparator.hashBytes): h = 31 * h + (signed) byte, from 1, in 32-bit
 * arithmetic; four bytes a step with the powers of 31, which is the same sum, so that each
 * step waits on one multiplication, not four.
 */
static inline uint32_t text_hash(const uint8_t *key, size_t k) {
  uint32_t h = 1;
  size_t i = 0;
  for (; i + 4 <= k; i += 4)
    h = h * 923521u + SB(key[i]) * 29791u + SB(key[i + 1]) * 961u + SB(key[i + 2]) * 31u + SB(key[i + 3]);
  for (; i < k; i++) h = 31u * h + SB(key[i]);
  return h;
}

int32_t nwax_add_records(nwax_record_arena *a, int32_t *st, const uint8_t *keys, const int32_t *pairs, int32_t from,
                         int32_t n, const uint8_t *value, size_t value_len, int32_t reduces) {
  size_t used = (size_t)st[ADD_USED];
  size_t count = (size_t)st[ADD_COUNT];
  int32_t j = from;
  while (j < n) {
    const uint8_t *key = keys + pairs[2 * j];
    const size_t k = (size_t)(pairs[2 * j + 1] - pairs[2 * j]);
    if (count >= a->cap || used + k + value_len + 2 > a->buf_len) break;
    if (memchr(key, '\t', k) != NULL || memchr(key, '\n', k) != NULL) break;
    const uint32_t h = text_hash(key, k);
    uint8_t *at = a->buf + used;
    memcpy(at, key, k);
    at[k] = '\t';
    memcpy(at + k + 1, value, value_len);
    at[k + 1 + value_len] = '\n';
    a->start[count] = (int32_t)used;
    a->len[count] = (int32_t)(k + 1 + value_len);
    a->part[count] = reduces <= 1 ? 0 : (int32_t)((h & 0x7fffffffu) % (uint32_t)reduces);
    a->klen[count] = (int32_t)k;
    count++;
    used += k + value_len + 2;
    j++;
    if ((double)used + (double)count * a->per_line >= a->limit) break;
  }
  st[ADD_USED] = (int32_t)used;
  st[ADD_COUNT] = (int32_t)count;
  return j;
}
