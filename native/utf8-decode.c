/* The WHATWG UTF-8 decoder (https://encoding.spec.whatwg.org/#utf-8-decoder), over a whole buffer. */
#include "utf8-decode.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h> /* x86-64's baseline: every x86-64 machine has it */
#endif

size_t nwax_utf8_decode(const uint8_t *s, size_t n, size_t bom_at, uint16_t *out) {
  size_t o = 0, i = 0;
  if (bom_at != SIZE_MAX && bom_at <= n && n - bom_at >= 3 && s[bom_at] == 0xef && s[bom_at + 1] == 0xbb && s[bom_at + 2] == 0xbf) {
    /* The ASCII before the stream, then the stream past its BOM. */
    for (; i < bom_at; i++) out[o++] = s[i];
    i += 3;
  }
  uint32_t cp = 0;
  int needed = 0, seen = 0;
  uint8_t lower = 0x80, upper = 0xbf;
  while (i < n) {
    const uint8_t b = s[i];
    if (needed == 0) {
      i++;
      if (b < 0x80) {
        out[o++] = b;
        /* A run of ASCII, sixteen bytes then eight at a time while none has its high bit. */
#ifdef __SSE2__
        const __m128i zero = _mm_setzero_si128();
        while (i + 16 <= n) {
          const __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
          if (_mm_movemask_epi8(v)) break;
          _mm_storeu_si128((__m128i *)(out + o), _mm_unpacklo_epi8(v, zero));
          _mm_storeu_si128((__m128i *)(out + o + 8), _mm_unpackhi_epi8(v, zero));
          o += 16;
          i += 16;
        }
#endif
        while (i + 8 <= n) {
          uint64_t w;
          memcpy(&w, s + i, 8);
          if (w & 0x8080808080808080ull) break;
          for (int k = 0; k < 8; k++) out[o + k] = s[i + k];
          o += 8;
          i += 8;
        }
      } else if (b >= 0xc2 && b <= 0xdf) {
        needed = 1;
        cp = b & 0x1f;
      } else if (b >= 0xe0 && b <= 0xef) {
        if (b == 0xe0) lower = 0xa0;
        if (b == 0xed) upper = 0x9f;
        needed = 2;
        cp = b & 0xf;
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (b == 0xf0) lower = 0x90;
        if (b == 0xf4) upper = 0x8f;
        needed = 3;
        cp = b & 0x7;
      } else {
        out[o++] = 0xfffd;
      }
      continue;
    }
    if (b < lower || b > upper) {
      /* The subpart so far is one error; the byte is read again as a sequence's first. */
      cp = 0;
      needed = seen = 0;
      lower = 0x80;
      upper = 0xbf;
      out[o++] = 0xfffd;
      continue;
    }
    i++;
    lower = 0x80;
    upper = 0xbf;
    cp = (cp << 6) | (b & 0x3f);
    if (++seen < needed) continue;
    if (cp > 0xffff) {
      out[o++] = (uint16_t)(0xd800 + ((cp - 0x10000) >> 10));
      out[o++] = (uint16_t)(0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else {
      out[o++] = (uint16_t)cp;
    }
    cp = 0;
    needed = seen = 0;
  }
  if (needed) out[o++] = 0xfffd;
  return o;
}
