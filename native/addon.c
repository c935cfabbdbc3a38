/*
 * Node-API bindings of the native sort and merge (build/Release/nwax_native.node). Every
 * argument is checked by its caller in src/mapreduce/native.ts, which is the only one; here a
 * wrong type throws rather than crashes.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdlib.h>

#include "line-gather.h"
#include "line-merge.h"
#include "line-sort.h"

#define CHECK(call)                                                    \
  do {                                                                 \
    if ((call) != napi_ok) {                                           \
      napi_throw_error(env, "NWAX_NATIVE", "nwax native: bad argument"); \
      return NULL;                                                     \
    }                                                                  \
  } while (0)

/* The data and byte length of a typed array (a Buffer is one). */
static int bytes_of(napi_env env, napi_value v, void **data, size_t *bytes) {
  napi_typedarray_type type;
  size_t length, offset;
  napi_value ab;
  if (napi_get_typedarray_info(env, v, &type, &length, data, &ab, &offset) != napi_ok) return 0;
  size_t size = 1;
  if (type == napi_int32_array || type == napi_uint32_array || type == napi_float32_array) size = 4;
  else if (type == napi_float64_array || type == napi_bigint64_array || type == napi_biguint64_array) size = 8;
  else if (type == napi_int16_array || type == napi_uint16_array) size = 2;
  *bytes = length * size;
  return 1;
}

static int32_t int_arg(napi_env env, napi_value v) {
  int32_t n = 0;
  napi_get_value_int32(env, v, &n);
  return n;
}

/* sortLines(buf, start, len, order, cache, lo, hi): sorts order[lo, hi) by the lines' bytes. */
static napi_value sort_lines(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 7) CHECK(napi_invalid_arg);
  void *buf, *start, *len, *order, *cache;
  size_t buf_len, start_len, len_len, order_len, cache_len;
  if (!bytes_of(env, argv[0], &buf, &buf_len) || !bytes_of(env, argv[1], &start, &start_len) ||
      !bytes_of(env, argv[2], &len, &len_len) || !bytes_of(env, argv[3], &order, &order_len) ||
      !bytes_of(env, argv[4], &cache, &cache_len))
    CHECK(napi_invalid_arg);
  const int32_t lo = int_arg(env, argv[5]);
  const int32_t hi = int_arg(env, argv[6]);
  if (lo < 0 || hi < lo || (size_t)hi * 4 > order_len || (size_t)hi * 8 > cache_len) CHECK(napi_invalid_arg);
  nwax_lines lines = {buf, buf_len, start, len};
  nwax_sort_lines(&lines, (int32_t *)order + lo, (uint64_t *)cache + lo, (size_t)(hi - lo));
  return NULL;
}

/*
 * gatherLines(buf, start, len, order, from, to, out, st, unique): copies lines order[from, to)
 * into out from st[0] on (st[1]: the last line put out, for unique); returns where it stopped.
 */
static napi_value gather_lines(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 9) CHECK(napi_invalid_arg);
  void *buf, *start, *len, *order, *out, *st;
  size_t buf_len, start_len, len_len, order_len, out_len, st_len;
  if (!bytes_of(env, argv[0], &buf, &buf_len) || !bytes_of(env, argv[1], &start, &start_len) ||
      !bytes_of(env, argv[2], &len, &len_len) || !bytes_of(env, argv[3], &order, &order_len) ||
      !bytes_of(env, argv[6], &out, &out_len) || !bytes_of(env, argv[7], &st, &st_len) || st_len < 8)
    CHECK(napi_invalid_arg);
  const int32_t from = int_arg(env, argv[4]);
  const int32_t to = int_arg(env, argv[5]);
  bool unique = false;
  CHECK(napi_get_value_bool(env, argv[8], &unique));
  if (from < 0 || to < from || (size_t)to * 4 > order_len) CHECK(napi_invalid_arg);
  nwax_lines lines = {buf, buf_len, start, len};
  int32_t *s = st;
  const int32_t k = nwax_gather_lines(&lines, order, from, to, out, out_len, &s[0], unique, &s[1]);
  napi_value r;
  CHECK(napi_create_int32(env, k, &r));
  return r;
}

static void merge_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  nwax_merge_free(data);
}

/* mergeOpen(k, unique, cur, tree): a merge of k sources; cur and tree stay the caller's. */
static napi_value merge_open(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 4) CHECK(napi_invalid_arg);
  const int32_t k = int_arg(env, argv[0]);
  void *cur, *tree;
  size_t cur_len, tree_len;
  if (k < 0 || !bytes_of(env, argv[2], &cur, &cur_len) || !bytes_of(env, argv[3], &tree, &tree_len) ||
      cur_len < (size_t)k * CUR_FIELDS * 4 || tree_len < (size_t)k * 4)
    CHECK(napi_invalid_arg);
  bool unique = false;
  CHECK(napi_get_value_bool(env, argv[1], &unique));
  nwax_merge *m = nwax_merge_new(k, unique, cur, tree);
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
  if (argc < 3) CHECK(napi_invalid_arg);
  nwax_merge *m;
  CHECK(napi_get_value_external(env, argv[0], (void **)&m));
  const int32_t i = int_arg(env, argv[1]);
  if (i < 0 || i >= m->k) CHECK(napi_invalid_arg);
  void *buf;
  size_t buf_len;
  if (!bytes_of(env, argv[2], &buf, &buf_len)) CHECK(napi_invalid_arg);
  m->buf[i] = buf;
  m->order[i] = NULL;
  if (argc >= 6) {
    void *order, *start, *len;
    size_t a, b, c;
    if (!bytes_of(env, argv[3], &order, &a) || !bytes_of(env, argv[4], &start, &b) || !bytes_of(env, argv[5], &len, &c))
      CHECK(napi_invalid_arg);
    m->order[i] = order;
    m->start[i] = start;
    m->len[i] = len;
  }
  return NULL;
}

/* mergeRun(m, out, st): merges into out; returns MERGE_DONE, _OUT_FULL or _REFILL. */
static napi_value merge_run(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) CHECK(napi_invalid_arg);
  nwax_merge *m;
  CHECK(napi_get_value_external(env, argv[0], (void **)&m));
  void *out, *st;
  size_t out_len, st_len;
  if (!bytes_of(env, argv[1], &out, &out_len) || !bytes_of(env, argv[2], &st, &st_len) || st_len < 12)
    CHECK(napi_invalid_arg);
  const int status = nwax_merge_run(m, out, out_len, st);
  if (status < 0) {
    napi_throw_error(env, "NWAX_NATIVE", "nwax native: out of memory");
    return NULL;
  }
  napi_value r;
  CHECK(napi_create_int32(env, status, &r));
  return r;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"sortLines", NULL, sort_lines, NULL, NULL, NULL, napi_default, NULL},
      {"gatherLines", NULL, gather_lines, NULL, NULL, NULL, napi_default, NULL},
      {"mergeOpen", NULL, merge_open, NULL, NULL, NULL, napi_default, NULL},
      {"mergeSource", NULL, merge_source, NULL, NULL, NULL, napi_default, NULL},
      {"mergeRun", NULL, merge_run, NULL, NULL, NULL, napi_default, NULL},
  };
  if (napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props) != napi_ok) return NULL;
  return exports;
}
