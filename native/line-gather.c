#include "line-gather.h"

#include <string.h>

int32_t nwax_gather_lines(const nwax_lines *L, const int32_t *order, int32_t from, int32_t to, uint8_t *out,
                          size_t out_len, int32_t *used, int unique, int32_t *prev) {
  size_t u = (size_t)*used;
  int32_t k = from;
  for (; k < to; k++) {
    const int32_t i = order[k];
    const size_t n = (size_t)L->len[i];
    if (unique && *prev >= 0 && (size_t)L->len[*prev] == n &&
        memcmp(L->buf + L->start[*prev], L->buf + L->start[i], n) == 0)
      continue;
    if (u + n + 1 > out_len) break;
    memcpy(out + u, L->buf + L->start[i], n + 1);
    u += n + 1;
    *prev = i;
  }
  *used = (int32_t)u;
  return k;
}

int32_t nwax_gather_singles(const nwax_lines *L, const int32_t *klen, const int32_t *order, int32_t from, int32_t to,
                            uint8_t *out, size_t out_len, int32_t *used) {
  size_t u = (size_t)*used;
  int32_t k = from;
  for (; k < to; k++) {
    const int32_t i = order[k];
    if (k + 1 < to) {
      const int32_t j = order[k + 1];
      if (klen[i] == klen[j] && memcmp(L->buf + L->start[i], L->buf + L->start[j], (size_t)klen[i]) == 0) break;
    }
    const size_t n = (size_t)L->len[i];
    if (u + n + 1 > out_len) break;
    memcpy(out + u, L->buf + L->start[i], n + 1);
    u += n + 1;
  }
  *used = (int32_t)u;
  return k;
}
