#include "json-string.h"
#include <string.h>

static int high(uint16_t c) { return c >= 0xd800 && c <= 0xdbff; }
static int low(uint16_t c) { return c >= 0xdc00 && c <= 0xdfff; }

/* The short escapes JSON.stringify uses for control characters (0: \u00xx). */
static char short_escape(uint16_t c) {
  switch (c) {
    case 0x08: return 'b';
    case 0x09: return 't';
    case 0x0a: return 'n';
    case 0x0c: return 'f';
    case 0x0d: return 'r';
    default: return 0;
  }
}

static const char HEX[] = "0123456789abcdef";

static uint8_t *unicode_escape(uint8_t *o, uint16_t c) {
  *o++ = '\\';
  *o++ = 'u';
  *o++ = HEX[c >> 12];
  *o++ = HEX[(c >> 8) & 15];
  *o++ = HEX[(c >> 4) & 15];
  *o++ = HEX[c & 15];
  return o;
}

size_t nwax_json_string(const uint16_t *s, size_t n, uint8_t *out) {
  uint8_t *o = out;
  *o++ = '"';
  for (size_t i = 0; i < n; i++) {
    uint16_t c = s[i];
    /* A run of characters written as they are (most of a page's text). */
    while (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      *o++ = (uint8_t)c;
      if (++i == n) goto done;
      c = s[i];
    }
    if (c >= 0x20 && c < 0x80) {
      if (c == '"' || c == '\\') *o++ = '\\';
      *o++ = (uint8_t)c;
    } else if (c < 0x20) {
      const char e = short_escape(c);
      if (e) {
        *o++ = '\\';
        *o++ = (uint8_t)e;
      } else o = unicode_escape(o, c);
    } else if (c < 0x800) {
      *o++ = (uint8_t)(0xc0 | (c >> 6));
      *o++ = (uint8_t)(0x80 | (c & 0x3f));
    } else if (high(c) && i + 1 < n && low(s[i + 1])) {
      const uint32_t cp = 0x10000 + (((uint32_t)c - 0xd800) << 10) + (s[i + 1] - 0xdc00);
      *o++ = (uint8_t)(0xf0 | (cp >> 18));
      *o++ = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
      *o++ = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
      *o++ = (uint8_t)(0x80 | (cp & 0x3f));
      i++;
    } else if (high(c) || low(c)) {
      o = unicode_escape(o, c);
    } else {
      *o++ = (uint8_t)(0xe0 | (c >> 12));
      *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
      *o++ = (uint8_t)(0x80 | (c & 0x3f));
    }
  }
done:
  *o++ = '"';
  return (size_t)(o - out);
}

static int hex_digit(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* The escape after a backslash at s[i] (i < end): its unit into *u; returns the bytes read, or 0 for none JSON has. */
static size_t escape_at(const uint8_t *s, size_t i, size_t end, uint16_t *u) {
  switch (s[i]) {
    case '"': *u = '"'; return 1;
    case '\\': *u = '\\'; return 1;
    case '/': *u = '/'; return 1;
    case 'b': *u = 0x08; return 1;
    case 'f': *u = 0x0c; return 1;
    case 'n': *u = 0x0a; return 1;
    case 'r': *u = 0x0d; return 1;
    case 't': *u = 0x09; return 1;
    case 'u': {
      if (end - i < 5) return 0;
      uint16_t v = 0;
      for (size_t k = 1; k <= 4; k++) {
        const int h = hex_digit(s[i + k]);
        if (h < 0) return 0;
        v = (uint16_t)(v << 4 | h);
      }
      *u = v;
      return 5;
    }
    default: return 0;
  }
}

ptrdiff_t nwax_json_string_decode(const uint8_t *s, size_t n, uint16_t *out, int *wide) {
  if (n < 2 || s[0] != '"' || s[n - 1] != '"') return -1;
  const size_t end = n - 1;
  size_t i = 1, o = 0;
  uint16_t high_units = 0;
  while (i < end) {
    const uint8_t b = s[i];
    if (b >= 0x20 && b < 0x80 && b != '"' && b != '\\') {
      out[o++] = b;
      i++;
      continue;
    }
    if (b == '\\') {
      if (++i == end) return -1; /* the closing quote escaped: the string runs on */
      uint16_t u;
      const size_t k = escape_at(s, i, end, &u);
      if (k == 0) return -1;
      high_units |= u;
      out[o++] = u;
      i += k;
      continue;
    }
    if (b < 0x80) return -1; /* a quote inside, or a raw control character */
    /* A UTF-8 sequence, held to the WHATWG decoder's rules: anything it would replace is -1. */
    uint32_t cp;
    size_t len;
    uint8_t lower = 0x80, upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      cp = b & 0x1f;
      len = 2;
    } else if (b >= 0xe0 && b <= 0xef) {
      if (b == 0xe0) lower = 0xa0;
      if (b == 0xed) upper = 0x9f;
      cp = b & 0x0f;
      len = 3;
    } else if (b >= 0xf0 && b <= 0xf4) {
      if (b == 0xf0) lower = 0x90;
      if (b == 0xf4) upper = 0x8f;
      cp = b & 0x07;
      len = 4;
    } else {
      return -1;
    }
    if (end - i < len) return -1;
    for (size_t k = 1; k < len; k++) {
      const uint8_t c = s[i + k];
      if (c < (k == 1 ? lower : 0x80) || c > (k == 1 ? upper : 0xbf)) return -1;
      cp = cp << 6 | (c & 0x3f);
    }
    i += len;
    if (cp > 0xffff) {
      out[o++] = (uint16_t)(0xd800 + ((cp - 0x10000) >> 10));
      out[o++] = (uint16_t)(0xdc00 + ((cp - 0x10000) & 0x3ff));
      high_units |= 0xd800;
    } else {
      out[o++] = (uint16_t)cp;
      high_units |= (uint16_t)cp;
    }
  }
  *wide = high_units > 0xff;
  return (ptrdiff_t)o;
}

/* SWAR: whether any of the eight bytes of x is below 0x20, above 0x7f, a quote or a backslash. */
static inline int special_in(uint64_t x) {
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  const uint64_t below = (x - ones * 0x20) & ~x;
  const uint64_t q = x ^ (ones * '"'), bs = x ^ (ones * '\\');
  const uint64_t quote = (q - ones) & ~q, backslash = (bs - ones) & ~bs;
  return ((below | quote | backslash) & highs) != 0 || (x & highs) != 0;
}

static uint8_t *put_utf8(uint8_t *o, uint32_t c) {
  if (c < 0x80) *o++ = (uint8_t)c;
  else if (c < 0x800) {
    *o++ = (uint8_t)(0xc0 | (c >> 6));
    *o++ = (uint8_t)(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    *o++ = (uint8_t)(0xe0 | (c >> 12));
    *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
    *o++ = (uint8_t)(0x80 | (c & 0x3f));
  } else {
    *o++ = (uint8_t)(0xf0 | (c >> 18));
    *o++ = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
    *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
    *o++ = (uint8_t)(0x80 | (c & 0x3f));
  }
  return o;
}

ptrdiff_t nwax_json_string_utf8(const uint8_t *s, size_t n, uint8_t *out) {
  if (n < 2 || s[0] != '"' || s[n - 1] != '"') return -1;
  const size_t end = n - 1;
  size_t i = 1;
  uint8_t *o = out;
  while (i < end) {
    /* runs of plain ASCII, eight bytes at a time (most of a page's text) */
    while (end - i >= 8) {
      uint64_t x;
      memcpy(&x, s + i, 8);
      if (special_in(x)) break;
      memcpy(o, &x, 8);
      o += 8;
      i += 8;
    }
    if (i >= end) break;
    const uint8_t b = s[i];
    if (b >= 0x20 && b < 0x80 && b != '"' && b != '\\') {
      *o++ = b;
      i++;
      continue;
    }
    if (b == '\\') {
      if (++i == end) return -1;
      uint16_t u;
      size_t k = escape_at(s, i, end, &u);
      if (k == 0) return -1;
      i += k;
      uint32_t c = u;
      if (u >= 0xd800 && u <= 0xdfff) {
        /* a pair only as two escapes (UTF-8 holds no surrogates); alone, U+FFFD as a string's UTF-8 gives it */
        uint16_t v;
        if (u <= 0xdbff && end - i >= 2 && s[i] == '\\' && s[i + 1] == 'u' && escape_at(s, i + 1, end, &v) == 5 && v >= 0xdc00 && v <= 0xdfff) {
          c = 0x10000 + ((uint32_t)(u - 0xd800) << 10) + (v - 0xdc00);
          i += 6;
        } else c = 0xfffd;
      }
      o = put_utf8(o, c);
      continue;
    }
    if (b < 0x80) return -1; /* a quote inside, or a raw control character */
    /* A UTF-8 sequence, held to the WHATWG decoder's rules (anything it would replace is -1),
     * and copied as it is: its code point's UTF-8 is these bytes. */
    size_t len;
    uint8_t lower = 0x80, upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      if (b == 0xe0) lower = 0xa0;
      if (b == 0xed) upper = 0x9f;
      len = 3;
    } else if (b >= 0xf0 && b <= 0xf4) {
      if (b == 0xf0) lower = 0x90;
      if (b == 0xf4) upper = 0x8f;
      len = 4;
    } else return -1;
    if (end - i < len) return -1;
    for (size_t k = 1; k < len; k++) {
      const uint8_t c = s[i + k];
      if (c < (k == 1 ? lower : 0x80) || c > (k == 1 ? upper : 0xbf)) return -1;
    }
    memcpy(o, s + i, len);
    o += len;
    i += len;
  }
  return o - out;
}
