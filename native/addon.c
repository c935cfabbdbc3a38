/*
 * Node-API bindings of the addon's kernels (build/Release/nwax_native.node): the sort, merge,
 * gathers, batch adds and sum of lines and records, dedup-cdx's keys, the HTML extractor and
 * its UTF-8 decoding, eld's scores, JSON strings, inlinks' anchors, FTS5 segments and, where libdeflate was found
 * at build time, whole gzip members (gunzip-members.h). Its callers are the modules of
 * src/native/, one per kernel, which keep to the shapes documented there; the `st` fields both
 * sides read are generated/shared.h's (from native/shared.json). A wrong type or an index
 * outside its array throws rather than crashes.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "cdx-keys.h"
#include "eld-score.h"
#include "fts-segment.h"
#ifdef NWAX_LIBDEFLATE
#include "gunzip-members.h"
#endif
#include "html-binding.h"
#include "inlink-anchors.h"
#include "json-string.h"
#include "line-gather.h"
#include "line-merge.h"
#include "line-sort.h"
#include "long-sum.h"
#include "record-add.h"

#define BAD_ARGUMENT()                                                  \
  do {                                                                  \
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument"); \
    return NULL;                                                        \
  } while (0)

#define CHECK(call) \
  if ((call) != napi_ok) BAD_ARGUMENT()

/* The call's arguments into argv[N], at least N of them. */
#define ARGS(N)                                                   \
  size_t argc = N;                                                \
  napi_value argv[N];                                             \
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));    \
  if (argc < N) BAD_ARGUMENT()

/* A typed array's (a Buffer's) data and byte length. */
typedef struct {
  void *p;
  size_t n;
} span;

static int span_of(napi_env env, napi_value v, span *s) {
  napi_typedarray_type type;
  size_t length, offset;
  napi_value ab;
  if (napi_get_typedarray_info(env, v, &type, &length, &s->p, &ab, &offset) != napi_ok) return 0;
  size_t size = 1;
  if (type == napi_int32_array || type == napi_uint32_array || type == napi_float32_array) size = 4;
  else if (type == napi_float64_array || type == napi_bigint64_array || type == napi_biguint64_array) size = 8;
  else if (type == napi_int16_array || type == napi_uint16_array) size = 2;
  s->n = length * size;
  return 1;
}

/* The typed arrays argv[at[0]], argv[at[1]], ... into s[0], s[1], ... */
static int spans(napi_env env, const napi_value *argv, const int *at, int count, span *s) {
  for (int i = 0; i < count; i++)
    if (!span_of(env, argv[at[i]], &s[i])) return 0;
  return 1;
}

static int32_t int_arg(napi_env env, napi_value v) {
  int32_t n = 0;
  napi_get_value_int32(env, v, &n);
  return n;
}

static napi_value int_result(napi_env env, int32_t n) {
  napi_value r;
  CHECK(napi_create_int32(env, n, &r));
  return r;
}

/* sortLines(buf, start, len, order, cache, lo, hi): sorts order[lo, hi) by the lines' bytes. */
static napi_value sort_lines(napi_env env, napi_callback_info info) {
  ARGS(7);
  static const int at[] = {0, 1, 2, 3, 4};
  span a[5];
  if (!spans(env, argv, at, 5, a)) BAD_ARGUMENT();
  const int32_t lo = int_arg(env, argv[5]);
  const int32_t hi = int_arg(env, argv[6]);
  if (lo < 0 || hi < lo || (size_t)hi * 4 > a[3].n || (size_t)hi * 8 > a[4].n) BAD_ARGUMENT();
  nwax_lines lines = {a[0].p, a[0].n, a[1].p, a[2].p};
  nwax_sort_lines(&lines, (int32_t *)a[3].p + lo, (uint64_t *)a[4].p + lo, (size_t)(hi - lo));
  return NULL;
}

/*
 * gatherLines(buf, start, len, order, from, to, out, st, unique): copies lines order[from, to)
 * into out from st[GATHER_USED] on (st[GATHER_PREV]: the last line put out, for unique);
 * returns where it stopped.
 */
static napi_value gather_lines(napi_env env, napi_callback_info info) {
  ARGS(9);
  static const int at[] = {0, 1, 2, 3, 6, 7};
  span a[6];
  if (!spans(env, argv, at, 6, a) || a[5].n < 8) BAD_ARGUMENT();
  const int32_t from = int_arg(env, argv[4]);
  const int32_t to = int_arg(env, argv[5]);
  bool unique = false;
  CHECK(napi_get_value_bool(env, argv[8], &unique));
  if (from < 0 || to < from || (size_t)to * 4 > a[3].n) BAD_ARGUMENT();
  nwax_lines lines = {a[0].p, a[0].n, a[1].p, a[2].p};
  int32_t *st = a[5].p;
  return int_result(env, nwax_gather_lines(&lines, a[3].p, from, to, a[4].p, a[4].n, &st[GATHER_USED], unique, &st[GATHER_PREV]));
}

/*
 * gatherSingles(buf, start, len, klen, order, from, to, out, st): copies records of single
 * keys order[from, ...) into out from st[GATHER_USED] on; returns where it stopped.
 */
static napi_value gather_singles(napi_env env, napi_callback_info info) {
  ARGS(9);
  static const int at[] = {0, 1, 2, 3, 4, 7, 8};
  span a[7];
  if (!spans(env, argv, at, 7, a) || a[6].n < 4) BAD_ARGUMENT();
  const int32_t from = int_arg(env, argv[5]);
  const int32_t to = int_arg(env, argv[6]);
  if (from < 0 || to < from || (size_t)to * 4 > a[4].n) BAD_ARGUMENT();
  nwax_lines lines = {a[0].p, a[0].n, a[1].p, a[2].p};
  int32_t *st = a[6].p;
  return int_result(env, nwax_gather_singles(&lines, a[3].p, a[4].p, from, to, a[5].p, a[5].n, &st[GATHER_USED]));
}

/*
 * addRecords(buf, start, len, part, klen, st, limit, perLine, keys, pairs, from, n, value,
 * reduces): see nwax_add_records; st = [bytes used, line count].
 */
static napi_value add_records(napi_env env, napi_callback_info info) {
  ARGS(14);
  static const int at[] = {0, 1, 2, 3, 4, 5, 8, 9, 12};
  span a[9];
  if (!spans(env, argv, at, 9, a) || a[5].n < 8) BAD_ARGUMENT();
  double limit, per_line;
  CHECK(napi_get_value_double(env, argv[6], &limit));
  CHECK(napi_get_value_double(env, argv[7], &per_line));
  const int32_t from = int_arg(env, argv[10]);
  const int32_t n = int_arg(env, argv[11]);
  const int32_t reduces = int_arg(env, argv[13]);
  if (from < 0 || n < from || (size_t)n * 8 > a[7].n) BAD_ARGUMENT();
  const int32_t *pairs = a[7].p;
  for (int32_t j = from; j < n; j++) /* every key must lie in `keys` */
    if (pairs[2 * j] < 0 || pairs[2 * j + 1] < pairs[2 * j] || (size_t)pairs[2 * j + 1] > a[6].n) BAD_ARGUMENT();
  size_t cap = a[1].n;
  for (int i = 2; i <= 4; i++)
    if (a[i].n < cap) cap = a[i].n;
  nwax_record_arena arena = {a[0].p, a[0].n, a[1].p, a[2].p, a[3].p, a[4].p, cap / 4, limit, per_line};
  return int_result(env, nwax_add_records(&arena, a[5].p, a[6].p, pairs, from, n, a[8].p, a[8].n, reduces));
}

/*
 * cdxKeys(buf, start, len, part, st, limit, perLine, chunk, from, to, revisits): see
 * nwax_cdx_keys (native/cdx-keys.h gives st's fields); returns the position in chunk reached.
 */
static napi_value cdx_keys(napi_env env, napi_callback_info info) {
  ARGS(11);
  static const int at[] = {0, 1, 2, 3, 4, 7};
  span a[6];
  if (!spans(env, argv, at, 6, a) || a[4].n < CDX_KEYS_FIELDS * 4) BAD_ARGUMENT();
  double limit, per_line;
  CHECK(napi_get_value_double(env, argv[5], &limit));
  CHECK(napi_get_value_double(env, argv[6], &per_line));
  const int32_t from = int_arg(env, argv[8]);
  const int32_t to = int_arg(env, argv[9]);
  bool revisits = false;
  CHECK(napi_get_value_bool(env, argv[10], &revisits));
  size_t cap = a[1].n;
  for (int i = 2; i <= 3; i++)
    if (a[i].n < cap) cap = a[i].n;
  cap /= 4;
  int32_t *st = a[4].p;
  if (from < 0 || to < from || (size_t)to > a[5].n || st[CDX_KEYS_USED] < 0 || (size_t)st[CDX_KEYS_USED] > a[0].n ||
      st[CDX_KEYS_COUNT] < 0 || (size_t)st[CDX_KEYS_COUNT] > cap)
    BAD_ARGUMENT();
  nwax_record_arena arena = {a[0].p, a[0].n, a[1].p, a[2].p, a[3].p, NULL, cap, limit, per_line};
  return int_result(env, nwax_cdx_keys(&arena, st, a[5].p, from, to, revisits));
}

/* cdxDups(chunk, from, to, group, out, st): see nwax_cdx_dups. */
static napi_value cdx_dups(napi_env env, napi_callback_info info) {
  ARGS(6);
  static const int at[] = {0, 3, 4, 5};
  span a[4];
  if (!spans(env, argv, at, 4, a) || a[3].n < CDX_DUPS_FIELDS * 4) BAD_ARGUMENT();
  const int32_t from = int_arg(env, argv[1]);
  const int32_t to = int_arg(env, argv[2]);
  int32_t *st = a[3].p;
  if (from < 0 || to < from || (size_t)to > a[0].n || st[CDX_DUPS_USED] < 0 || st[CDX_DUPS_GROUP_LEN] > (int32_t)a[1].n ||
      a[1].n < (size_t)(to - from) || (size_t)st[CDX_DUPS_USED] + (size_t)(to - from) > a[2].n)
    BAD_ARGUMENT();
  nwax_cdx_dups(a[0].p, from, to, a[1].p, a[2].p, st);
  return NULL;
}

/*
 * longSum(key, block, blockSize, chunk, from, to, st, sum): see nwax_long_sum; returns the
 * position in chunk reached.
 */
static napi_value long_sum(napi_env env, napi_callback_info info) {
  ARGS(8);
  static const int at[] = {0, 1, 3, 6, 7};
  span a[5];
  if (!spans(env, argv, at, 5, a) || a[3].n < SUM_FIELDS * 4 || a[4].n < 8) BAD_ARGUMENT();
  const int32_t block_size = int_arg(env, argv[2]);
  const int32_t from = int_arg(env, argv[4]);
  const int32_t to = int_arg(env, argv[5]);
  int32_t *st = a[3].p;
  if (from < 0 || to < from || (size_t)to > a[2].n || st[SUM_KEY_LEN] > (int32_t)a[0].n || st[SUM_USED] < 0 ||
      (size_t)st[SUM_USED] > a[1].n)
    BAD_ARGUMENT();
  nwax_sum_buffers b = {a[0].p, a[0].n, a[1].p, a[1].n, block_size};
  return int_result(env, nwax_long_sum(&b, a[2].p, from, to, st, a[4].p));
}

static void merge_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  nwax_merge_free(data);
}

/* mergeOpen(k, unique, cur, tree): a merge of k sources; cur and tree stay the caller's. */
static napi_value merge_open(napi_env env, napi_callback_info info) {
  ARGS(4);
  static const int at[] = {2, 3};
  span a[2];
  const int32_t k = int_arg(env, argv[0]);
  if (k < 0 || !spans(env, argv, at, 2, a) || a[0].n < (size_t)k * CUR_FIELDS * 4 || a[1].n < (size_t)k * 4)
    BAD_ARGUMENT();
  bool unique = false;
  CHECK(napi_get_value_bool(env, argv[1], &unique));
  nwax_merge *m = nwax_merge_new(k, unique, a[0].p, a[1].p);
  if (m == NULL) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: out of memory");
    return NULL;
  }
  napi_value ext;
  CHECK(napi_create_external(env, m, merge_finalize, NULL, &ext));
  return ext;
}

/* mergeSource(m, i, buf[, order, start, len]): source i's bytes (and arena index). */
static napi_value merge_source(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) BAD_ARGUMENT();
  nwax_merge *m;
  CHECK(napi_get_value_external(env, argv[0], (void **)&m));
  const int32_t i = int_arg(env, argv[1]);
  static const int at[] = {2, 3, 4, 5};
  span a[4];
  if (i < 0 || i >= m->k || !spans(env, argv, at, argc >= 6 ? 4 : 1, a)) BAD_ARGUMENT();
  m->buf[i] = a[0].p;
  m->order[i] = argc >= 6 ? a[1].p : NULL;
  m->start[i] = argc >= 6 ? a[2].p : NULL;
  m->len[i] = argc >= 6 ? a[3].p : NULL;
  return NULL;
}

/* mergeRun(m, out, st): merges into out; returns MERGE_DONE, _OUT_FULL or _REFILL. */
static napi_value merge_run(napi_env env, napi_callback_info info) {
  ARGS(3);
  nwax_merge *m;
  CHECK(napi_get_value_external(env, argv[0], (void **)&m));
  static const int at[] = {1, 2};
  span a[2];
  if (!spans(env, argv, at, 2, a) || a[1].n < 12) BAD_ARGUMENT();
  const int status = nwax_merge_run(m, a[0].p, a[0].n, a[1].p);
  if (status < 0) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: out of memory");
    return NULL;
  }
  return int_result(env, status);
}

/*
 * utf16Length(buf, s, e): the UTF-16 code units of the UTF-8 bytes buf[s, e): one per byte
 * that starts a character, one more per four-byte one. Record files cut blocks by the length
 * of their lines as strings; a line appended as bytes is counted here (a loop the compiler
 * vectorizes, where JavaScript's ran at 0.7 GB/s).
 */
static napi_value utf16_length(napi_env env, napi_callback_info info) {
  ARGS(3);
  span b;
  if (!span_of(env, argv[0], &b)) BAD_ARGUMENT();
  const int32_t s = int_arg(env, argv[1]), e = int_arg(env, argv[2]);
  if (s < 0 || e < s || (size_t)e > b.n) BAD_ARGUMENT();
  const unsigned char *p = b.p;
  int32_t n = 0;
  for (int32_t i = s; i < e; i++) n += ((p[i] & 0xc0) != 0x80) + (p[i] >= 0xf0);
  return int_result(env, n);
}

/*
 * inlinkAnchors(buf, start, end, spans): a URL's inlinks in buf[start, end) (inlink-anchors.h):
 * their count, the distinct anchors' [start, end) in buf written into the Int32Array spans
 * after their number (spans[0]); or -1 for JSON.parse to read, or -2 for a larger spans.
 */
static napi_value inlink_anchors(napi_env env, napi_callback_info info) {
  ARGS(4);
  span b, out;
  if (!span_of(env, argv[0], &b) || !span_of(env, argv[3], &out) || out.n < 4) BAD_ARGUMENT();
  const int32_t s = int_arg(env, argv[1]);
  const int32_t e = int_arg(env, argv[2]);
  if (s < 0 || e < s || (size_t)e > b.n) BAD_ARGUMENT();
  int32_t *spans = out.p;
  size_t distinct = 0;
  const ptrdiff_t count = nwax_inlink_anchors((const uint8_t *)b.p + s, (size_t)(e - s), spans + 1, (out.n / 4 - 1) / 2, &distinct);
  for (size_t i = 0; i < 2 * distinct; i++) spans[1 + i] += s;
  spans[0] = (int32_t)distinct;
  return int_result(env, (int32_t)count);
}

/* jsonString(s): a Buffer of JSON.stringify(s)'s UTF-8 (json-string.h). */
static napi_value json_string(napi_env env, napi_callback_info info) {
  ARGS(1);
  size_t len, copied;
  CHECK(napi_get_value_string_utf16(env, argv[0], NULL, 0, &len));
  /* The string, then room for its JSON at the most (six bytes a unit: \uxxxx), in one block:
   * one pass writes it, and the Buffer is a copy of what it wrote. */
  uint16_t *s = malloc((len + 1) * 2 + nwax_json_string_room(len));
  if (!s) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: out of memory");
    return NULL;
  }
  napi_value out = NULL;
  uint8_t *json = (uint8_t *)(s + len + 1);
  if (napi_get_value_string_utf16(env, argv[0], (char16_t *)s, len + 1, &copied) != napi_ok ||
      napi_create_buffer_copy(env, nwax_json_string(s, copied, json), json, NULL, &out) != napi_ok)
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument");
  free(s);
  return out;
}

/*
 * jsonStringDecode(buf, start, end): JSON.parse of the JSON string buf[start, end) (its quotes
 * included, as UTF-8), made straight from the bytes; undefined where that would fail or the
 * bytes are not valid UTF-8 (json-string.h). A Latin-1 string is made one byte a character.
 */
static napi_value json_string_decode(napi_env env, napi_callback_info info) {
  ARGS(3);
  span b;
  if (!span_of(env, argv[0], &b)) BAD_ARGUMENT();
  const int32_t s = int_arg(env, argv[1]);
  const int32_t e = int_arg(env, argv[2]);
  if (s < 0 || e < s || (size_t)e > b.n) BAD_ARGUMENT();
  const size_t n = (size_t)(e - s);
  uint16_t small[4096];
  uint16_t *units = n <= 4096 ? small : malloc(n * 2);
  if (!units) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: out of memory");
    return NULL;
  }
  int wide = 0;
  const ptrdiff_t len = nwax_json_string_decode((const uint8_t *)b.p + s, n, units, &wide);
  napi_value out = NULL;
  napi_status st;
  if (len < 0) {
    st = napi_get_undefined(env, &out);
  } else if (wide) {
    st = napi_create_string_utf16(env, (const char16_t *)units, (size_t)len, &out);
  } else {
    /* Packed in place: each byte lands at or before the unit it comes from. */
    char *bytes = (char *)units;
    for (ptrdiff_t i = 0; i < len; i++) bytes[i] = (char)units[i];
    st = napi_create_string_latin1(env, bytes, (size_t)len, &out);
  }
  if (units != small) free(units);
  if (st != napi_ok) BAD_ARGUMENT();
  return out;
}

static void eld_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  nwax_eld_free(data);
}

/*
 * eldTable(keys, keyAt, weights, wAt, dict, languages): eld's n-gram table (eld-score.h);
 * keyAt and wAt hold count + 1 offsets each, dict 256 character codes.
 */
static napi_value eld_table(napi_env env, napi_callback_info info) {
  ARGS(6);
  static const int at[] = {0, 1, 2, 3, 4};
  span a[5];
  if (!spans(env, argv, at, 5, a) || a[1].n < 4 || a[1].n != a[3].n || a[4].n != 256) BAD_ARGUMENT();
  const int32_t languages = int_arg(env, argv[5]);
  const uint32_t count = (uint32_t)(a[1].n / 4 - 1);
  const int32_t *key_at = a[1].p, *w_at = a[3].p;
  /* Offsets that rise and stay inside their arrays, weights in pairs. */
  if (languages <= 0 || languages > 256 || key_at[0] != 0 || w_at[0] != 0) BAD_ARGUMENT();
  for (uint32_t i = 0; i < count; i++)
    if (key_at[i + 1] < key_at[i] || w_at[i + 1] < w_at[i] || (w_at[i + 1] - w_at[i]) % 2 != 0) BAD_ARGUMENT();
  if ((size_t)key_at[count] > a[0].n || (size_t)w_at[count] * 4 > a[2].n) BAD_ARGUMENT();
  nwax_eld *t = nwax_eld_new(a[0].p, key_at, a[2].p, w_at, count, a[4].p, languages);
  if (t == NULL) BAD_ARGUMENT();
  napi_value ext;
  CHECK(napi_create_external(env, t, eld_finalize, NULL, &ext));
  return ext;
}

/* eld reads at most 381 bytes of a text (utf8Words): never more units than this. */
#define ELD_UNITS 1024

/* eldScore(table, text, scores): scores (a Float64Array, one per language) summed; returns the distinct n-grams. */
static napi_value eld_score(napi_env env, napi_callback_info info) {
  ARGS(3);
  nwax_eld *t;
  CHECK(napi_get_value_external(env, argv[0], (void **)&t));
  span sc;
  if (!span_of(env, argv[2], &sc) || sc.n < (size_t)nwax_eld_languages(t) * sizeof(double)) BAD_ARGUMENT();
  char16_t units[ELD_UNITS];
  size_t n = 0;
  CHECK(napi_get_value_string_utf16(env, argv[1], units, ELD_UNITS, &n));
  return int_result(env, (int32_t)nwax_eld_score(t, (const uint16_t *)units, n, sc.p));
}

/* --- FTS5 segments (fts-segment.h): a builder behind an external, freed once --- */

typedef struct {
  nwax_fts *f;
  uint8_t *text; /* the columns' UTF-8, reused */
  size_t text_cap;
  uint8_t *terms; /* an analysis's answer, reused */
  size_t terms_cap;
} fts_box;

static void fts_box_free(fts_box *b) {
  nwax_fts_free(b->f);
  b->f = NULL;
  free(b->text);
  b->text = NULL;
  free(b->terms);
  b->terms = NULL;
}

/* A string's UTF-8 into *buf (grown), from byte `at`; its length, or -1. */
static ptrdiff_t utf8_into(napi_env env, napi_value s, uint8_t **buf, size_t *cap, size_t at) {
  size_t n = 0;
  if (napi_get_value_string_utf8(env, s, NULL, 0, &n) != napi_ok) return -1;
  if (at + n + 1 > *cap) {
    size_t c = *cap ? *cap : 1 << 16;
    while (c < at + n + 1) c *= 2;
    uint8_t *p = realloc(*buf, c);
    if (p == NULL) return -1;
    *buf = p;
    *cap = c;
  }
  if (napi_get_value_string_utf8(env, s, (char *)*buf + at, n + 1, &n) != napi_ok) return -1;
  return (ptrdiff_t)n;
}

/*
 * The UTF-8 of the string a JSON string literal j[0, n) (quotes included) parses to, into *buf
 * (grown) from byte `at`, as napi_get_value_string_utf8 gives a string's (a lone surrogate as
 * U+FFFD); its length, or -1 where nwax_json_string_utf8 leaves it to JSON.parse.
 */
static ptrdiff_t json_utf8_into(const uint8_t *j, size_t n, uint8_t **buf, size_t *cap, size_t at) {
  const size_t need = at + n + 1;
  if (need > *cap) {
    size_t c = *cap ? *cap : 1 << 16;
    while (c < need) c *= 2;
    uint8_t *p = realloc(*buf, c);
    if (p == NULL) return -1;
    *buf = p;
    *cap = c;
  }
  return nwax_json_string_utf8(j, n, *buf + at);
}

/* nwax_fts_analyze through a JavaScript function (chunk: string) => string. */
typedef struct {
  napi_env env;
  napi_value fn;
  fts_box *box;
} js_analysis;

static const uint8_t *analyze_in_js(void *ctx, const uint8_t *chunk, size_t n, size_t *terms_n) {
  js_analysis *a = ctx;
  napi_value arg, global, result;
  if (napi_create_string_utf8(a->env, (const char *)chunk, n, &arg) != napi_ok || napi_get_global(a->env, &global) != napi_ok ||
      napi_call_function(a->env, global, a->fn, 1, &arg, &result) != napi_ok)
    return NULL;
  const ptrdiff_t tn = utf8_into(a->env, result, &a->box->terms, &a->box->terms_cap, 0);
  if (tn < 0) return NULL;
  *terms_n = (size_t)tn;
  return a->box->terms;
}

static void fts_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  fts_box_free(data);
  free(data);
}

static fts_box *fts_of(napi_env env, napi_value v) {
  fts_box *b = NULL;
  if (napi_get_value_external(env, v, (void **)&b) != napi_ok || b == NULL || b->f == NULL) return NULL;
  return b;
}

#define FTS_MAX_COLUMNS 16

/* The call's N arguments, the first a live builder: b. */
#define BUILDER_ARGS(N)              \
  ARGS(N);                           \
  fts_box *b = fts_of(env, argv[0]); \
  if (b == NULL) BAD_ARGUMENT()

/* ftsNew(columns, pgsz): a builder. */
static napi_value fts_new(napi_env env, napi_callback_info info) {
  ARGS(2);
  const int32_t ncol = int_arg(env, argv[0]);
  const int32_t pgsz = int_arg(env, argv[1]);
  if (ncol < 1 || ncol > FTS_MAX_COLUMNS || pgsz < 32) BAD_ARGUMENT();
  fts_box *b = calloc(1, sizeof(fts_box));
  if (b == NULL || (b->f = nwax_fts_new(ncol, pgsz)) == NULL) {
    free(b);
    BAD_ARGUMENT();
  }
  napi_value ext;
  CHECK(napi_create_external(env, b, fts_finalize, NULL, &ext));
  return ext;
}

/*
 * ftsAdd(builder, rowid, texts, analyze): texts (an array: per column a string, or a Uint8Array
 * holding a JSON string literal, its text) indexed as row rowid, a token with characters past
 * ASCII replaced by analyze(token)'s terms (analyze undefined: indexed as it is); returns its
 * %_docsize record, null where rowid does not increase, or false where a JSON string is one to
 * leave to JSON.parse (nothing added). An exception of analyze is thrown on (the builder takes
 * no more rows).
 */
static napi_value fts_add(napi_env env, napi_callback_info info) {
  BUILDER_ARGS(4);
  int64_t rowid;
  CHECK(napi_get_value_int64(env, argv[1], &rowid));
  uint32_t ncol;
  CHECK(napi_get_array_length(env, argv[2], &ncol));
  if (ncol < 1 || ncol > FTS_MAX_COLUMNS) BAD_ARGUMENT();
  napi_valuetype kind;
  CHECK(napi_typeof(env, argv[3], &kind));
  if (kind != napi_function && kind != napi_undefined) BAD_ARGUMENT();
  /* every column's UTF-8 into one buffer, then their starts */
  size_t lens[FTS_MAX_COLUMNS], at[FTS_MAX_COLUMNS], used = 0;
  for (uint32_t c = 0; c < ncol; c++) {
    napi_value s;
    CHECK(napi_get_element(env, argv[2], c, &s));
    bool is_bytes = false;
    CHECK(napi_is_typedarray(env, s, &is_bytes));
    span j;
    const ptrdiff_t n = !is_bytes ? utf8_into(env, s, &b->text, &b->text_cap, used)
                        : span_of(env, s, &j)  ? json_utf8_into(j.p, j.n, &b->text, &b->text_cap, used)
                                               : -2;
    if (n == -1 && is_bytes) {
      napi_value no;
      CHECK(napi_get_boolean(env, false, &no));
      return no;
    }
    if (n < 0) BAD_ARGUMENT();
    lens[c] = (size_t)n;
    at[c] = used;
    used += lens[c] + 1;
  }
  /* the kernel reads a word at a time: bytes after the last column */
  if (used + NWAX_FTS_SLACK > b->text_cap) {
    uint8_t *p = realloc(b->text, used + NWAX_FTS_SLACK);
    if (p == NULL) BAD_ARGUMENT();
    b->text = p;
    b->text_cap = used + NWAX_FTS_SLACK;
  }
  memset(b->text + used, 0, NWAX_FTS_SLACK);
  uint8_t *texts[FTS_MAX_COLUMNS];
  for (uint32_t c = 0; c < ncol; c++) texts[c] = b->text + at[c];
  uint8_t docsize[9 * FTS_MAX_COLUMNS];
  js_analysis a = {env, argv[3], b};
  const int n = nwax_fts_add(b->f, rowid, texts, lens, kind == napi_function ? analyze_in_js : NULL, &a, docsize);
  napi_value r;
  if (n < 0) {
    bool pending = false;
    CHECK(napi_is_exception_pending(env, &pending));
    if (pending) return NULL;
    CHECK(napi_get_null(env, &r));
    return r;
  }
  void *copy;
  CHECK(napi_create_buffer_copy(env, (size_t)n, docsize, &copy, &r));
  return r;
}

/* ftsPending(builder): the bytes held, as FTS5 counts them against its hashsize. */
static napi_value fts_pending(napi_env env, napi_callback_info info) {
  BUILDER_ARGS(1);
  napi_value r;
  CHECK(napi_create_double(env, (double)nwax_fts_pending(b->f), &r));
  return r;
}

static void free_records(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

/* ftsFlush(builder, segid): segment segid's records (see nwax_fts_flush), or null where nothing is held. */
static napi_value fts_flush(napi_env env, napi_callback_info info) {
  BUILDER_ARGS(2);
  const int32_t segid = int_arg(env, argv[1]);
  if (segid < 1 || segid > 2000) BAD_ARGUMENT();
  uint8_t *out;
  size_t n;
  if (nwax_fts_flush(b->f, segid, &out, &n) != 0) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: out of memory writing an FTS5 segment");
    return NULL;
  }
  napi_value r;
  if (n == 0) {
    free(out);
    CHECK(napi_get_null(env, &r));
    return r;
  }
  CHECK(napi_create_external_buffer(env, n, out, free_records, NULL, &r));
  return r;
}

/* ftsAverages(builder): the averages record of the rows added. */
static napi_value fts_averages(napi_env env, napi_callback_info info) {
  BUILDER_ARGS(1);
  uint8_t a[10 * (FTS_MAX_COLUMNS + 1)];
  const size_t na = nwax_fts_averages(b->f, a);
  napi_value r;
  void *copy;
  CHECK(napi_create_buffer_copy(env, na, a, &copy, &r));
  return r;
}

/* ftsFree(builder): its memory given back now (the finalizer would, later). */
static napi_value fts_free(napi_env env, napi_callback_info info) {
  ARGS(1);
  fts_box *b = NULL;
  CHECK(napi_get_value_external(env, argv[0], (void **)&b));
  if (b) fts_box_free(b);
  return NULL;
}

#ifdef NWAX_LIBDEFLATE
/*
 * gunzipMembers(input, start, end, out, counts): whole gzip members of input[start, end)
 * inflated into out (nwax_gunzip_members); returns why it stopped, and sets counts (a
 * Uint32Array of 4) to the bytes taken and made, and the last member's.
 */
static napi_value gunzip_members(napi_env env, napi_callback_info info) {
  ARGS(5);
  const int at[] = {0, 3, 4};
  span a[3];
  if (!spans(env, argv, at, 3, a) || a[2].n < 16) BAD_ARGUMENT();
  const int32_t start = int_arg(env, argv[1]), end = int_arg(env, argv[2]);
  if (start < 0 || end < start || (size_t)end > a[0].n) BAD_ARGUMENT();
  size_t took, made, last_in, last_out;
  const int why = nwax_gunzip_members((const uint8_t *)a[0].p + start, (size_t)(end - start), a[1].p, a[1].n, &took, &made, &last_in, &last_out);
  uint32_t *counts = a[2].p;
  counts[0] = (uint32_t)took;
  counts[1] = (uint32_t)made;
  counts[2] = (uint32_t)last_in;
  counts[3] = (uint32_t)last_out;
  return int_result(env, why);
}
#endif

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"sortLines", NULL, sort_lines, NULL, NULL, NULL, napi_default, NULL},
      {"gatherLines", NULL, gather_lines, NULL, NULL, NULL, napi_default, NULL},
      {"gatherSingles", NULL, gather_singles, NULL, NULL, NULL, napi_default, NULL},
      {"addRecords", NULL, add_records, NULL, NULL, NULL, napi_default, NULL},
      {"cdxKeys", NULL, cdx_keys, NULL, NULL, NULL, napi_default, NULL},
      {"cdxDups", NULL, cdx_dups, NULL, NULL, NULL, napi_default, NULL},
      {"longSum", NULL, long_sum, NULL, NULL, NULL, napi_default, NULL},
      {"mergeOpen", NULL, merge_open, NULL, NULL, NULL, napi_default, NULL},
      {"mergeSource", NULL, merge_source, NULL, NULL, NULL, napi_default, NULL},
      {"mergeRun", NULL, merge_run, NULL, NULL, NULL, napi_default, NULL},
      {"htmlExtract", NULL, nwax_html_extract_binding, NULL, NULL, NULL, napi_default, NULL},
      {"htmlExtractUtf8", NULL, nwax_html_extract_utf8_binding, NULL, NULL, NULL, napi_default, NULL},
      {"htmlResources", NULL, nwax_html_resources_binding, NULL, NULL, NULL, napi_default, NULL},
      {"decodeUtf8", NULL, nwax_decode_utf8_binding, NULL, NULL, NULL, napi_default, NULL},
      {"utf16Length", NULL, utf16_length, NULL, NULL, NULL, napi_default, NULL},
      {"eldTable", NULL, eld_table, NULL, NULL, NULL, napi_default, NULL},
      {"eldScore", NULL, eld_score, NULL, NULL, NULL, napi_default, NULL},
      {"jsonString", NULL, json_string, NULL, NULL, NULL, napi_default, NULL},
      {"jsonStringDecode", NULL, json_string_decode, NULL, NULL, NULL, napi_default, NULL},
      {"inlinkAnchors", NULL, inlink_anchors, NULL, NULL, NULL, napi_default, NULL},
      {"ftsNew", NULL, fts_new, NULL, NULL, NULL, napi_default, NULL},
      {"ftsAdd", NULL, fts_add, NULL, NULL, NULL, napi_default, NULL},
      {"ftsPending", NULL, fts_pending, NULL, NULL, NULL, napi_default, NULL},
      {"ftsFlush", NULL, fts_flush, NULL, NULL, NULL, napi_default, NULL},
      {"ftsAverages", NULL, fts_averages, NULL, NULL, NULL, napi_default, NULL},
      {"ftsFree", NULL, fts_free, NULL, NULL, NULL, napi_default, NULL},
#ifdef NWAX_LIBDEFLATE
      {"gunzipMembers", NULL, gunzip_members, NULL, NULL, NULL, napi_default, NULL},
#endif
  };
  if (napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props) != napi_ok) return NULL;
  return exports;
}
