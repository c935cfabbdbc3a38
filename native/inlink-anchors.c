/* A URL's inlinks' count and distinct anchors from their JSON bytes (inlink-anchors.h says why). */
#include "inlink-anchors.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static const char OPEN[] = "{\"inlinks\":[";
static const char FROM[] = "{\"from\":\"";
static const char THEN_ANCHOR[] = ",\"anchor\":\"";
#define LEN(s) (sizeof(s) - 1)

static int bytes_at(const uint8_t *b, size_t at, size_t n, const char *what, size_t len) {
  return at + len <= n && memcmp(b + at, what, len) == 0;
}

/*
 * The end (after its closing quote) of the JSON string whose first character is at b[from],
 * or 0 where a backslash or a raw control character comes first (its bytes are not then its
 * text), or no quote comes before `to`. Sixteen bytes at a time where SSE2 is.
 */
static size_t plain_string_end(const uint8_t *b, size_t from, size_t to) {
  size_t i = from;
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), controls = _mm_set1_epi8(0x1f);
  for (; i + 16 <= to; i += 16) {
    const __m128i x = _mm_loadu_si128((const __m128i *)(b + i));
    // A byte <= 0x1f is one whose unsigned max with 0x1f is 0x1f.
    const __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)), _mm_cmpeq_epi8(_mm_max_epu8(x, controls), controls));
    const unsigned mask = (unsigned)_mm_movemask_epi8(special);
    if (mask) {
      const size_t at = i + (size_t)__builtin_ctz(mask);
      return b[at] == '"' ? at + 1 : 0;
    }
  }
#endif
  for (; i < to; i++) {
    const uint8_t c = b[i];
    if (c == '"') return i + 1;
    if (c < 0x20 || c == '\\') return 0;
  }
  return 0;
}

/* The open-addressing table that finds an anchor seen before: indexes into spans, plus one (0: empty). Per thread, grown as needed. */
static _Thread_local uint32_t *seen;
static _Thread_local size_t seen_cap;

static uint32_t hash_bytes(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

ptrdiff_t nwax_inlink_anchors(const uint8_t *b, size_t n, int32_t *spans, size_t cap, size_t *distinct) {
  *distinct = 0;
  if (n < LEN(OPEN) + 2 || !bytes_at(b, 0, n, OPEN, LEN(OPEN)) || b[n - 2] != ']' || b[n - 1] != '}') return NWAX_INLINKS_OTHER;
  const size_t close = n - 2;
  size_t i = LEN(OPEN);
  if (i == close) return 0;
  // Room for twice the inlinks the value can hold (each is 23 bytes at the least).
  size_t want = 16;
  while (want < 2 * (n / 23 + 1)) want <<= 1;
  if (want > seen_cap) {
    uint32_t *grown = realloc(seen, want * sizeof *seen);
    if (!grown) return NWAX_INLINKS_OTHER;
    seen = grown;
    seen_cap = want;
  }
  memset(seen, 0, want * sizeof *seen);
  const size_t mask = want - 1;
  ptrdiff_t count = 0;
  size_t d = 0;
  for (;;) {
    if (!bytes_at(b, i, close, FROM, LEN(FROM))) return NWAX_INLINKS_OTHER;
    i = plain_string_end(b, i + LEN(FROM), close);
    if (!i || !bytes_at(b, i, close, THEN_ANCHOR, LEN(THEN_ANCHOR))) return NWAX_INLINKS_OTHER;
    const size_t a = i + LEN(THEN_ANCHOR);
    i = plain_string_end(b, a, close);
    if (!i || i >= close || b[i] != '}') return NWAX_INLINKS_OTHER;
    const size_t len = i - 1 - a;
    if (len > 0) {
      size_t slot = hash_bytes(b + a, len) & mask;
      for (;; slot = (slot + 1) & mask) {
        const uint32_t k = seen[slot];
        if (!k) {
          if (d == cap) return NWAX_INLINKS_ROOM;
          spans[2 * d] = (int32_t)a;
          spans[2 * d + 1] = (int32_t)(i - 1);
          seen[slot] = (uint32_t)++d;
          break;
        }
        const size_t s = (size_t)spans[2 * (k - 1)], e = (size_t)spans[2 * (k - 1) + 1];
        if (e - s == len && memcmp(b + s, b + a, len) == 0) break;
      }
    }
    count++;
    i++;
    if (i == close) break;
    if (b[i] != ',') return NWAX_INLINKS_OTHER;
    i++;
  }
  *distinct = d;
  return count;
}
