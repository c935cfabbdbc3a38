/*
 * htmlExtract(html, textLimit, decode): the parse of one document's text (src/parse/native-html.ts
 * describes the result), or null when the document is one the JavaScript scanner reads
 * (NWAX_HTML_FALLBACK). `decode(kind, text)` is called for text and attribute values holding
 * an `&`; what it throws is thrown.
 */
#include "html-binding.h"

#include <stdlib.h>

#include "html-extract.h"
#include "utf8-decode.h"

typedef struct {
  napi_env env;
  napi_value fn;
} decoder;

static int decode(void *ctx, int kind, const uint16_t *s, size_t n, nwax_u16 *out) {
  decoder *d = ctx;
  napi_value args[2], global, result;
  size_t len;
  if (napi_create_int32(d->env, kind, &args[0]) != napi_ok) return 0;
  if (napi_create_string_utf16(d->env, (const char16_t *)s, n, &args[1]) != napi_ok) return 0;
  if (napi_get_global(d->env, &global) != napi_ok) return 0;
  if (napi_call_function(d->env, global, d->fn, 2, args, &result) != napi_ok) return 0;
  if (napi_get_value_string_utf16(d->env, result, NULL, 0, &len) != napi_ok) return 0;
  if (!nwax_u16_reserve(out, len + 1)) return 0; /* the text and the terminator napi writes */
  size_t copied;
  if (napi_get_value_string_utf16(d->env, result, (char16_t *)out->p + out->n, len + 1, &copied) != napi_ok) return 0;
  out->n += copied;
  return 1;
}

static int set_string(napi_env env, napi_value obj, const char *name, const nwax_u16 *b) {
  napi_value v;
  if (napi_create_string_utf16(env, (const char16_t *)(b->p ? b->p : (uint16_t *)u""), b->n, &v) != napi_ok) return 0;
  return napi_set_named_property(env, obj, name, v) == napi_ok;
}

static napi_value build(napi_env env, const nwax_html_result *r) {
  napi_value obj, v, ab;
  void *data;
  if (napi_create_object(env, &obj) != napi_ok) return NULL;
  if (!set_string(env, obj, "title", &r->title) || !set_string(env, obj, "text", &r->text) ||
      !set_string(env, obj, "lang", &r->lang) || !set_string(env, obj, "anchors", &r->anchors) ||
      !set_string(env, obj, "pool", &r->pool))
    return NULL;
  if (napi_get_boolean(env, r->truncated != 0, &v) != napi_ok || napi_set_named_property(env, obj, "truncated", v) != napi_ok) return NULL;
  if (napi_create_arraybuffer(env, r->events.n * 4, &data, &ab) != napi_ok) return NULL;
  for (size_t i = 0; i < r->events.n; i++) ((int32_t *)data)[i] = r->events.p[i];
  if (napi_create_typedarray(env, napi_int32_array, r->events.n, ab, 0, &v) != napi_ok) return NULL;
  if (napi_set_named_property(env, obj, "events", v) != napi_ok) return NULL;
  return obj;
}

/*
 * A thread's buffer for the latin1 bytes the resource scan widens, kept between calls: a fresh
 * one per page (mapped and zeroed by the kernel, most pages being past malloc's mmap
 * threshold) cost a tenth of the scan. Kept up to 16 MB.
 */
static __thread uint16_t *wide;
static __thread size_t wide_cap;

static uint16_t *wide_buffer(size_t n) {
  if (n <= wide_cap) return wide;
  free(wide);
  wide_cap = 0;
  wide = malloc(n * 2);
  if (wide) wide_cap = n;
  return wide;
}

static void wide_trim(void) {
  if (wide_cap <= (8u << 20)) return;
  free(wide);
  wide = NULL;
  wide_cap = 0;
}

/*
 * Extracts from the document s[0, n) (freed here unless it is the thread's wide buffer) with
 * argv[1] the limit and argv[2] the decoder; `resources`: the resource events alone (limit
 * and text unused).
 */
static napi_value extract(napi_env env, const napi_value *argv, uint16_t *s, size_t n, int resources) {
  napi_valuetype type;
  double limit;
  if (napi_get_value_double(env, argv[1], &limit) != napi_ok || !(limit >= 0) ||
      napi_typeof(env, argv[2], &type) != napi_ok || type != napi_function) {
    if (s != wide) free(s);
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument");
    return NULL;
  }
  decoder d = {env, argv[2]};
  nwax_html_opts opts = {decode, &d, limit > 1e15 ? (size_t)1e15 : (size_t)limit, resources};
  nwax_html_result r;
  int status = nwax_html_extract(s, n, &opts, &r);
  if (s == wide) wide_trim();
  else free(s);
  napi_value out = NULL;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (status == NWAX_HTML_OK && !pending) {
    out = build(env, &r);
  } else if (status == NWAX_HTML_FALLBACK && !pending) {
    napi_get_null(env, &out);
  } else if (!pending) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: out of memory, or the decoder gave no string");
  }
  nwax_html_result_free(&r);
  return out;
}

static napi_value out_of_memory(napi_env env) {
  napi_throw_error(env, "NWAX_NATIVE", "nwax native: out of memory");
  return NULL;
}

napi_value nwax_html_extract_binding(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  size_t len;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3 ||
      napi_get_value_string_utf16(env, argv[0], NULL, 0, &len) != napi_ok) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument");
    return NULL;
  }
  uint16_t *s = malloc((len + 1) * 2);
  if (!s) return out_of_memory(env);
  size_t copied;
  napi_get_value_string_utf16(env, argv[0], (char16_t *)s, len + 1, &copied);
  return extract(env, argv, s, copied, 0);
}

/*
 * htmlResources(html, decode): the resource events of one document, or null (the scanner's);
 * `html` a string, or a Buffer of its text as latin1 (a byte a character: what an export scans,
 * with no string made of it).
 */
napi_value nwax_html_resources_binding(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2], argv[3];
  bool is_buffer = false;
  if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok || argc < 2 || napi_is_buffer(env, args[0], &is_buffer) != napi_ok) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument");
    return NULL;
  }
  uint16_t *s;
  size_t n;
  if (is_buffer) {
    void *data;
    if (napi_get_buffer_info(env, args[0], &data, &n) != napi_ok) {
      napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument");
      return NULL;
    }
    s = wide_buffer(n ? n : 1);
    if (!s) return out_of_memory(env);
    for (size_t i = 0; i < n; i++) s[i] = ((const uint8_t *)data)[i];
  } else {
    size_t len;
    if (napi_get_value_string_utf16(env, args[0], NULL, 0, &len) != napi_ok) {
      napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument");
      return NULL;
    }
    s = malloc((len + 1) * 2);
    if (!s) return out_of_memory(env);
    napi_get_value_string_utf16(env, args[0], (char16_t *)s, len + 1, &n);
  }
  /* extract's arguments: the document, a limit (no text is kept), the decoder. */
  argv[0] = args[0];
  argv[2] = args[1];
  if (napi_create_double(env, 0, &argv[1]) != napi_ok) {
    if (s != wide) free(s);
    return out_of_memory(env);
  }
  return extract(env, argv, s, n, 1);
}

/* The UTF-8 bytes of argv[0] decoded as nwax_utf8_decode does, from argv[1] (-1: no BOM). */
static uint16_t *decoded(napi_env env, const napi_value *argv, size_t *n) {
  void *data;
  size_t len;
  double bom;
  bool is_buffer = false;
  if (napi_is_buffer(env, argv[0], &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, argv[0], &data, &len) != napi_ok || napi_get_value_double(env, argv[1], &bom) != napi_ok) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument");
    return NULL;
  }
  uint16_t *s = malloc(len ? len * 2 : 2);
  if (!s) {
    out_of_memory(env);
    return NULL;
  }
  *n = nwax_utf8_decode(data, len, bom >= 0 && bom <= (double)len ? (size_t)bom : SIZE_MAX, s);
  return s;
}

napi_value nwax_html_extract_utf8_binding(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 4) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument");
    return NULL;
  }
  size_t n;
  uint16_t *s = decoded(env, argv, &n);
  return s ? extract(env, argv + 1, s, n, 0) : NULL;
}

napi_value nwax_decode_utf8_binding(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], out = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument");
    return NULL;
  }
  size_t n;
  uint16_t *s = decoded(env, argv, &n);
  if (!s) return NULL;
  if (napi_create_string_utf16(env, (const char16_t *)s, n, &out) != napi_ok) out = NULL;
  free(s);
  return out;
}
