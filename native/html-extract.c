/*
 * HTML text extraction (html-extract.h): src/parse/html-scanner.ts's scan of a whole input
 * (its `final` paths: nothing is held for a next chunk), its tree rules for the HTML context,
 * and src/parse/html.ts's handler. Each function names the one it follows; the tests hold the
 * two to the same parse, document by document.
 */
#include "html-extract.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum {
  LT = 0x3c, GT = 0x3e, SLASH = 0x2f, BANG = 0x21, QUESTION = 0x3f, DASH = 0x2d, EQ = 0x3d,
  DQ = 0x22, SQ = 0x27, LBRACKET = 0x5b, AMP = 0x26
};

/* ---- growing buffers ---- */

/* Room in *p (of *cap elements of `size` bytes) for `need` of them: doubled as it fills. */
static int grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 1;
  size_t more = *cap ? *cap : 64;
  while (more < need) more *= 2;
  void *q = realloc(*p, more * size);
  if (!q) return 0;
  *p = q;
  *cap = more;
  return 1;
}

int nwax_u16_reserve(nwax_u16 *b, size_t n) {
  return grow((void **)&b->p, &b->cap, b->n + n, 2);
}

int nwax_u16_append(nwax_u16 *b, const uint16_t *s, size_t n) {
  if (!nwax_u16_reserve(b, n)) return 0;
  if (n) memcpy(b->p + b->n, s, n * 2);
  b->n += n;
  return 1;
}

static int i32_push(nwax_i32 *b, const int32_t *v, size_t n) {
  if (!grow((void **)&b->p, &b->cap, b->n + n, 4)) return 0;
  memcpy(b->p + b->n, v, n * 4);
  b->n += n;
  return 1;
}

void nwax_html_result_free(nwax_html_result *r) {
  free(r->title.p);
  free(r->text.p);
  free(r->lang.p);
  free(r->anchors.p);
  free(r->pool.p);
  free(r->events.p);
  memset(r, 0, sizeof *r);
}

/* ---- known tag names (html-scanner.ts's sets and html.ts's roles) ---- */

enum {
  F_VOID = 1 << 0, F_RAW = 1 << 1, F_RCDATA = 1 << 2, F_HIDDEN = 1 << 3, F_BLOCK = 1 << 4,
  F_LINK_HREF = 1 << 5, F_LINK_SRC = 1 << 6, F_PLAINTEXT = 1 << 8,
  F_OTHER = 1 << 9, /* title, html, base, meta: a role in html.ts */
  F_INTEGRATION = 1 << 10, /* HTML inside SVG or MathML (INTEGRATION) */
};

/* The parser's contexts (html-scanner.ts's Context). */
enum { CTX_HTML, CTX_SVG, CTX_MATHML };

/* Implied closes (OPEN_IMPLIES_CLOSE) as bits of the named tags' ids (N_*). */
#define B(id) (1ULL << (id))
/* The tag names, their ids, flags and closes: native/html-names.json, the scanner's too. */
#include "generated/html-names.h"

typedef struct {
  const char *name;
  int id; /* < N_OTHER_FIRST for the named ones above; the rest are numbered in order */
  int flags;
  uint64_t closes;
} known_name;

static known_name KNOWN[] = {NWAX_HTML_NAMES};
#define KNOWN_COUNT ((int)(sizeof KNOWN / sizeof KNOWN[0]))

/* SVG's mixed-case tag names (html-names.json's svg). */
static const char *const SVG_NAMES[] = {NWAX_SVG_NAMES, NULL};

/* Per id (the table's order after numbering): flags and implied closes. */
static int known_flags[KNOWN_COUNT];
static uint64_t known_closes[KNOWN_COUNT];
static const char *known_names[KNOWN_COUNT];
static int known_style = -1; /* <style>'s id: its text is CSS (resources mode) */
static pthread_once_t known_once = PTHREAD_ONCE_INIT;

static void number_known(void) {
  int next = N_OTHER_FIRST;
  for (int i = 0; i < KNOWN_COUNT; i++) {
    if (KNOWN[i].id < 0) KNOWN[i].id = next++;
    known_flags[KNOWN[i].id] = KNOWN[i].flags;
    known_closes[KNOWN[i].id] = KNOWN[i].closes;
    known_names[KNOWN[i].id] = KNOWN[i].name;
    if (strcmp(KNOWN[i].name, "style") == 0) known_style = KNOWN[i].id;
  }
}

/* ---- names: lower-case ASCII, each with an id (known names first) ---- */

#define NAME_SLOTS 4096
/* Ids in all: the shared names' and a document's own (open[] is indexed by them). */
#define NAME_IDS (NAME_SLOTS / 2)

/* An open-addressed table of names; its ids run from `base`. */
typedef struct {
  int32_t slot_id[NAME_SLOTS]; /* -1: empty */
  uint32_t slot_hash[NAME_SLOTS];
  uint32_t slot_at[NAME_SLOTS]; /* where the name's chars are in `chars` */
  uint16_t slot_len[NAME_SLOTS];
  char *chars;
  size_t chars_n, chars_cap;
  int base, count;
} name_table;

static uint32_t hash_ascii(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

static int same_chars(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* The slot of name `s[0, n)` (hash h): its own, or the empty one it would take. */
static size_t name_slot(const name_table *t, const char *s, size_t n, uint32_t h) {
  size_t i = h & (NAME_SLOTS - 1);
  for (; t->slot_id[i] >= 0; i = (i + 1) & (NAME_SLOTS - 1))
    if (t->slot_hash[i] == h && t->slot_len[i] == n && same_chars(t->chars + t->slot_at[i], s, n)) return i;
  return i;
}

/* Name `s[0, n)` added at its empty slot i (-1: the ids are used up, or no memory). */
static int name_add(name_table *t, size_t i, const char *s, size_t n, uint32_t h) {
  if (t->base + t->count >= NAME_IDS) return -1;
  if (!grow((void **)&t->chars, &t->chars_cap, t->chars_n + n, 1)) return -1;
  memcpy(t->chars + t->chars_n, s, n);
  t->slot_at[i] = (uint32_t)t->chars_n;
  t->chars_n += n;
  t->slot_hash[i] = h;
  t->slot_len[i] = (uint16_t)n;
  t->slot_id[i] = t->base + t->count++;
  return t->slot_id[i];
}

static void table_init(name_table *t, int base) {
  memset(t->slot_id, 0xff, sizeof t->slot_id);
  t->chars = NULL;
  t->chars_n = t->chars_cap = 0;
  t->base = base;
  t->count = 0;
}

/*
 * The names every document shares, numbered once: the known names (ids 0..KNOWN_COUNT-1,
 * each its own), then SVG's mixed-case names and their lower case, then the resource tags'.
 * Read only once built. A document's table holds the other names it meets, from
 * shared.count on: most pages need none. (Each document used to number the known names
 * anew: a third of a resource scan's time went to that and to finding names.)
 */
static name_table shared;
/* By shared id: the SVG name's id (-1: none; svg_name) and the resource tag's spec. */
static int32_t shared_svg_of[NAME_IDS];
struct resource_spec;
static const struct resource_spec *shared_res[NAME_IDS];
static int shared_ok;

/* The id of shared name `s[0, n)`, added when new (only while the shared table is built). */
static int shared_id(const char *s, size_t n) {
  uint32_t h = hash_ascii(s, n);
  size_t i = name_slot(&shared, s, n, h);
  return shared.slot_id[i] >= 0 ? shared.slot_id[i] : name_add(&shared, i, s, n, h);
}

/* ---- the scanner's state and the extractor's ---- */

#define ATTR_SLOTS 4
struct resource_spec;


typedef struct {
  const uint16_t *s;
  size_t len;
  const nwax_html_opts *o;
  nwax_html_result *r;
  name_table *own; /* the document's names that are not shared (NULL: none yet) */
  int fallback, failed;
  /* scanner */
  int32_t *stack;
  size_t depth, stack_cap;
  /* How many of each name id the stack holds (html-scanner.ts's `open`): whether a name is
   * open is one look, not a walk down the stack. */
  int32_t *open;
  int32_t *contexts; /* CTX_*, innermost last; contexts[0] is CTX_HTML */
  size_t ncontexts, contexts_cap;
  int self_closing; /* the last tag read by `attributes` ended with `/>` */
  int raw; /* id of the raw-text or RCDATA element whose content is read, -1 for none */
  char *lower; /* a name in lower case */
  size_t lower_cap;
  nwax_u16 scratch; /* decoded text */
  /* extractor */
  int hidden, in_title, anchor_open, html_lang_set, space_pending;
  int in_style; /* resources mode: a <style> is open (its text is CSS, raw or not) */
  size_t text_length;
  /* attributes of the tag being read: up to four wanted ones, as pool strings (-1: absent) */
  int32_t attr_at[ATTR_SLOTS], attr_len[ATTR_SLOTS];
  /* resources mode: the wanted attributes of the tag being read (resource_spec) */
  const struct resource_spec *res;
} ctx;

static int is_space(uint16_t c) {
  return c == 0x20 || c == 0x0a || c == 0x09 || c == 0x0c || c == 0x0d;
}

static int is_end_of_name(uint16_t c) {
  return c == SLASH || c == GT || is_space(c);
}

static int is_alpha(uint16_t c) {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

#define NONE ((size_t)-1)

/*
 * The first s[i] == c (an ASCII character) at or past `from`, or NONE. On a little-endian
 * machine memchr (vectorised by the C library) finds c's byte, and a hit counts where it is a
 * unit's low byte and the high byte is zero; elsewhere, a plain loop.
 */
static size_t index_of(const uint16_t *s, size_t len, uint16_t c, size_t from) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const unsigned char *b = (const unsigned char *)s;
  size_t at = from * 2, end = len * 2;
  while (at < end) {
    const unsigned char *hit = memchr(b + at, c, end - at);
    if (!hit) return NONE;
    size_t k = (size_t)(hit - b);
    if (!(k & 1) && b[k + 1] == 0) return k / 2;
    at = k + 1;
  }
  return NONE;
#else
  for (size_t i = from; i < len; i++)
    if (s[i] == c) return i;
  return NONE;
#endif
}

/* The id of lower-case name `s[0, n)`: a shared one, or the document's own (added when new;
 * -1: the ids are used up, or no memory). */
static int name_id(ctx *x, const char *s, size_t n) {
  if (n > 0xffff) return -1;
  uint32_t h = hash_ascii(s, n);
  size_t i = name_slot(&shared, s, n, h);
  if (shared.slot_id[i] >= 0) return shared.slot_id[i];
  if (!x->own) {
    x->own = malloc(sizeof *x->own);
    if (!x->own) return -1;
    table_init(x->own, shared.count);
  }
  i = name_slot(x->own, s, n, h);
  return x->own->slot_id[i] >= 0 ? x->own->slot_id[i] : name_add(x->own, i, s, n, h);
}

/* The id of the tag name s[start, end) (htmlparser2's lower case; 'image' is 'img'); -1 with
 * x->fallback set for a non-ASCII name. */
static int tag_id(ctx *x, size_t start, size_t end) {
  size_t n = end - start;
  if (!grow((void **)&x->lower, &x->lower_cap, n, 1)) {
    x->failed = 1;
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    uint16_t c = x->s[start + i];
    if (c > 0x7f) {
      x->fallback = 1;
      return -1;
    }
    x->lower[i] = (char)(c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
  }
  int id = name_id(x, x->lower, n);
  if (id < 0) x->fallback = 1;
  return id;
}

static int top_context(ctx *x) {
  return x->contexts[x->ncontexts - 1];
}

/* The mixed-case SVG name of lower-case name `id`, as an id; -1 for none (a document's own
 * names have none: every SVG name's lower case is shared). */
static int svg_name(int id) {
  return id < shared.count ? shared_svg_of[id] : -1;
}

static int on_stack(ctx *x, int id);

/* HtmlScanner.tagName: the name of lower-case name `id` in the current context. */
static int tag_name(ctx *x, int id) {
  int top = top_context(x);
  if (top == CTX_SVG) {
    int adjusted = svg_name(id);
    return adjusted >= 0 ? adjusted : id;
  }
  if (x->ncontexts > 1) {
    int adjusted = svg_name(id);
    if (adjusted >= 0 && on_stack(x, adjusted)) return adjusted;
  }
  if (top == CTX_HTML) return id == N_IMAGE ? N_IMG : id;
  return id;
}

static int flags_of(int id) {
  return id < KNOWN_COUNT ? known_flags[id] : 0;
}

/* ---- the extractor (html.ts's HtmlExtractor) ---- */

/* White space to a JS regex's `\s` (squash.ts's isSpace). */
static int js_space(uint16_t c) {
  if (c <= 32) return c == 32 || (c >= 9 && c <= 13);
  return c >= 0xa0 && (c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
                       c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff);
}

/*
 * Text appended squashed, as squashText squashes the whole: every run of white space one
 * space, none at the start; a run at the end is held (x->space_pending) until text follows.
 */
static void append_squashed(ctx *x, const uint16_t *s, size_t n) {
  nwax_u16 *t = &x->r->text;
  if (!nwax_u16_reserve(t, n + 1)) {
    x->failed = 1;
    return;
  }
  uint16_t *const base = t->p;
  uint16_t *o = base + t->n;
  int pending = x->space_pending;
  for (size_t i = 0; i < n; i++) {
    uint16_t c = s[i];
    if ((c > 32 && c < 0xa0) || !js_space(c)) {
      if (pending && o != base) *o++ = 0x20;
      pending = 0;
      *o++ = c;
    } else {
      pending = 1;
    }
  }
  x->space_pending = pending;
  t->n = (size_t)(o - base);
}

/* HtmlExtractor.addText: the limit counts the text as it came, before squashing. */
static void add_text(ctx *x, const uint16_t *s, size_t n) {
  nwax_html_result *r = x->r;
  if (r->truncated) return;
  size_t room = x->o->text_limit - x->text_length;
  if (n > room) {
    append_squashed(x, s, room);
    x->text_length += room;
    r->truncated = 1;
    return;
  }
  append_squashed(x, s, n);
  x->text_length += n;
}

static void block_edge(ctx *x) {
  static const uint16_t space = 0x20;
  add_text(x, &space, 1);
}

static void on_text(ctx *x, const uint16_t *s, size_t n) {
  nwax_html_result *r = x->r;
  if (x->in_title) {
    if (r->title.n < TITLE_CHARS) {
      size_t take = n < TITLE_CHARS - r->title.n ? n : TITLE_CHARS - r->title.n;
      if (!nwax_u16_append(&r->title, s, take)) x->failed = 1;
    }
    return;
  }
  if (x->hidden > 0) return;
  if (x->anchor_open && !nwax_u16_append(&r->anchors, s, n)) x->failed = 1;
  add_text(x, s, n);
}

static void event(ctx *x, int kind, int a, int b, int c, int32_t offset) {
  int32_t ev[NWAX_EV_FIELDS] = {kind, -1, 0, -1, 0, -1, 0, offset};
  int slots[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    if (slots[k] < 0 || x->attr_at[slots[k]] < 0) continue;
    ev[1 + 2 * k] = x->attr_at[slots[k]];
    ev[2 + 2 * k] = x->attr_len[slots[k]];
  }
  if (!i32_push(&x->r->events, ev, NWAX_EV_FIELDS)) x->failed = 1;
}

static void resources_open(ctx *x, int id);

/* onOpen: `x->attr_*` hold the tag's wanted attributes (wanted_attributes' order). */
static void on_open(ctx *x, int id) {
  if (x->o->resources) {
    resources_open(x, id);
    return;
  }
  if (id == N_IMG) {
    /* html.ts's onOpen: an image the page shows (not in hidden content), where it stands in the text */
    if (x->hidden == 0 && x->attr_at[0] >= 0) event(x, NWAX_EV_IMG, 0, 1, 2, (int32_t)x->r->text.n);
    return;
  }
  int f = flags_of(id);
  if (!(f & (F_HIDDEN | F_BLOCK | F_LINK_HREF | F_LINK_SRC | F_OTHER))) return;
  if (id == N_TITLE && x->r->title.n == 0) x->in_title = 1;
  if (id == N_HTML && !x->html_lang_set && x->attr_at[0] >= 0 && x->attr_len[0] > 0) {
    x->html_lang_set = 1;
    if (!nwax_u16_append(&x->r->lang, x->r->pool.p + x->attr_at[0], (size_t)x->attr_len[0])) x->failed = 1;
  }
  if (f & F_HIDDEN) x->hidden++;
  if (id == N_BASE) {
    if (x->attr_at[0] >= 0 && x->attr_len[0] > 0) event(x, NWAX_EV_BASE, 0, -1, -1, 0);
  } else if (id == N_META) {
    event(x, NWAX_EV_META, 0, 1, 2, 0);
  }
  if (f & F_BLOCK) block_edge(x);
  if (!(f & (F_LINK_HREF | F_LINK_SRC)) || x->attr_at[0] < 0) return;
  if (id == N_A) {
    event(x, NWAX_EV_A, 0, -1, -1, (int32_t)x->r->anchors.n);
    x->anchor_open = 1;
  } else {
    /* attrs.alt ?? attrs.title ?? '' */
    event(x, NWAX_EV_LINK, 0, x->attr_at[1] >= 0 ? 1 : 2, -1, 0);
  }
}

static void on_close(ctx *x, int id) {
  if (x->o->resources) {
    if (id == known_style) x->in_style = 0;
    return;
  }
  int f = flags_of(id);
  if (!(f & (F_HIDDEN | F_BLOCK | F_LINK_HREF | F_LINK_SRC | F_OTHER))) return;
  if (id == N_TITLE) x->in_title = 0;
  if ((f & F_HIDDEN) && x->hidden > 0) x->hidden--;
  if (id == N_A) {
    event(x, NWAX_EV_CLOSE_A, -1, -1, -1, (int32_t)x->r->anchors.n);
    x->anchor_open = 0;
  }
  if (f & F_BLOCK) block_edge(x);
}

/* ---- the scanner's tree rules (HtmlScanner: openName, endOpen, endTag, pop) ---- */

static void no_attributes(ctx *x) {
  for (int k = 0; k < ATTR_SLOTS; k++) x->attr_at[k] = -1;
}

/* Appends v to the array *p of *n values (room for *cap), growing it. */
static int push_int(ctx *x, int32_t **p, size_t *n, size_t *cap, int32_t v) {
  if (!grow((void **)p, cap, *n + 1, 4)) {
    x->failed = 1;
    return 0;
  }
  (*p)[(*n)++] = v;
  return 1;
}

static void push_context(ctx *x, int c) {
  push_int(x, &x->contexts, &x->ncontexts, &x->contexts_cap, c);
}

static void pop(ctx *x) {
  int id = x->stack[--x->depth];
  x->open[id]--;
  if ((id == N_SVG || id == N_MATH || (flags_of(id) & F_INTEGRATION)) && x->ncontexts > 1) x->ncontexts--;
  on_close(x, id);
}

static int on_stack(ctx *x, int id) {
  return x->open[id] > 0;
}

/* openName; returns 0 for a second <form>, which is ignored (no events). */
static int open_name(ctx *x, int id) {
  if (id == N_FORM && on_stack(x, N_FORM)) return 0;
  uint64_t closes = id < KNOWN_COUNT ? known_closes[id] : 0;
  if (closes)
    while (x->depth > 0 && x->stack[x->depth - 1] < 64 && (closes & B(x->stack[x->depth - 1]))) pop(x);
  if (!(flags_of(id) & F_VOID)) {
    if (!push_int(x, &x->stack, &x->depth, &x->stack_cap, id)) return 0;
    x->open[id]++;
    if (id == N_SVG) push_context(x, CTX_SVG);
    else if (id == N_MATH) push_context(x, CTX_MATHML);
    else if (flags_of(id) & F_INTEGRATION) push_context(x, CTX_HTML);
  }
  return 1;
}

static void end_open(ctx *x, int id) {
  on_open(x, id);
  if (flags_of(id) & F_VOID) on_close(x, id);
}

static void end_tag(ctx *x, int id) {
  if (!(flags_of(id) & F_VOID)) {
    /* Where it is open, the walk down is paid for by the pops. */
    for (size_t at = on_stack(x, id) ? x->depth : 0; at-- > 0;) {
      if (x->stack[at] != id) continue;
      while (x->depth > at) pop(x);
      return;
    }
    if (id == N_P) {
      /* `</p>` with no open p: an empty paragraph. */
      no_attributes(x);
      if (open_name(x, N_P)) end_open(x, N_P);
      if (x->depth > 0 && x->stack[x->depth - 1] == N_P) pop(x);
    }
  } else if (id == N_BR) {
    no_attributes(x);
    on_open(x, N_BR);
    on_close(x, N_BR);
  }
}

/* ---- text (HtmlScanner.text) ---- */

static int has_amp(const uint16_t *s, size_t start, size_t end) {
  return index_of(s, end, AMP, start) != NONE;
}

/* Text s[start, end); `kind` a NWAX_DECODE_* for text whose entities are decoded, -1 for raw. */
static void style_text(ctx *x, size_t start, size_t end, int kind);

static void text(ctx *x, size_t start, size_t end, int kind) {
  if (x->o->resources) {
    if (end > start && x->in_style) style_text(x, start, end, kind);
    return;
  }
  if (end <= start || !(x->in_title || x->hidden == 0)) return;
  if (kind < 0 || !has_amp(x->s, start, end)) {
    on_text(x, x->s + start, end - start);
    return;
  }
  x->scratch.n = 0;
  if (!x->o->decode(x->o->ctx, kind, x->s + start, end - start, &x->scratch)) {
    x->failed = 1;
    return;
  }
  on_text(x, x->scratch.p, x->scratch.n);
}

/* ---- markup (HtmlScanner's final paths) ---- */

static size_t skip_to(ctx *x, size_t from, uint16_t c) {
  size_t at = index_of(x->s, x->len, c, from);
  return at != NONE ? at + 1 : x->len;
}

static size_t comment_end(ctx *x, size_t p) {
  static const uint16_t END[] = {'-', '-', '!', '>'};
  const uint16_t *s = x->s;
  size_t len = x->len;
  size_t seq = 0;
  for (size_t i = p; i < len; i++) {
    uint16_t c = s[i];
    if (seq <= 1 && i == p + seq && c == '>') return i + 1;
    if (seq == 2 && c == '>') return i + 1;
    if (seq == 3 && c != '>') {
      seq = c == '-' ? 1 : 0;
    } else if (c == END[seq]) {
      if (++seq == 4) return i + 1;
    } else if (seq == 0) {
      size_t dash = index_of(s, len, '-', i + 1);
      if (dash == NONE) break;
      i = dash;
      seq = 1;
    } else if (c != END[seq - 1]) {
      seq = 0;
    }
  }
  return len;
}

static size_t declaration(ctx *x, size_t lt) {
  const uint16_t *s = x->s;
  size_t len = x->len;
  size_t p = lt + 2;
  if (p >= len) return len;
  uint16_t c = s[p];
  if (c == LBRACKET) {
    static const char seq[] = "CDATA[";
    for (size_t i = 0; i < 6; i++) {
      if (p + 1 + i >= len) return len;
      if (s[p + 1 + i] != (uint16_t)seq[i]) return s[p + 1 + i] == GT ? p + 2 + i : skip_to(x, p + 2 + i, GT);
    }
    /* Text inside SVG or MathML, a comment elsewhere, to `]]>`. */
    for (size_t i = p + 7; i + 2 < len; i++) {
      if (s[i] != ']' || s[i + 1] != ']' || s[i + 2] != '>') continue;
      if (top_context(x) != CTX_HTML) text(x, p + 7, i, -1);
      return i + 3;
    }
    return len;
  }
  if ((c | 0x20) == 'd') {
    static const char seq[] = "doctype";
    for (size_t i = 1; i < 7; i++) {
      if (p + i >= len) return len;
      uint16_t d = s[p + i];
      if ((uint16_t)(d | 0x20) != (uint16_t)seq[i]) return d == GT ? p + i + 1 : skip_to(x, p + i + 1, GT);
    }
    return skip_to(x, p + 7, GT);
  }
  if (c == GT) return p + 1;
  if (c == DASH) {
    if (p + 1 >= len) return len;
    uint16_t d = s[p + 1];
    if (d == DASH) return comment_end(x, p + 2);
    if (d == GT) return p + 2;
    return skip_to(x, p + 2, GT);
  }
  return skip_to(x, p + 1, GT);
}

static size_t close_tag(ctx *x, size_t lt) {
  const uint16_t *s = x->s;
  size_t len = x->len;
  size_t p = lt + 2;
  uint16_t c = s[p];
  if (c == GT) return p + 1;
  if (!is_alpha(c)) return skip_to(x, p + 1, GT);
  size_t e = p + 1;
  while (e < len && !is_end_of_name(s[e])) e++;
  if (e >= len) return len; /* an unfinished end tag is dropped */
  size_t gt = s[e] == GT ? e : index_of(s, len, GT, e);
  int id = tag_id(x, p, e);
  if (id < 0) return len;
  end_tag(x, tag_name(x, id));
  return gt == NONE ? len : gt + 1;
}

/* The wanted attributes of a tag (html.ts's ATTRIBUTES), lower case; NULL for none. */
static const char *const *wanted_attributes(int id) {
  static const char *const HTML[] = {"lang", NULL};
  static const char *const BASE[] = {"href", NULL};
  static const char *const META[] = {"name", "content", "http-equiv", NULL};
  static const char *const HREF[] = {"href", "alt", "title", NULL};
  static const char *const SRC[] = {"src", "alt", "title", NULL};
  switch (id) {
    case N_HTML: return HTML;
    case N_BASE: return BASE;
    case N_META: return META;
    case N_A:
    case N_AREA: return HREF;
    case N_FRAME:
    case N_IFRAME:
    case N_IMG: return SRC;
    default: return NULL;
  }
}

/* Which wanted name s[start, end) is (-1: none); non-ASCII in it sets x->fallback. */
static int match_attribute(ctx *x, size_t start, size_t end, const char *const *wanted) {
  size_t n = end - start;
  for (size_t i = start; i < end; i++)
    if (x->s[i] > 0x7f) {
      x->fallback = 1;
      return -1;
    }
  for (int k = 0; wanted[k]; k++) {
    const char *w = wanted[k];
    size_t i = 0;
    for (; i < n && w[i]; i++) {
      uint16_t c = x->s[start + i];
      if ((c >= 0x41 && c <= 0x5a ? c | 0x20 : c) != (uint16_t)w[i]) break;
    }
    if (i == n && !w[n]) return k;
  }
  return -1;
}

/* An attribute's value: the first one of a name wins; entities decoded into the pool. */
static void attribute(ctx *x, int k, size_t start, size_t end) {
  if (k < 0 || x->attr_at[k] >= 0) return;
  nwax_u16 *pool = &x->r->pool;
  size_t at = pool->n;
  if (has_amp(x->s, start, end)) {
    if (!x->o->decode(x->o->ctx, NWAX_DECODE_ATTRIBUTE, x->s + start, end - start, pool)) x->failed = 1;
  } else if (!nwax_u16_append(pool, x->s + start, end - start)) {
    x->failed = 1;
  }
  if (pool->n > INT32_MAX) x->failed = 1;
  x->attr_at[k] = (int32_t)at;
  x->attr_len[k] = (int32_t)(pool->n - at);
}

/* HtmlScanner.attributes: the index past the tag's '>', or NONE when the input ends first. */
static size_t attributes(ctx *x, size_t i, const char *const *wanted) {
  const uint16_t *s = x->s;
  size_t len = x->len;
  int slash = 0; /* htmlparser2's InSelfClosingTag state */
  x->self_closing = 0;
  while (i < len) {
    uint16_t c = s[i];
    if (c == GT) {
      x->self_closing = slash;
      return i + 1;
    }
    if (is_space(c)) {
      i++;
      continue;
    }
    if (c == SLASH) {
      slash = 1;
      i++;
      continue;
    }
    slash = 0;
    size_t name_start = i++;
    while (i < len && s[i] != EQ && !is_end_of_name(s[i])) i++;
    if (i >= len) return NONE;
    size_t name_end = i;
    int key = wanted ? match_attribute(x, name_start, name_end, wanted) : -1;
    if (x->fallback) return len;
    while (i < len && is_space(s[i])) i++;
    if (i >= len) return NONE;
    if (s[i] != EQ) {
      attribute(x, key, i, i);
      continue;
    }
    i++;
    while (i < len && is_space(s[i])) i++;
    if (i >= len) return NONE;
    uint16_t q = s[i];
    if (q == DQ || q == SQ) {
      size_t close = index_of(s, len, q, i + 1);
      if (close == NONE) return NONE;
      attribute(x, key, i + 1, close);
      i = close + 1;
    } else {
      size_t start = i;
      while (i < len && s[i] != GT && !is_space(s[i])) i++;
      if (i >= len) return NONE;
      attribute(x, key, start, i);
    }
  }
  return NONE;
}

/* ---- resources mode (replay/page-resources.ts): what a page embeds ---- */

/*
 * The attributes read of a tag, in the order page-resources.ts reads them: those naming a
 * resource (`urls` of them, first), then srcset and style, which any tag may have. A <link>
 * is a stylesheet or an icon by its rel; <base href> changes what the rest resolve against.
 */
typedef struct resource_spec {
  const char *name;
  const char *const attrs[ATTR_SLOTS + 1];
  int urls;
  int role; /* RES_* */
} resource_spec;

enum { RES_PLAIN, RES_LINK, RES_BASE };

static const resource_spec RESOURCE_TAGS[] = {
    {"img", {"src", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"script", {"src", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"iframe", {"src", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"frame", {"src", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"embed", {"src", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"source", {"src", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"video", {"src", "poster", "srcset", "style", NULL}, 2, RES_PLAIN},
    {"audio", {"src", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"track", {"src", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"input", {"src", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"object", {"data", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"body", {"background", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"table", {"background", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"td", {"background", "srcset", "style", NULL}, 1, RES_PLAIN},
    {"link", {"href", "rel", "srcset", "style", NULL}, 0, RES_LINK},
    {"base", {"href", "srcset", "style", NULL}, 0, RES_BASE},
};
static const resource_spec ANY_TAG = {"", {"srcset", "style", NULL}, 0, RES_PLAIN};

/* The spec of tag `id`, kept in x->res for its events. */
static const char *const *resource_attributes(ctx *x, int id) {
  x->res = id < shared.count && shared_res[id] ? shared_res[id] : &ANY_TAG;
  return x->res->attrs;
}

/* The known names numbered, then the shared table built (once, before any document). */
static void number_names(void) {
  number_known();
  table_init(&shared, 0);
  int ok = 1;
  for (int id = 0; id < KNOWN_COUNT; id++) ok &= shared_id(known_names[id], strlen(known_names[id])) == id;
  for (int k = 0; SVG_NAMES[k]; k++) {
    char lower[64];
    size_t n = strlen(SVG_NAMES[k]);
    if (n >= sizeof lower) {
      ok = 0;
      continue;
    }
    for (size_t i = 0; i < n; i++) lower[i] = (char)(SVG_NAMES[k][i] >= 'A' && SVG_NAMES[k][i] <= 'Z' ? SVG_NAMES[k][i] | 0x20 : SVG_NAMES[k][i]);
    ok &= shared_id(SVG_NAMES[k], n) >= 0 && shared_id(lower, n) >= 0;
  }
  for (size_t i = 0; i < sizeof RESOURCE_TAGS / sizeof RESOURCE_TAGS[0]; i++) {
    int id = shared_id(RESOURCE_TAGS[i].name, strlen(RESOURCE_TAGS[i].name));
    if (id < 0) ok = 0;
    else shared_res[id] = &RESOURCE_TAGS[i];
  }
  /* HtmlScanner.tagName's SVG name of each: the one whose lower case it is. */
  for (size_t slot = 0; slot < NAME_SLOTS; slot++) {
    int id = shared.slot_id[slot];
    if (id < 0) continue;
    const char *name = shared.chars + shared.slot_at[slot];
    size_t n = shared.slot_len[slot];
    shared_svg_of[id] = -1;
    for (int k = 0; SVG_NAMES[k]; k++) {
      const char *svg = SVG_NAMES[k];
      if (strlen(svg) != n) continue;
      size_t i = 0;
      while (i < n && (svg[i] >= 'A' && svg[i] <= 'Z' ? svg[i] | 0x20 : svg[i]) == name[i]) i++;
      if (i == n) {
        shared_svg_of[id] = shared_id(svg, n);
        break;
      }
    }
  }
  shared_ok = ok;
}

/* The open tag's events: its URL attributes (or its <link> or <base>), then srcset, then style. */
static void resources_open(ctx *x, int id) {
  if (id == known_style) x->in_style = 1;
  const resource_spec *r = x->res;
  /* A tag the tree rules open themselves (</p>, </br>) has no attributes. */
  if (!r) return;
  x->res = NULL;
  int k = 0;
  if (r->role == RES_BASE) {
    if (x->attr_at[0] >= 0 && x->attr_len[0] > 0) event(x, NWAX_EV_BASE, 0, -1, -1, 0);
    k = 1;
  } else if (r->role == RES_LINK) {
    if (x->attr_at[0] >= 0) event(x, NWAX_EV_STYLESHEET, 0, 1, -1, 0);
    k = 2;
  } else {
    for (; k < r->urls; k++)
      if (x->attr_at[k] >= 0) event(x, NWAX_EV_RESOURCE, k, -1, -1, 0);
  }
  if (x->attr_at[k] >= 0) event(x, NWAX_EV_SRCSET, k, -1, -1, 0);
  if (x->attr_at[k + 1] >= 0) event(x, NWAX_EV_STYLE, k + 1, -1, -1, 0);
}

/*
 * Text read while a <style> is open (its raw text; in SVG, text whose entities `kind` decodes),
 * as a style event's string.
 */
static void style_text(ctx *x, size_t start, size_t end, int kind) {
  nwax_u16 *pool = &x->r->pool;
  size_t at = pool->n;
  int ok = kind >= 0 && has_amp(x->s, start, end) ? x->o->decode(x->o->ctx, kind, x->s + start, end - start, pool)
                                                  : nwax_u16_append(pool, x->s + start, end - start);
  if (!ok || pool->n > INT32_MAX) {
    x->failed = 1;
    return;
  }
  int32_t ev[NWAX_EV_FIELDS] = {NWAX_EV_STYLE, (int32_t)at, (int32_t)(pool->n - at), -1, 0, -1, 0, 0};
  if (!i32_push(&x->r->events, ev, NWAX_EV_FIELDS)) x->failed = 1;
}

static size_t open_tag(ctx *x, size_t lt) {
  const uint16_t *s = x->s;
  size_t len = x->len;
  size_t e = lt + 2;
  while (e < len && !is_end_of_name(s[e])) e++;
  if (e >= len) return len; /* a tag name cut by the end of the input is dropped */
  int lower = tag_id(x, lt + 1, e);
  if (lower < 0) return len;
  /* Raw text and the name's case are decided before this tag changes the context. */
  int in_foreign = top_context(x) != CTX_HTML;
  int id = tag_name(x, lower);
  int special = !in_foreign && (flags_of(lower) & (F_RAW | F_RCDATA | F_PLAINTEXT));
  if (special && (flags_of(lower) & F_PLAINTEXT)) {
    x->fallback = 1;
    return len;
  }
  int ignored = id == N_FORM && on_stack(x, N_FORM);
  no_attributes(x);
  const char *const *wanted = ignored ? NULL : x->o->resources ? resource_attributes(x, id) : wanted_attributes(id);
  size_t end = attributes(x, e, wanted);
  if (x->fallback) return len;
  if (end == NONE) {
    /* Cut by the end of the input: opened (its name), never ended. */
    open_name(x, id);
    return len;
  }
  if (open_name(x, id)) {
    end_open(x, id);
    /* A self-closing mark is honoured in SVG and MathML only. */
    if (x->self_closing && top_context(x) != CTX_HTML && x->depth > 0 && x->stack[x->depth - 1] == id) pop(x);
  }
  if (special) x->raw = lower;
  return end;
}

static size_t markup(ctx *x, size_t lt) {
  uint16_t c = x->s[lt + 1];
  if (is_alpha(c)) return open_tag(x, lt);
  if (c == SLASH) return close_tag(x, lt);
  if (c == BANG) return declaration(x, lt);
  return skip_to(x, lt + 2, GT); /* `<?`: a bogus comment */
}

/* Whether the '<' at lt starts markup (the input is all there). */
static int is_markup(ctx *x, size_t lt) {
  if (lt + 1 >= x->len) return 0;
  uint16_t c = x->s[lt + 1];
  if (is_alpha(c) || c == BANG || c == QUESTION) return 1;
  if (c != SLASH) return 0;
  return lt + 2 < x->len;
}

/* The end tag of raw-text element `name` from `from`: `</name` then one of "\t\n\f\r />", any case. */
static size_t raw_end_tag(ctx *x, const char *name, size_t from) {
  const uint16_t *s = x->s;
  size_t len = x->len, n = strlen(name);
  /* A script or style is most of many pages: '<'s are found by index_of, not by a test per unit. */
  for (size_t i = index_of(s, len, LT, from); i != NONE && i + 2 + n < len; i = index_of(s, len, LT, i + 1)) {
    if (s[i + 1] != SLASH) continue;
    size_t k = 0;
    for (; k < n; k++) {
      uint16_t c = s[i + 2 + k];
      if ((c >= 0x41 && c <= 0x5a ? c | 0x20 : c) != (uint16_t)name[k]) break;
    }
    if (k < n) continue;
    uint16_t d = s[i + 2 + n];
    if (d == 0x09 || d == 0x0a || d == 0x0c || d == 0x0d || d == 0x20 || d == SLASH || d == GT) return i;
  }
  return NONE;
}

static size_t raw_text(ctx *x, size_t pos) {
  int rcdata = flags_of(x->raw) & F_RCDATA;
  int kind = !rcdata ? -1 : x->raw == N_TITLE ? NWAX_DECODE_TITLE : NWAX_DECODE_TEXTAREA;
  const char *name = known_names[x->raw];
  size_t at = raw_end_tag(x, name, pos);
  if (at == NONE) {
    text(x, pos, x->len, kind);
    return x->len;
  }
  size_t name_end = at + 2 + strlen(name);
  size_t gt = x->s[name_end] == GT ? name_end : index_of(x->s, x->len, GT, name_end);
  text(x, pos, at, kind);
  int id = x->raw;
  x->raw = -1;
  end_tag(x, tag_name(x, id));
  return gt == NONE ? x->len : gt + 1;
}

static void scan(ctx *x) {
  size_t pos = 0, len = x->len;
  while (pos < len && !x->fallback && !x->failed) {
    if (x->raw >= 0) {
      pos = raw_text(x, pos);
      continue;
    }
    size_t lt = index_of(x->s, len, LT, pos);
    while (lt != NONE && !is_markup(x, lt)) lt = index_of(x->s, len, LT, lt + 1);
    if (lt == NONE) {
      text(x, pos, len, NWAX_DECODE_TEXT);
      break;
    }
    text(x, pos, lt, NWAX_DECODE_TEXT);
    pos = markup(x, lt);
  }
  /* htmlparser2 closes what is still open, innermost first. */
  if (!x->fallback && !x->failed)
    for (size_t i = x->depth; i-- > 0;) on_close(x, x->stack[i]);
}

int nwax_html_extract(const uint16_t *s, size_t len, const nwax_html_opts *opts, nwax_html_result *r) {
  pthread_once(&known_once, number_names);
  memset(r, 0, sizeof *r);
  if (!shared_ok) return NWAX_HTML_ERROR;
  ctx x;
  memset(&x, 0, sizeof x);
  x.s = s;
  x.len = len;
  x.o = opts;
  x.r = r;
  x.raw = -1;
  x.open = calloc(NAME_IDS, sizeof *x.open);
  if (!x.open) x.failed = 1;
  push_context(&x, CTX_HTML);
  if (!x.failed) scan(&x);
  free(x.stack);
  free(x.open);
  free(x.contexts);
  free(x.lower);
  free(x.scratch.p);
  if (x.own) free(x.own->chars);
  free(x.own);
  if (x.failed) return NWAX_HTML_ERROR;
  return x.fallback ? NWAX_HTML_FALLBACK : NWAX_HTML_OK;
}
