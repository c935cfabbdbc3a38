/*
 * FTS5 segments written from rows (fts-segment.h says what and why). Two halves: the term table
 * (each term's doclist in FTS5's in-memory format: a rowid varint, a poslist-size byte, then
 * per token 0x01 + column where the column changes and the offset delta + 2) and the segment
 * writer, which lays the sorted doclists into leaves as fts5FlushOneHash does. The table is
 * open addressing over a multiplicative hash of the term, eight bytes at a time (FTS5's own
 * hash chains short terms into the low slots); the layout of every record is FTS5's.
 */
/* madvise and MADV_HUGEPAGE, which -std=c11 alone leaves out of glibc's headers */
#define _DEFAULT_SOURCE
#include "fts-segment.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef __linux__
#include <sys/mman.h>
#endif

#define MAX_TOKEN 32768 /* FTS5_MAX_TOKEN_SIZE: longer tokens are cut */
#define MAIN_PREFIX '0' /* FTS5_MAIN_PREFIX: the first byte of every term of the main index */
#define MIN_DLIDX 4     /* FTS5_MIN_DLIDX_SIZE: a doclist index once this many leaves lack a term */
#define ENTRY_COST 48   /* sizeof(Fts5HashEntry) on a 64-bit build, which FTS5 counts per term */

typedef struct {
  uint8_t *p;
  size_t n, cap;
} fbuf;

/* *p grown (doubling, from `first`) to hold `need` bytes; 0 where memory ran out. */
static int grow(uint8_t **p, size_t *cap, size_t need, size_t first) {
  size_t c = *cap ? *cap : first;
  while (c < need) c *= 2;
  uint8_t *q = realloc(*p, c);
  if (!q) return 0;
  *p = q;
  *cap = c;
  return 1;
}

static int fb_room(fbuf *b, size_t more) { return b->n + more <= b->cap || grow(&b->p, &b->cap, b->n + more, 64); }

static int put_long_varint(uint8_t *p, uint64_t v);

/* SQLite's varint: big-endian groups of 7 bits, the high bit set on all but the last; a ninth
 * byte, when needed, holds 8 bits. Nearly every value here (offsets, rowid deltas) takes one. */
static inline int put_varint(uint8_t *p, uint64_t v) {
  if (v <= 0x7f) {
    p[0] = (uint8_t)v;
    return 1;
  }
  if (v <= 0x3fff) {
    p[0] = (uint8_t)((v >> 7) | 0x80);
    p[1] = (uint8_t)(v & 0x7f);
    return 2;
  }
  return put_long_varint(p, v);
}

static int put_long_varint(uint8_t *p, uint64_t v) {
  uint8_t buf[10];
  int n = 0;
  if (v & ((uint64_t)0xff000000 << 32)) {
    p[8] = (uint8_t)v;
    v >>= 8;
    for (int i = 7; i >= 0; i--) {
      p[i] = (uint8_t)((v & 0x7f) | 0x80);
      v >>= 7;
    }
    return 9;
  }
  do {
    buf[n++] = (uint8_t)((v & 0x7f) | 0x80);
    v >>= 7;
  } while (v != 0);
  buf[0] &= 0x7f;
  for (int i = 0, j = n - 1; j >= 0; j--, i++) p[i] = buf[j];
  return n;
}

static int varint_len(uint64_t v) {
  uint8_t tmp[10];
  return put_varint(tmp, v);
}

static int get_varint(const uint8_t *p, uint64_t *v) {
  uint64_t x = 0;
  for (int i = 0; i < 8; i++) {
    x = (x << 7) | (p[i] & 0x7f);
    if (!(p[i] & 0x80)) {
      *v = x;
      return i + 1;
    }
  }
  *v = (x << 8) | p[8];
  return 9;
}

static int fb_varint(fbuf *b, uint64_t v) {
  if (!fb_room(b, 10)) return 0;
  b->n += put_varint(b->p + b->n, v);
  return 1;
}

static int fb_blob(fbuf *b, const void *p, size_t n) {
  if (!fb_room(b, n)) return 0;
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
  return 1;
}

/* --- memory on huge pages ----------------------------------------------------------------- */

/* A part's terms and doclists are tens of MB touched at random: on 4 kB pages nearly every
 * token missed the TLB. Linux backs memory asked for this way with 2 MB pages where it can
 * (transparent huge pages in `madvise` mode, the common default): a part's load 1.25 -> 0.85 s. */
#define HUGE_PAGE (2u << 20)

static void *huge_alloc(size_t n) {
  n = (n + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
  void *p = aligned_alloc(HUGE_PAGE, n);
#ifdef MADV_HUGEPAGE
  if (p) madvise(p, n, MADV_HUGEPAGE);
#endif
  return p;
}

static void *huge_calloc(size_t n) {
  void *p = huge_alloc(n);
  if (p) memset(p, 0, n);
  return p;
}

/*
 * The doclists' memory: blocks of 32 bytes to 1 MB (powers of two) carved from regions of huge
 * pages, a free list per size; a doclist that grows moves to the next size and gives its block
 * back. Larger doclists (the commonest terms) are malloc'd. Everything goes at once when the
 * terms are written as a segment.
 */
#define SLAB_MIN 5  /* 32 bytes */
#define SLAB_MAX 20 /* 1 MB */
#define REGION (32u << 20)

typedef struct {
  uint8_t **regions;
  size_t nregion, cur; /* regions[cur] is carved from `used` on */
  size_t used;
  void *free[SLAB_MAX + 1];
} slab;

static int size_class(size_t cap) {
  int c = SLAB_MIN;
  while (((size_t)1 << c) < cap) c++;
  return c;
}

static void *slab_get(slab *s, int c) {
  void *p = s->free[c];
  if (p) {
    memcpy(&s->free[c], p, sizeof(void *));
    return p;
  }
  const size_t n = (size_t)1 << c;
  if (s->nregion == 0 || s->used + n > REGION) {
    if (s->nregion > 0 && s->cur + 1 < s->nregion) s->cur++;
    else {
      uint8_t **r = realloc(s->regions, sizeof(uint8_t *) * (s->nregion + 1));
      if (!r) return NULL;
      s->regions = r;
      if (!(r[s->nregion] = huge_alloc(REGION))) return NULL;
      s->cur = s->nregion++;
    }
    s->used = 0;
  }
  p = s->regions[s->cur] + s->used;
  s->used += n;
  return p;
}

static void slab_put(slab *s, void *p, int c) {
  memcpy(p, &s->free[c], sizeof(void *));
  s->free[c] = p;
}

/* Every block back, the regions kept for the next segment's terms. */
static void slab_reset(slab *s) {
  s->cur = 0;
  s->used = 0;
  memset(s->free, 0, sizeof(s->free));
}

static void slab_free(slab *s) {
  for (size_t i = 0; i < s->nregion; i++) free(s->regions[i]);
  free(s->regions);
}

/* --- the term table ---------------------------------------------------------------------- */

#define INLINE_KEY 16       /* a term's first bytes kept in its entry, so most lookups read one line */
#define CHUNK_BITS 15       /* entries are allocated 32,768 (2 MB) at a time (their addresses never move) */
#define CHUNK (1u << CHUNK_BITS)

typedef struct {
  uint8_t *data; /* the doclist */
  uint32_t n, cap;
  int64_t rowid; /* the last rowid written */
  uint32_t hash;
  uint32_t klen;  /* the term's length (without the prefix byte) */
  uint32_t sz_at; /* where the current poslist's size byte is (0: none open) */
  int32_t col, pos;
  uint32_t key; /* offset of the term in the key arena, its MAIN_PREFIX byte first */
  uint8_t head[INLINE_KEY];
} __attribute__((aligned(64))) entry;

/* Tokens of other scripts, their terms as the caller's analysis gave them (see nwax_fts_add). */
#define CHUNKS_MAX (1u << 16)   /* chunks remembered before the table starts again */
#define CHUNK_BYTES (16u << 20)  /* bytes of chunks and terms remembered before it starts again */

typedef struct {
  uint32_t hash, key, klen, val, vlen; /* key and terms in the arena */
} chunk;

typedef struct {
  uint32_t *slots; /* chunk index + 1 */
  uint32_t nslot;
  chunk *chunks;
  uint32_t n;
  fbuf arena;
} chunk_table;

struct nwax_fts {
  int ncol, pgsz;
  uint32_t *slots; /* entry index + 1, 0 empty */
  uint32_t nslot;
  entry **chunks;
  uint32_t nentry, nchunk;
  fbuf keys;
  slab doclists;
  int64_t pending;
  int64_t last_rowid;
  int any_row;
  /* the averages record */
  int64_t rows;
  int64_t *totals;
  int broken; /* an add failed part way */
  chunk_table analyzed;
  fbuf terms; /* a column's analysed terms */
  struct token *toks;
  size_t ntok, tok_cap;
};

static void chunks_clear(chunk_table *t) {
  if (t->slots) memset(t->slots, 0, t->nslot * sizeof(uint32_t));
  t->n = 0;
  t->arena.n = 0;
}

static void chunks_free(chunk_table *t) {
  free(t->slots);
  free(t->chunks);
  free(t->arena.p);
}

static inline entry *entry_at(const nwax_fts *f, uint32_t i) { return &f->chunks[i >> CHUNK_BITS][i & (CHUNK - 1)]; }

nwax_fts *nwax_fts_new(int ncol, int pgsz) {
  nwax_fts *f = calloc(1, sizeof(nwax_fts));
  if (!f) return NULL;
  f->ncol = ncol;
  f->pgsz = pgsz;
  f->nslot = 1 << 16;
  f->slots = huge_calloc(f->nslot * sizeof(uint32_t));
  f->totals = calloc((size_t)ncol, sizeof(int64_t));
  if (!f->slots || !f->totals) {
    nwax_fts_free(f);
    return NULL;
  }
  return f;
}

static void forget_terms(nwax_fts *f) {
  for (uint32_t i = 0; i < f->nentry; i++)
    if (entry_at(f, i)->cap > (1u << SLAB_MAX)) free(entry_at(f, i)->data);
  slab_reset(&f->doclists);
  f->nentry = 0;
  f->keys.n = 0;
  memset(f->slots, 0, f->nslot * sizeof(uint32_t));
  f->pending = 0;
}

void nwax_fts_free(nwax_fts *f) {
  if (!f) return;
  if (f->chunks) forget_terms(f);
  for (uint32_t i = 0; i < f->nchunk; i++) free(f->chunks[i]);
  free(f->chunks);
  free(f->slots);
  free(f->keys.p);
  free(f->totals);
  chunks_free(&f->analyzed);
  slab_free(&f->doclists);
  free(f->terms.p);
  free(f->toks);
  free(f);
}

static int grow_slots(nwax_fts *f) {
  uint32_t nslot = f->nslot * 2;
  uint32_t *slots = huge_calloc(nslot * sizeof(uint32_t));
  if (!slots) return 0;
  for (uint32_t i = 0; i < f->nentry; i++) {
    uint32_t s = entry_at(f, i)->hash & (nslot - 1);
    while (slots[s]) s = (s + 1) & (nslot - 1);
    slots[s] = i + 1;
  }
  free(f->slots);
  f->slots = slots;
  f->nslot = nslot;
  return 1;
}

/* The 8 bytes at p, those from n on cleared (n < 8); the caller's slack makes them readable. */
static inline uint64_t word_head(const uint8_t *p, size_t n) {
  uint64_t w;
  memcpy(&w, p, 8);
  return n >= 8 ? w : w & ((UINT64_C(1) << (8 * n)) - 1);
}

static int same_term(const nwax_fts *f, const entry *x, uint32_t h, const uint8_t *t, size_t n) {
  if (x->hash != h || x->klen != n) return 0;
  /* most terms are a few bytes: two words against the entry's zero-padded head */
  uint64_t a0, a1;
  memcpy(&a0, x->head, 8);
  memcpy(&a1, x->head + 8, 8);
  if (a0 != word_head(t, n) || (n > 8 && a1 != word_head(t + 8, n - 8))) return 0;
  return n <= INLINE_KEY || memcmp(f->keys.p + x->key + 1 + INLINE_KEY, t + INLINE_KEY, n - INLINE_KEY) == 0;
}

/* The entry of term t[0, n) (without its prefix byte) of hash h, made where there is none; NULL: no memory. */
static entry *entry_of(nwax_fts *f, uint32_t h, const uint8_t *t, size_t n, int *made) {
  uint32_t s = h & (f->nslot - 1);
  for (uint32_t e; (e = f->slots[s]) != 0; s = (s + 1) & (f->nslot - 1)) {
    entry *x = entry_at(f, e - 1);
    if (same_term(f, x, h, t, n)) {
      *made = 0;
      return x;
    }
  }
  if ((f->nentry + 1) * 2 > f->nslot) {
    if (!grow_slots(f)) return NULL;
    s = h & (f->nslot - 1);
    while (f->slots[s]) s = (s + 1) & (f->nslot - 1);
  }
  if ((f->nentry >> CHUNK_BITS) == f->nchunk) {
    entry **chunks = realloc(f->chunks, sizeof(entry *) * (f->nchunk + 1));
    if (!chunks) return NULL;
    f->chunks = chunks;
    entry *c = huge_alloc(sizeof(entry) * CHUNK);
    if (!c) return NULL;
    f->chunks[f->nchunk++] = c;
  }
  if (!fb_room(&f->keys, n + 1)) return NULL;
  entry *x = entry_at(f, f->nentry);
  memset(x, 0, sizeof(entry));
  x->key = (uint32_t)f->keys.n;
  x->klen = (uint32_t)n;
  x->hash = h;
  memcpy(x->head, t, n < INLINE_KEY ? n : INLINE_KEY);
  f->keys.p[f->keys.n++] = MAIN_PREFIX;
  memcpy(f->keys.p + f->keys.n, t, n);
  f->keys.n += n;
  f->slots[s] = ++f->nentry;
  f->pending += ENTRY_COST + (int64_t)n + 1;
  *made = 1;
  return x;
}

static int entry_room(slab *s, entry *x, size_t more) {
  if (x->n + more <= x->cap) return 1;
  const int c = size_class(x->n + more);
  if (c > SLAB_MAX) {
    /* past the slab's sizes: malloc'd, grown by doubling */
    size_t cap = x->cap > (1u << SLAB_MAX) ? x->cap : 0;
    uint8_t *old = cap ? NULL : x->data;
    uint8_t *p = cap ? x->data : NULL;
    if (!grow(&p, &cap, x->n + more, (size_t)1 << (SLAB_MAX + 1))) return 0;
    if (old) {
      memcpy(p, old, x->n);
      slab_put(s, old, size_class(x->cap));
    }
    x->data = p;
    x->cap = (uint32_t)cap;
    return 1;
  }
  uint8_t *p = slab_get(s, c);
  if (!p) return 0;
  if (x->n) memcpy(p, x->data, x->n);
  if (x->cap) slab_put(s, x->data, size_class(x->cap));
  x->data = p;
  x->cap = 1u << c;
  return 1;
}

/* The open poslist's size field: its bytes times two (no delete flag), as a varint in place. */
static inline void close_poslist(entry *x) {
  if (!x->sz_at) return;
  uint32_t nsz = x->n - x->sz_at - 1;
  uint32_t npos = nsz * 2;
  if (npos <= 127) x->data[x->sz_at] = (uint8_t)npos;
  else {
    int nb = varint_len(npos);
    memmove(x->data + x->sz_at + nb, x->data + x->sz_at + 1, nsz);
    put_varint(x->data + x->sz_at, npos);
    x->n += (uint32_t)(nb - 1);
  }
  x->sz_at = 0;
}

/* One token of row `rowid`, column `col`, at offset `pos`, as sqlite3Fts5HashWrite writes it. */
static int write_token(nwax_fts *f, int64_t rowid, int col, int pos, uint32_t h, const uint8_t *t, size_t n) {
  int made;
  entry *x = entry_of(f, h, t, n, &made);
  if (!x || !entry_room(&f->doclists, x, 9 + 4 + 1 + 3 + 5 + 9)) return 0;
  uint32_t before = x->n;
  if (made || x->rowid != rowid) {
    if (made) x->n += put_varint(x->data + x->n, (uint64_t)rowid);
    else {
      close_poslist(x);
      x->n += put_varint(x->data + x->n, (uint64_t)rowid - (uint64_t)x->rowid);
    }
    x->rowid = rowid;
    x->sz_at = x->n;
    x->data[x->n++] = 0;
    x->col = 0;
    x->pos = 0;
  }
  if (col != x->col) {
    x->data[x->n++] = 0x01;
    x->n += put_varint(x->data + x->n, (uint64_t)col);
    x->col = col;
    x->pos = 0;
  }
  x->n += put_varint(x->data + x->n, (uint64_t)(pos - x->pos + 2));
  x->pos = pos;
  f->pending += (int64_t)x->n - before;
  return 1;
}

/* FTS5's ascii tokenizer's token bytes (ASCII letters and digits, and every byte >= 0x80), and
 * each byte folded as it folds them (ASCII upper case to lower). Constant tables: the task
 * threads share them without a first writer. */
static const uint8_t TOKEN_BYTE[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

static const uint8_t FOLDED[256] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
    0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f,
    0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f,
    0x40, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f,
    0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,
    0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f,
    0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f,
    0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
    0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,
    0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
    0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf,
    0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,
    0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf,
    0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed, 0xee, 0xef,
    0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
};

/* A term's hash: eight bytes at a time, multiplied and folded (the term table's only hash); the
 * last word read whole and masked (the caller's slack makes it readable). */
static uint32_t term_hash(const uint8_t *p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  if (n) {
    h = (h ^ word_head(p, n)) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  h *= 0xc4ceb9fe1a85ec53ull;
  return (uint32_t)(h >> 32);
}

/* --- tokens of other scripts: analyzed once by the caller, their terms remembered --------- */

/* The terms remembered for chunk k[0, n), or NULL. */
static const chunk *chunk_get(const chunk_table *t, uint32_t h, const uint8_t *k, size_t n) {
  if (!t->slots) return NULL;
  for (uint32_t s = h & (t->nslot - 1), e; (e = t->slots[s]) != 0; s = (s + 1) & (t->nslot - 1)) {
    const chunk *c = &t->chunks[e - 1];
    if (c->hash == h && c->klen == n && memcmp(t->arena.p + c->key, k, n) == 0) return c;
  }
  return NULL;
}

static const chunk *chunk_put(chunk_table *t, uint32_t h, const uint8_t *k, size_t n, const uint8_t *v, size_t vn) {
  if (t->n >= CHUNKS_MAX || t->arena.n + n + vn > CHUNK_BYTES) chunks_clear(t);
  if (!t->slots) {
    t->nslot = 2 * CHUNKS_MAX;
    t->slots = calloc(t->nslot, sizeof(uint32_t));
    t->chunks = malloc(sizeof(chunk) * CHUNKS_MAX);
    if (!t->slots || !t->chunks) return NULL;
  }
  if (!fb_room(&t->arena, n + vn)) return NULL;
  chunk *c = &t->chunks[t->n];
  *c = (chunk){h, (uint32_t)t->arena.n, (uint32_t)n, (uint32_t)(t->arena.n + n), (uint32_t)vn};
  memcpy(t->arena.p + t->arena.n, k, n);
  if (vn) memcpy(t->arena.p + t->arena.n + n, v, vn);
  t->arena.n += n + vn;
  uint32_t s = h & (t->nslot - 1);
  while (t->slots[s]) s = (s + 1) & (t->nslot - 1);
  t->slots[s] = ++t->n;
  return c;
}

/* A token found and not yet written: its bytes (in the column's text, or in the terms an
 * analysis gave, which may move as they grow) and its hash. */
typedef struct token {
  uint32_t off, len, hash;
  uint32_t in_terms;
} token;

static int push_token(nwax_fts *f, uint32_t off, size_t len, uint32_t hash, int in_terms) {
  if (f->ntok == f->tok_cap) {
    size_t cap = f->tok_cap ? f->tok_cap * 2 : 4096;
    token *t = realloc(f->toks, cap * sizeof(token));
    if (!t) return 0;
    f->toks = t;
    f->tok_cap = cap;
  }
  f->toks[f->ntok++] = (token){off, (uint32_t)(len > MAX_TOKEN ? MAX_TOKEN : len), hash, (uint32_t)in_terms};
  return 1;
}

/* The ascii tokenizer over s[0, n) (the analyses' terms): each token folded in place and kept. */
static int terms_tokens(nwax_fts *f, size_t from) {
  uint8_t *s = f->terms.p;
  const size_t n = f->terms.n;
  size_t i = from;
  for (;;) {
    while (i < n && !TOKEN_BYTE[s[i]]) i++;
    if (i >= n) return 1;
    size_t e = i;
    do {
      s[e] = FOLDED[s[e]];
      e++;
    } while (e < n && TOKEN_BYTE[s[e]]);
    const size_t len = e - i > MAX_TOKEN ? MAX_TOKEN : e - i;
    if (!push_token(f, (uint32_t)i, len, term_hash(s + i, len), 1)) return 0;
    i = e + 1;
  }
}

/*
 * --- finding tokens 64 bytes at a time -------------------------------------------------------
 *
 * A byte at a time, the tokenizer's loops ended at every token's start and end, branches no
 * predictor learns (a token is ~5 bytes, then a space or two): half the kernel's time. The
 * token bytes of 64 at once are a bit mask, and each token's start and length are counted
 * from it; an ASCII token is folded and hashed a word at a time. A part of the bench corpus
 * (12.1M tokens): 29 -> 17 ns a token, the same tokens.
 */

/* Bit i of the result set where p[i] is a token byte (TOKEN_BYTE), of *high where p[i] > 0x7f;
 * p[0, 64) must be readable. */
static inline uint64_t token_bits(const uint8_t *p, uint64_t *high) {
  uint64_t m = 0, h = 0;
#ifdef __SSE2__
  const __m128i case_bit = _mm_set1_epi8(0x20), before_a = _mm_set1_epi8('a' - 1), after_z = _mm_set1_epi8('z' + 1);
  const __m128i before_0 = _mm_set1_epi8('0' - 1), after_9 = _mm_set1_epi8('9' + 1);
  for (int k = 0; k < 4; k++) {
    const __m128i c = _mm_loadu_si128((const __m128i *)(p + 16 * k));
    /* signed compares: a byte above 0x7f is negative, in neither range, and in the high mask */
    const __m128i lower = _mm_or_si128(c, case_bit);
    const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, before_a), _mm_cmplt_epi8(lower, after_z));
    const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(c, before_0), _mm_cmplt_epi8(c, after_9));
    const uint64_t hi = (uint32_t)_mm_movemask_epi8(c);
    m |= ((uint64_t)(uint32_t)_mm_movemask_epi8(_mm_or_si128(letter, digit)) | hi) << (16 * k);
    h |= hi << (16 * k);
  }
#else
  for (int i = 0; i < 64; i++) {
    m |= (uint64_t)TOKEN_BYTE[p[i]] << i;
    h |= (uint64_t)(p[i] >> 7) << i;
  }
#endif
  *high = h;
  return m;
}

/* An ASCII token p[0, len) folded in place (an ASCII letter or digit folds by setting 0x20, as
 * FOLDED folds it) and the hash of its first `cut` bytes. A word is written back only where it
 * changed, and then only the token's bytes differ (the caller's slack makes the last readable). */
static inline uint32_t fold_ascii(uint8_t *p, size_t len, size_t cut) {
  for (size_t k = 0; k < len; k += 8) {
    uint64_t w;
    memcpy(&w, p + k, 8);
    const uint64_t bits = len - k >= 8 ? UINT64_C(0x2020202020202020) : UINT64_C(0x2020202020202020) & ((UINT64_C(1) << (8 * (len - k))) - 1);
    if ((w | bits) != w) {
      w |= bits;
      memcpy(p + k, &w, 8);
    }
  }
  return term_hash(p, cut);
}

/* A token s[i, i + len) with bytes above 0x7f: the terms `analyze` gives for it (remembered per
 * chunk), or, without analyze, the token folded as FTS5 folds it (ASCII letters only). */
static int other_token(nwax_fts *f, uint8_t *s, size_t i, size_t len, nwax_fts_analyze analyze, void *ctx) {
  if (!analyze) {
    for (size_t k = i; k < i + len; k++) s[k] = FOLDED[s[k]];
    const size_t cut = len > MAX_TOKEN ? MAX_TOKEN : len;
    return push_token(f, (uint32_t)i, cut, term_hash(s + i, cut), 0);
  }
  const uint32_t h = term_hash(s + i, len);
  const chunk *ch = chunk_get(&f->analyzed, h, s + i, len);
  if (!ch) {
    size_t tn;
    const uint8_t *terms = analyze(ctx, s + i, len, &tn);
    if (!terms || !(ch = chunk_put(&f->analyzed, h, s + i, len, terms, tn))) return 0;
  }
  /* the terms, copied out of the table (tokenizing folds in place), a separator before */
  const size_t from = f->terms.n;
  if (!fb_room(&f->terms, ch->vlen + 1 + NWAX_FTS_SLACK)) return 0;
  f->terms.p[f->terms.n++] = ' ';
  memcpy(f->terms.p + f->terms.n, f->analyzed.arena.p + ch->val, ch->vlen);
  f->terms.n += ch->vlen;
  return terms_tokens(f, from);
}

/*
 * The tokens of column text s[0, n) into f->toks (see nwax_fts_add): fts5AsciiTokenize's runs
 * of token bytes, found in the bit mask of each 64 bytes. A token that reaches a block's end is
 * followed on a byte at a time (one in ~10), and the blocks it covered are skipped.
 */
static int column_tokens(nwax_fts *f, uint8_t *s, size_t n, nwax_fts_analyze analyze, void *ctx) {
  f->ntok = 0;
  f->terms.n = 0;
  size_t resume = 0; /* where the last token that ran past its block ended */
  for (size_t base = 0; base < n; base += 64) {
    if (resume >= base + 64) continue;
    uint64_t high, m = token_bits(s + base, &high);
    if (n - base < 64) {
      const uint64_t in_text = (UINT64_C(1) << (n - base)) - 1;
      m &= in_text;
      high &= in_text;
    }
    if (resume > base) m &= ~UINT64_C(0) << (resume - base);
    while (m) {
      const unsigned b = (unsigned)__builtin_ctzll(m);
      const uint64_t after = ~(m >> b); /* zero while the token runs */
      const unsigned run = after ? (unsigned)__builtin_ctzll(after) : 64;
      size_t e = base + b + run;
      int other;
      if (b + run == 64) {
        other = (high >> b) != 0;
        while (e < n && TOKEN_BYTE[s[e]]) other |= s[e++] >> 7;
        m = 0;
        resume = e;
      } else {
        other = ((high >> b) & ((UINT64_C(1) << run) - 1)) != 0;
        m &= ~UINT64_C(0) << (b + run);
      }
      const size_t i = base + b, len = e - i;
      if (other) {
        if (!other_token(f, s, i, len, analyze, ctx)) return 0;
      } else {
        const size_t cut = len > MAX_TOKEN ? MAX_TOKEN : len;
        if (!push_token(f, (uint32_t)i, cut, fold_ascii(s + i, len, cut), 0)) return 0;
      }
    }
  }
  return 1;
}

/*
 * The column's tokens written in order, the memory each will touch asked for ahead: its slot
 * PREFETCH_SLOT tokens before, its entry PREFETCH_ENTRY before, the end of its doclist
 * PREFETCH_DATA before. The table's lines are mostly out of the core's cache (a part's terms
 * and doclists are tens of MB), and a token's lookup waited on each in turn. Prefetches only
 * read: a term made by an earlier token of the window is found when the token is written.
 */
#define PREFETCH_SLOT 24
#define PREFETCH_ENTRY 12
#define PREFETCH_DATA 4

static int write_column(nwax_fts *f, int64_t rowid, int c, const uint8_t *s) {
  const size_t n = f->ntok;
  const token *t = f->toks;
  for (size_t i = 0; i < n; i++) {
    const uint32_t mask = f->nslot - 1; /* the table grows as terms are made */
    if (i + PREFETCH_SLOT < n) __builtin_prefetch(&f->slots[t[i + PREFETCH_SLOT].hash & mask]);
    if (i + PREFETCH_ENTRY < n) {
      const uint32_t e = f->slots[t[i + PREFETCH_ENTRY].hash & mask];
      if (e) __builtin_prefetch(entry_at(f, e - 1));
    }
    if (i + PREFETCH_DATA < n) {
      const token *k = &t[i + PREFETCH_DATA];
      const uint32_t e = f->slots[k->hash & mask];
      if (e) {
        const entry *x = entry_at(f, e - 1);
        if (x->hash == k->hash) __builtin_prefetch(x->data + x->n, 1);
      }
    }
    const uint8_t *base = t[i].in_terms ? f->terms.p : s;
    if (!write_token(f, rowid, c, (int)i, t[i].hash, base + t[i].off, t[i].len)) return 0;
  }
  return 1;
}

int nwax_fts_add(nwax_fts *f, int64_t rowid, uint8_t *const *texts, const size_t *lens, nwax_fts_analyze analyze, void *ctx, uint8_t *docsize) {
  if (f->broken || (f->any_row && rowid <= f->last_rowid)) return -1;
  f->any_row = 1;
  f->last_rowid = rowid;
  int ds = 0;
  for (int c = 0; c < f->ncol; c++) {
    /* fts5AsciiTokenize: a separator run, then a token run; the byte after a token is skipped.
     * A token of ASCII letters and digits is folded to lower case in place; one with bytes
     * above 0x7f (analyze given) is the caller's analysis's terms, each a token as FTS5 would
     * cut that text. */
    if (!column_tokens(f, texts[c], lens[c], analyze, ctx) || !write_column(f, rowid, c, texts[c])) goto fail;
    ds += put_varint(docsize + ds, (uint64_t)f->ntok);
    f->totals[c] += (int64_t)f->ntok;
  }
  f->rows++;
  return ds;
fail:
  /* part of the row is in the doclists: nothing more can be added */
  f->broken = 1;
  return -1;
}

int64_t nwax_fts_pending(const nwax_fts *f) { return f->pending; }

/* --- the segment writer (fts5FlushOneHash and the fts5Write* functions) -------------------- */

typedef struct {
  fbuf buf;
  int32_t pgno;
  int prev_valid;
  int64_t prev;
} dlidx;

typedef struct {
  fbuf *out;
  int segid, pgsz;
  int ok;
  /* the leaf being written */
  fbuf page, pgidx, term;
  int32_t prev_pgidx, pgno;
  int first_term_in_page, first_rowid_in_page;
  /* the b-tree term of leaf bt_page, written to %_idx when its doclist ends */
  fbuf btterm;
  int32_t bt_page;
  int empty; /* leaves since the last with a term */
  dlidx *dl;
  int ndl;
} writer;

static int64_t data_rowid(int segid, int dlidx_flag, int height, int64_t pgno) {
  return ((int64_t)segid << (31 + 5 + 1)) + ((int64_t)dlidx_flag << (31 + 5)) + ((int64_t)height << 31) + pgno;
}

static void put_u16(uint8_t *p, unsigned v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

static void put_u32le(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_i64le(uint8_t *p, int64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

static void emit_data(writer *w, int64_t rowid, const uint8_t *p, size_t n) {
  if (!w->ok || !fb_room(w->out, 13 + n)) {
    w->ok = 0;
    return;
  }
  uint8_t *o = w->out->p + w->out->n;
  o[0] = 'D';
  put_i64le(o + 1, rowid);
  put_u32le(o + 9, (uint32_t)n);
  memcpy(o + 13, p, n);
  w->out->n += 13 + n;
}

static void emit_idx(writer *w, const uint8_t *term, size_t n, int64_t pgno) {
  if (!w->ok || !fb_room(w->out, 17 + n)) {
    w->ok = 0;
    return;
  }
  uint8_t *o = w->out->p + w->out->n;
  o[0] = 'I';
  put_u32le(o + 1, (uint32_t)w->segid);
  put_u32le(o + 5, (uint32_t)n);
  if (n) memcpy(o + 9, term, n);
  put_i64le(o + 9 + n, pgno);
  w->out->n += 17 + n;
}

static void wvarint(writer *w, fbuf *b, uint64_t v) {
  if (!fb_varint(b, v)) w->ok = 0;
}

static void wblob(writer *w, fbuf *b, const void *p, size_t n) {
  if (!fb_blob(b, p, n)) w->ok = 0;
}

static void dlidx_grow(writer *w, int nlvl) {
  if (nlvl < w->ndl) return;
  dlidx *d = realloc(w->dl, sizeof(dlidx) * (size_t)nlvl);
  if (!d) {
    w->ok = 0;
    return;
  }
  memset(d + w->ndl, 0, sizeof(dlidx) * (size_t)(nlvl - w->ndl));
  w->dl = d;
  w->ndl = nlvl;
}

static void dlidx_clear(writer *w, int flush) {
  for (int i = 0; i < w->ndl; i++) {
    dlidx *d = &w->dl[i];
    if (d->buf.n == 0) break;
    if (flush) emit_data(w, data_rowid(w->segid, 1, i, d->pgno), d->buf.p, d->buf.n);
    d->buf.n = 0;
    d->prev_valid = 0;
  }
}

static int flush_dlidx(writer *w) {
  int flag = w->dl[0].buf.n > 0 && w->empty >= MIN_DLIDX;
  dlidx_clear(w, flag);
  w->empty = 0;
  return flag;
}

static void flush_btree(writer *w) {
  if (w->bt_page == 0) return;
  int flag = flush_dlidx(w);
  emit_idx(w, w->btterm.p, w->btterm.n, flag + ((int64_t)w->bt_page << 1));
  w->bt_page = 0;
}

static void btree_term(writer *w, size_t n, const uint8_t *t) {
  flush_btree(w);
  w->btterm.n = 0;
  wblob(w, &w->btterm, t, n);
  w->bt_page = w->pgno;
}

static void btree_noterm(writer *w) {
  if (w->first_rowid_in_page && w->dl[0].buf.n > 0) wvarint(w, &w->dl[0].buf, 0);
  w->empty++;
}

static int64_t dlidx_first_rowid(const fbuf *b) {
  uint64_t v;
  int off = 1 + get_varint(b->p + 1, &v);
  get_varint(b->p + off, &v);
  return (int64_t)v;
}

static void dlidx_append(writer *w, int64_t rowid) {
  int done = 0;
  for (int i = 0; w->ok && !done; i++) {
    dlidx *d = &w->dl[i];
    uint64_t val;
    if (d->buf.n >= (size_t)w->pgsz) {
      d->buf.p[0] = 0x01; /* not the root */
      emit_data(w, data_rowid(w->segid, 1, i, d->pgno), d->buf.p, d->buf.n);
      dlidx_grow(w, i + 2);
      if (!w->ok) return;
      d = &w->dl[i];
      if (d[1].buf.n == 0) {
        int64_t first = dlidx_first_rowid(&d->buf);
        d[1].pgno = d->pgno;
        wvarint(w, &d[1].buf, 0);
        wvarint(w, &d[1].buf, (uint64_t)d->pgno);
        wvarint(w, &d[1].buf, (uint64_t)first);
        d[1].prev_valid = 1;
        d[1].prev = first;
      }
      d->buf.n = 0;
      d->prev_valid = 0;
      d->pgno++;
    } else done = 1;
    if (d->prev_valid) val = (uint64_t)rowid - (uint64_t)d->prev;
    else {
      int64_t pg = i == 0 ? w->pgno : d[-1].pgno;
      wvarint(w, &d->buf, (uint64_t)!done);
      wvarint(w, &d->buf, (uint64_t)pg);
      val = (uint64_t)rowid;
    }
    wvarint(w, &d->buf, val);
    d->prev_valid = 1;
    d->prev = rowid;
  }
}

static void flush_leaf(writer *w) {
  static const uint8_t zero[4] = {0, 0, 0, 0};
  put_u16(w->page.p + 2, (unsigned)w->page.n);
  if (w->first_term_in_page) btree_noterm(w);
  else wblob(w, &w->page, w->pgidx.p, w->pgidx.n);
  emit_data(w, data_rowid(w->segid, 0, 0, w->pgno), w->page.p, w->page.n);
  w->page.n = 0;
  w->pgidx.n = 0;
  wblob(w, &w->page, zero, 4);
  w->prev_pgidx = 0;
  w->pgno++;
  w->first_term_in_page = 1;
  w->first_rowid_in_page = 1;
}

static size_t common_prefix(size_t n, const uint8_t *a, const uint8_t *b) {
  size_t i = 0;
  while (i < n && a[i] == b[i]) i++;
  return i;
}

static void append_term(writer *w, size_t nterm, const uint8_t *t) {
  size_t nmin = w->term.n < nterm ? w->term.n : nterm;
  size_t nprefix;
  if (w->page.n + w->pgidx.n + nterm + 2 >= (size_t)w->pgsz && w->page.n > 4) flush_leaf(w);
  wvarint(w, &w->pgidx, (uint64_t)(w->page.n - (size_t)w->prev_pgidx));
  w->prev_pgidx = (int32_t)w->page.n;
  if (w->first_term_in_page) {
    nprefix = 0;
    if (w->pgno != 1) {
      /* the b-tree's key of this leaf: the shortest prefix of the term past the last one */
      size_t n = nterm;
      if (w->term.n) n = 1 + common_prefix(nmin, w->term.p, t);
      btree_term(w, n, t);
    }
  } else {
    nprefix = common_prefix(nmin, w->term.p, t);
    wvarint(w, &w->page, nprefix);
  }
  wvarint(w, &w->page, nterm - nprefix);
  wblob(w, &w->page, t + nprefix, nterm - nprefix);
  w->term.n = 0;
  wblob(w, &w->term, t, nterm);
  w->first_term_in_page = 0;
  w->first_rowid_in_page = 0;
  w->dl[0].pgno = w->pgno;
}

/* fts5PoslistPrefix: the whole varints of a[] that fit in max bytes (the first one always). */
static size_t poslist_prefix(const uint8_t *a, long max) {
  uint64_t v;
  long ret = get_varint(a, &v);
  if (ret < max) {
    for (;;) {
      int i = get_varint(a + ret, &v);
      if (ret + i > max) break;
      ret += i;
    }
  }
  return (size_t)ret;
}

/* One term's doclist d[0, n) after its term, as fts5FlushOneHash lays it (no secure-delete). */
static void append_doclist(writer *w, const uint8_t *d, size_t n) {
  const size_t pgsz = (size_t)w->pgsz;
  if (pgsz >= w->page.n + w->pgidx.n + n + 1) {
    wblob(w, &w->page, d, n);
    return;
  }
  int64_t rowid = 0, prev = 0;
  size_t off = 0;
  while (w->ok && off < n) {
    uint64_t delta;
    off += get_varint(d + off, &delta);
    rowid += (int64_t)delta;
    if (w->first_rowid_in_page) {
      put_u16(w->page.p, (unsigned)w->page.n); /* the first rowid on the leaf */
      wvarint(w, &w->page, (uint64_t)rowid);
      w->first_rowid_in_page = 0;
      dlidx_append(w, rowid);
    } else wvarint(w, &w->page, (uint64_t)rowid - (uint64_t)prev);
    prev = rowid;
    uint64_t sz;
    size_t ncopy = get_varint(d + off, &sz);
    ncopy += sz >> 1;
    if (w->page.n + w->pgidx.n + ncopy <= pgsz) wblob(w, &w->page, d + off, ncopy);
    else {
      /* split between leaves, each varint whole */
      const uint8_t *pl = d + off;
      size_t at = 0;
      while (w->ok) {
        long space = (long)pgsz - (long)w->page.n - (long)w->pgidx.n;
        size_t k = (long)(ncopy - at) <= space ? ncopy - at : poslist_prefix(pl + at, space);
        wblob(w, &w->page, pl + at, k);
        at += k;
        if (w->page.n + w->pgidx.n >= pgsz) flush_leaf(w);
        if (at >= ncopy) break;
      }
    }
    off += ncopy;
  }
}

/* A term to sort: its bytes and the entry it is of. */
typedef struct {
  const uint8_t *key;
  uint32_t klen, entry;
} sort_key;

static int by_term(const void *a, const void *b) {
  const sort_key *x = a, *y = b;
  uint32_t n = x->klen < y->klen ? x->klen : y->klen;
  int c = memcmp(x->key, y->key, n);
  return c ? c : (int)x->klen - (int)y->klen;
}

int nwax_fts_flush(nwax_fts *f, int segid, uint8_t **out, size_t *out_n) {
  *out = NULL;
  *out_n = 0;
  if (f->nentry == 0) return 0;
  sort_key *order = malloc(sizeof(sort_key) * f->nentry);
  if (!order) return -1;
  for (uint32_t i = 0; i < f->nentry; i++) order[i] = (sort_key){f->keys.p + entry_at(f, i)->key, entry_at(f, i)->klen + 1, i};
  qsort(order, f->nentry, sizeof(sort_key), by_term);
  fbuf result = {0};
  writer w = {0};
  w.out = &result;
  w.ok = 1;
  w.segid = segid;
  w.pgsz = f->pgsz;
  w.pgno = 1;
  w.first_term_in_page = 1;
  w.bt_page = 1;
  dlidx_grow(&w, 1);
  static const uint8_t zero[4] = {0, 0, 0, 0};
  wblob(&w, &w.page, zero, 4);
  for (uint32_t i = 0; i < f->nentry && w.ok; i++) {
    entry *x = entry_at(f, order[i].entry);
    close_poslist(x);
    append_term(&w, x->klen + 1, f->keys.p + x->key);
    append_doclist(&w, x->data, x->n);
  }
  /* fts5WriteFinish */
  if (w.page.n > 4) flush_leaf(&w);
  if (w.pgno > 1) flush_btree(&w);
  for (int i = 0; i < w.ndl; i++) free(w.dl[i].buf.p);
  free(w.dl);
  free(w.page.p);
  free(w.pgidx.p);
  free(w.term.p);
  free(w.btterm.p);
  free(order);
  if (!w.ok) {
    free(result.p);
    return -1;
  }
  forget_terms(f);
  *out = result.p;
  *out_n = result.n;
  return 0;
}

size_t nwax_fts_averages(const nwax_fts *f, uint8_t *out) {
  size_t n = put_varint(out, (uint64_t)f->rows);
  for (int c = 0; c < f->ncol; c++) n += put_varint(out + n, (uint64_t)f->totals[c]);
  return n;
}
