/*
 * UTF-8 to UTF-16 as the WHATWG Encoding Standard's UTF-8 decoder gives it (what TextDecoder
 * gives): each maximal subpart of an ill-formed sequence becomes one U+FFFD, and a sequence
 * cut short at the end one more. The HTML extractor reads a UTF-8 page's bytes through it, so
 * the page's text is never a JavaScript string on its way in.
 */
#ifndef NWAX_UTF8_DECODE_H
#define NWAX_UTF8_DECODE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decodes s[0, n) into out (room for n units: UTF-16 is never longer than UTF-8 in units).
 * From `bom_at` on (a byte offset, or SIZE_MAX for none) the bytes are a fresh decoder's
 * stream, whose first code point, U+FEFF, is dropped as TextDecoder drops a BOM; the bytes
 * before it must be ASCII (what nwax's parser reads before it has decided on UTF-8). Returns
 * the units written.
 */
size_t nwax_utf8_decode(const uint8_t *s, size_t n, size_t bom_at, uint16_t *out);

#endif
