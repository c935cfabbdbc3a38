/*
 * A string's JSON as UTF-8, the bytes of Buffer.from(JSON.stringify(s)): the quotes, `"` and
 * `\` escaped, control characters as \b \t \n \f \r or \u00xx, a lone surrogate as \udxxx
 * (lower-case hex, as JSON.stringify writes them), everything else as its UTF-8. The import
 * writes a page's text into the sort this way: JSON.stringify of a page's text, then its
 * UTF-8, ran at a third of a GB/s.
 */
#ifndef NWAX_JSON_STRING_H
#define NWAX_JSON_STRING_H

#include <stddef.h>
#include <stdint.h>

/* Bytes nwax_json_string may write for a string of n units. */
static inline size_t nwax_json_string_room(size_t n) { return 6 * n + 2; }

/* Writes the JSON of s[0, n) to out (room for nwax_json_string_room(n) bytes); returns the bytes written. */
size_t nwax_json_string(const uint16_t *s, size_t n, uint8_t *out);

/*
 * The other way: the JSON string s[0, n), its quotes included, given as UTF-8, decoded into
 * UTF-16 units at out (room for n units), as JSON.parse of its UTF-8 decoding gives them.
 * Returns the units written, or -1 where JSON.parse would fail or the bytes are not valid
 * UTF-8 (which a decode would have replaced): a caller then goes the usual way, which says
 * what is wrong. *wide is set when a unit is above 0xff (the string is not Latin-1).
 */
ptrdiff_t nwax_json_string_decode(const uint8_t *s, size_t n, uint16_t *out, int *wide);

/*
 * The same string's UTF-8, as a string's UTF-8 encoding gives it (a lone surrogate as U+FFFD),
 * into out (room for n bytes: no string's UTF-8 is longer than its JSON), in one pass: the
 * fts kernel reads a page's text so, with no UTF-16 between. Returns the bytes written, or -1
 * where nwax_json_string_decode gives -1.
 */
ptrdiff_t nwax_json_string_utf8(const uint8_t *s, size_t n, uint8_t *out);

#endif
