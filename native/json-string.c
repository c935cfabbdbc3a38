#include "json-string.h"

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
