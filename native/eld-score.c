/*
 * eld's n-gram scoring (eld-score.h), step for step as src/analysis/eld-scorer.ts writes it:
 * words as utf8Words makes them, n-grams as its loop cuts them (quirks included), each
 * distinct one scored once. Strings are compared as eld's are, character by character, a
 * character being a byte here (eld's dictionary and n-grams hold codes 0..255 only).
 */
#include "eld-score.h"

#include <stdlib.h>
#include <string.h>

struct nwax_eld {
  uint8_t *keys;
  int32_t *key_at;
  int32_t *weights;
  int32_t *w_at;
  /* Open addressing: slot = n-gram number + 1, 0 empty. */
  uint32_t *slots;
  uint32_t mask;
  uint8_t dict[256];
  int languages;
};

/* FNV-1a over an n-gram's characters: the optional leading space, bytes, optional trailing space. */
static uint32_t hash_gram(int lead, const uint8_t *p, size_t n, int trail) {
  uint32_t h = 2166136261u;
  if (lead) h = (h ^ 0x20) * 16777619u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  if (trail) h = (h ^ 0x20) * 16777619u;
  return h;
}

/* Character i of the n-gram (lead, p[0, n), trail): its spaces are characters like any other. */
static inline uint8_t gram_char(int lead, const uint8_t *p, size_t n, size_t i) {
  if (lead) {
    if (i == 0) return 0x20;
    i--;
  }
  return i < n ? p[i] : 0x20;
}

/*
 * Whether two n-grams are the same string. Flags alone do not tell: a byte of a word may be
 * written as a space (eld's dictionary has several), so " ab" may be a word's own characters.
 */
static int same_gram(int lead, const uint8_t *p, size_t n, int trail, int lead2, const uint8_t *p2, size_t n2, int trail2) {
  const size_t len = n + (size_t)lead + (size_t)trail;
  if (len != n2 + (size_t)lead2 + (size_t)trail2) return 0;
  if (lead == lead2 && trail == trail2) return memcmp(p, p2, n) == 0;
  for (size_t i = 0; i < len; i++)
    if (gram_char(lead, p, n, i) != gram_char(lead2, p2, n2, i)) return 0;
  return 1;
}

/* Whether key k of the table is the n-gram (lead, p[0, n), trail). */
static int key_is(const nwax_eld *t, uint32_t k, int lead, const uint8_t *p, size_t n, int trail) {
  return same_gram(0, t->keys + t->key_at[k], (size_t)(t->key_at[k + 1] - t->key_at[k]), 0, lead, p, n, trail);
}

nwax_eld *nwax_eld_new(const uint8_t *keys, const int32_t *key_at, const int32_t *weights, const int32_t *w_at, uint32_t count,
                       const uint8_t *dict, int languages) {
  nwax_eld *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  uint32_t size = 1024;
  while (size < 2 * count) size *= 2;
  const size_t key_bytes = (size_t)key_at[count], w_count = (size_t)w_at[count];
  t->keys = malloc(key_bytes ? key_bytes : 1);
  t->key_at = malloc((count + 1) * sizeof *t->key_at);
  t->weights = malloc((w_count ? w_count : 1) * sizeof *t->weights);
  t->w_at = malloc((count + 1) * sizeof *t->w_at);
  t->slots = calloc(size, sizeof *t->slots);
  if (!t->keys || !t->key_at || !t->weights || !t->w_at || !t->slots) {
    nwax_eld_free(t);
    return NULL;
  }
  memcpy(t->keys, keys, key_bytes);
  memcpy(t->key_at, key_at, (count + 1) * sizeof *t->key_at);
  memcpy(t->weights, weights, w_count * sizeof *t->weights);
  memcpy(t->w_at, w_at, (count + 1) * sizeof *t->w_at);
  memcpy(t->dict, dict, 256);
  t->mask = size - 1;
  t->languages = languages;
  for (size_t i = 0; i < w_count; i += 2)
    if (weights[i] < 0 || weights[i] >= languages) {
      nwax_eld_free(t);
      return NULL;
    }
  for (uint32_t k = 0; k < count; k++) {
    const uint8_t *key = keys + key_at[k];
    const size_t len = (size_t)(key_at[k + 1] - key_at[k]);
    uint32_t at = hash_gram(0, key, len, 0) & t->mask;
    while (t->slots[at]) at = (at + 1) & t->mask;
    t->slots[at] = k + 1;
  }
  return t;
}

void nwax_eld_free(nwax_eld *t) {
  if (!t) return;
  free(t->keys);
  free(t->key_at);
  free(t->weights);
  free(t->w_at);
  free(t->slots);
  free(t);
}

int nwax_eld_languages(const nwax_eld *t) { return t->languages; }

/* utf8Words stops past 380 bytes, so a text's words never hold more (and one character). */
#define MAX_BYTES 400
/* At most one n-gram per 3 bytes of a word plus one per word: well under this. */
#define SEEN_SLOTS 1024

typedef struct {
  uint32_t hash;
  uint16_t start, len;
  uint8_t lead, trail;
} gram;

/* The words of s as utf8Words makes them, their characters into out; word w is out[at[2w], at[2w + 1]). */
static size_t words_of(const nwax_eld *t, const uint16_t *s, size_t n, uint8_t *out, uint16_t *at, size_t *words) {
  size_t used = 0, count = 0, w = 0, start = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = s[i];
    if (c < 0x80) {
      if (c == 32) {
        if (used > start) {
          at[2 * w] = (uint16_t)start;
          at[2 * w + 1] = (uint16_t)used;
          w++;
          start = used;
        }
        if (count > 350) break;
      } else {
        out[used++] = (uint8_t)c;
      }
      count++;
    } else if (c < 0x800) {
      out[used++] = t->dict[0xc0 | (c >> 6)];
      out[used++] = t->dict[0x80 | (c & 0x3f)];
      count += 2;
    } else if (c < 0xd800 || c >= 0xe000) {
      out[used++] = t->dict[0xe0 | (c >> 12)];
      out[used++] = t->dict[0x80 | ((c >> 6) & 0x3f)];
      out[used++] = t->dict[0x80 | (c & 0x3f)];
      count += 3;
    } else {
      /* Any surrogate starts a pair, as eld reads one; past the end, charCodeAt's NaN is 0. */
      i++;
      const uint32_t low = i < n ? s[i] : 0;
      c = 0x10000 + (((c & 0x3ff) << 10) | (low & 0x3ff));
      out[used++] = t->dict[0xf0 | (c >> 18)];
      out[used++] = t->dict[0x80 | ((c >> 12) & 0x3f)];
      out[used++] = t->dict[0x80 | ((c >> 6) & 0x3f)];
      out[used++] = t->dict[0x80 | (c & 0x3f)];
      count += 4;
    }
    if (count > 380) break;
  }
  if (used > start) {
    at[2 * w] = (uint16_t)start;
    at[2 * w + 1] = (uint16_t)used;
    w++;
  }
  *words = w;
  return used;
}

uint32_t nwax_eld_score(const nwax_eld *t, const uint16_t *s, size_t n, double *scores) {
  uint8_t text[MAX_BYTES];
  uint16_t at[2 * MAX_BYTES];
  size_t words;
  words_of(t, s, n, text, at, &words);
  gram seen[SEEN_SLOTS];
  uint8_t used[SEEN_SLOTS];
  memset(used, 0, sizeof used);
  uint32_t distinct = 0;
  int64_t sums[256];
  memset(sums, 0, sizeof sums);
  for (size_t w = 0; w < words; w++) {
    const size_t ws = at[2 * w], wlen = at[2 * w + 1] - ws;
    const size_t len = wlen < 70 ? wlen : 70;
    size_t j = 0;
    for (int last = 0; !last;) {
      gram g;
      if (j + 4 < len) {
        g.start = (uint16_t)(ws + j);
        g.len = 4;
        g.lead = j == 0;
        g.trail = 0;
      } else {
        /* word.substring(len !== 3 ? len - 4 : 0): to the end of the word, not of the first 70. */
        const size_t from = len != 3 && len >= 4 ? len - 4 : 0;
        g.start = (uint16_t)(ws + from);
        g.len = (uint16_t)(wlen - from);
        g.lead = j == 0;
        g.trail = 1;
        last = 1;
      }
      j += 3;
      g.hash = hash_gram(g.lead, text + g.start, g.len, g.trail);
      uint32_t slot = g.hash & (SEEN_SLOTS - 1);
      int dup = 0;
      while (used[slot]) {
        const gram *o = &seen[slot];
        if (o->hash == g.hash && same_gram(o->lead, text + o->start, o->len, o->trail, g.lead, text + g.start, g.len, g.trail)) {
          dup = 1;
          break;
        }
        slot = (slot + 1) & (SEEN_SLOTS - 1);
      }
      if (dup) continue;
      used[slot] = 1;
      seen[slot] = g;
      distinct++;
      for (uint32_t k = g.hash & t->mask; t->slots[k]; k = (k + 1) & t->mask) {
        const uint32_t key = t->slots[k] - 1;
        if (key_is(t, key, g.lead, text + g.start, g.len, g.trail)) {
          for (int32_t i = t->w_at[key]; i < t->w_at[key + 1]; i += 2) sums[t->weights[i]] += t->weights[i + 1];
          break;
        }
      }
    }
  }
  for (int l = 0; l < t->languages; l++) scores[l] = (double)sums[l];
  return distinct;
}
