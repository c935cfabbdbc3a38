#include "record-add.h"

#include <string.h>

int32_t nwax_add_records(nwax_record_arena *a, int32_t *st, const uint8_t *keys, const int32_t *pairs, int32_t from,
                         int32_t n, const uint8_t *value, size_t value_len, int32_t reduces) {
  size_t used = (size_t)st[0];
  size_t count = (size_t)st[1];
  int32_t j = from;
  while (j < n) {
    const uint8_t *key = keys + pairs[2 * j];
    const size_t k = (size_t)(pairs[2 * j + 1] - pairs[2 * j]);
    if (count >= a->cap || used + k + value_len + 2 > a->buf_len) break;
    /* Text.hashCode: h = 31 * h + (signed) byte, from 1, in 32-bit arithmetic. */
    uint32_t h = 1;
    int bad = 0;
    for (size_t i = 0; i < k; i++) {
      const uint8_t c = key[i];
      bad |= c == '\t' || c == '\n';
      h = 31u * h + (uint32_t)(int32_t)(int8_t)c;
    }
    if (bad) break;
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
  st[0] = (int32_t)used;
  st[1] = (int32_t)count;
  return j;
}
