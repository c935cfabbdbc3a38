/*
 * A tournament of losers (Knuth, TAOCP 5.4.1): inner nodes keep the loser of their match,
 * tree[0] the winner; after the winner's source moves on, only its path to the root is
 * replayed. Ties go to the lower source, so the merge is stable, as the JavaScript one.
 */
#include "line-merge.h"

#include <stdlib.h>
#include <string.h>

nwax_merge *nwax_merge_new(int k, int unique, int32_t *cur, int32_t *tree) {
  nwax_merge *m = calloc(1, sizeof(nwax_merge));
  if (m == NULL) return NULL;
  m->k = k;
  m->unique = unique;
  m->cur = cur;
  m->tree = tree;
  m->buf = calloc((size_t)k, sizeof(*m->buf));
  m->order = calloc((size_t)k, sizeof(*m->order));
  m->start = calloc((size_t)k, sizeof(*m->start));
  m->len = calloc((size_t)k, sizeof(*m->len));
  if (!m->buf || !m->order || !m->start || !m->len) {
    nwax_merge_free(m);
    return NULL;
  }
  return m;
}

void nwax_merge_free(nwax_merge *m) {
  if (m == NULL) return;
  free(m->buf);
  free(m->order);
  free(m->start);
  free(m->len);
  free(m);
}

/* Whether source a's line comes before source b's: an exhausted source loses. */
static inline int beats(const nwax_merge *m, int a, int b) {
  const int32_t *ca = m->cur + a * CUR_FIELDS;
  const int32_t *cb = m->cur + b * CUR_FIELDS;
  if (ca[CUR_E] < 0) return 0;
  if (cb[CUR_E] < 0) return 1;
  const int32_t la = ca[CUR_E] - ca[CUR_S];
  const int32_t lb = cb[CUR_E] - cb[CUR_S];
  const int c = memcmp(m->buf[a] + ca[CUR_S], m->buf[b] + cb[CUR_S], (size_t)(la < lb ? la : lb));
  if (c != 0) return c < 0;
  return la < lb || (la == lb && a < b);
}

static int build_tree(nwax_merge *m) {
  const int k = m->k;
  if (k == 1) {
    m->tree[0] = 0;
    return 0;
  }
  int32_t *win = malloc(sizeof(int32_t) * 2 * (size_t)k);
  if (win == NULL) return -1;
  for (int i = 0; i < k; i++) win[k + i] = i;
  for (int t = k - 1; t >= 1; t--) {
    const int32_t l = win[2 * t], r = win[2 * t + 1];
    if (beats(m, l, r)) {
      win[t] = l;
      m->tree[t] = r;
    } else {
      win[t] = r;
      m->tree[t] = l;
    }
  }
  m->tree[0] = win[1];
  free(win);
  return 0;
}

/* Source w has a new line: replay its matches up to the root. */
static inline void replay(nwax_merge *m, int w) {
  int32_t c = w;
  for (int t = (w + m->k) >> 1; t > 0; t >>= 1) {
    if (beats(m, m->tree[t], c)) {
      const int32_t l = c;
      c = m->tree[t];
      m->tree[t] = l;
    }
  }
  m->tree[0] = c;
}

/* Moves source w to its next line; 0 when it needs a refill first. */
static inline int advance(nwax_merge *m, int w) {
  int32_t *c = m->cur + w * CUR_FIELDS;
  if (m->order[w] != NULL) {
    if (c[CUR_POS] < c[CUR_FILL]) {
      const int32_t i = m->order[w][c[CUR_POS]++];
      c[CUR_S] = m->start[w][i];
      c[CUR_E] = c[CUR_S] + m->len[w][i];
    } else {
      c[CUR_E] = -1;
    }
    return 1;
  }
  const uint8_t *b = m->buf[w];
  const uint8_t *nl = c[CUR_POS] < c[CUR_FILL] ? memchr(b + c[CUR_POS], '\n', (size_t)(c[CUR_FILL] - c[CUR_POS])) : NULL;
  if (nl == NULL) return 0;
  c[CUR_S] = c[CUR_POS];
  c[CUR_E] = (int32_t)(nl - b);
  c[CUR_POS] = c[CUR_E] + 1;
  return 1;
}

int nwax_merge_run(nwax_merge *m, uint8_t *out, size_t out_len, int32_t *st) {
  const int k = m->k;
  if (k == 0) return MERGE_DONE;
  if (st[ST_ARG] == -2) {
    if (build_tree(m) != 0) return -1;
  } else if (st[ST_ARG] >= 0) {
    replay(m, st[ST_ARG]);
  }
  st[ST_ARG] = -1;
  size_t used = (size_t)st[ST_USED];
  for (;;) {
    const int w = m->tree[0];
    const int32_t *c = m->cur + w * CUR_FIELDS;
    if (c[CUR_E] < 0) {
      st[ST_USED] = (int32_t)used;
      return MERGE_DONE;
    }
    const uint8_t *line = m->buf[w] + c[CUR_S];
    const size_t n = (size_t)(c[CUR_E] - c[CUR_S]);
    int skip = 0;
    /* After a full chunk, the winner is the line that did not fit, and it was compared then. */
    if (m->unique && st[ST_LAST] >= 0) {
      const size_t pn = used - 1 - (size_t)st[ST_LAST];
      skip = pn == n && memcmp(out + st[ST_LAST], line, n) == 0;
    }
    if (!skip) {
      if (used + n + 1 > out_len) {
        st[ST_USED] = (int32_t)used;
        return MERGE_OUT_FULL;
      }
      memcpy(out + used, line, n);
      out[used + n] = '\n';
      st[ST_LAST] = (int32_t)used;
      used += n + 1;
    }
    if (!advance(m, w)) {
      st[ST_USED] = (int32_t)used;
      st[ST_ARG] = w;
      return MERGE_REFILL;
    }
    replay(m, w);
  }
}
