/*
 * HTML text extraction over a whole document's UTF-16 code units: the events of
 * src/parse/html-scanner.ts (htmlparser2 12's tokenizer and tree rules) handled as
 * src/parse/html.ts's HtmlExtractor handles them, without a call into JavaScript per tag.
 *
 * What it does not do, it hands back: a document with SVG or MathML, <plaintext>, or a
 * non-ASCII tag or wanted attribute name is "not mine" (NWAX_HTML_FALLBACK) and the
 * JavaScript scanner reads it; entities are decoded by the caller's `decode` (the `entities`
 * package, as the scanner does); links are resolved, de-duplicated and capped by the caller,
 * which replays the link events in order.
 */
#ifndef NWAX_HTML_EXTRACT_H
#define NWAX_HTML_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "generated/shared.h"

/* What it returns (NWAX_HTML_*), what `decode` is asked to decode (NWAX_DECODE_*), the link
 * events (NWAX_EV_*) and the title's cap (TITLE_CHARS): generated/shared.h. */

typedef struct {
  uint16_t *p;
  size_t n, cap;
} nwax_u16;

typedef struct {
  int32_t *p;
  size_t n, cap;
} nwax_i32;

typedef struct {
  /* Appends the decoded `s[0, n)` to `out`; returns 0 when it failed (the extraction stops). */
  int (*decode)(void *ctx, int kind, const uint16_t *s, size_t n, nwax_u16 *out);
  void *ctx;
  /* Characters of text kept (HtmlOptions.textLimit). */
  size_t text_limit;
  /* Not the text and links but the resources the page embeds (replay/page-resources.ts's
   * events): NWAX_EV_BASE, NWAX_EV_RESOURCE, NWAX_EV_STYLESHEET, NWAX_EV_SRCSET, NWAX_EV_STYLE. */
  int resources;
} nwax_html_opts;

typedef struct {
  nwax_u16 title;   /* as it came, up to 4,096 units (squashed by the caller) */
  nwax_u16 text;    /* up to the limit, squashed */
  nwax_u16 lang;    /* the first non-empty <html lang>, as it came */
  nwax_u16 anchors; /* the text read while an <a> may be open: anchor texts are ranges of it */
  nwax_u16 pool;    /* the events' strings */
  nwax_i32 events;
  int truncated;
} nwax_html_result;

int nwax_html_extract(const uint16_t *s, size_t len, const nwax_html_opts *opts, nwax_html_result *r);
void nwax_html_result_free(nwax_html_result *r);
int nwax_u16_append(nwax_u16 *b, const uint16_t *s, size_t n);
/* Room for n more units. */
int nwax_u16_reserve(nwax_u16 *b, size_t n);

#endif
