/*
 * nwax_bm25: FTS5's BM25 with the collection's statistics instead of one table's.
 *
 * FTS5's own bm25() takes the number of rows, each phrase's document frequency and the average
 * row length from the table it runs on, so an index cut into parts scores a page by the part it
 * landed in. This auxiliary function computes the same formula (k1 1.2, b 0.75, the phrase
 * frequency weighted by column, the row's length in tokens over every column) from arguments
 * the searcher gathers over every part (src/search/collection-stats.ts):
 *
 *   nwax_bm25(fts, w_0 .. w_{ncol-1}, avgdl, idf_0 .. idf_{nphrase-1})
 *
 * with the column weights, the collection's average row length and each phrase's IDF, in the
 * order FTS5 numbers the query's phrases. Given one table's own statistics it returns bm25()'s
 * value to the bit (test/collection-rank.test.ts). Its JavaScript twin is
 * src/search/js-bm25.ts.
 *
 * Built by node-gyp as a SQLite loadable extension and loaded into each connection with
 * better-sqlite3's loadExtension(); it links nothing, as SQLite hands it its API.
 */
#include <sqlite3ext.h>
#include <string.h>
SQLITE_EXTENSION_INIT1

/* Phrases whose frequencies fit on the stack; a longer query (a site: list of hundreds) allocates. */
#define NWAX_STACK_PHRASES 128

static void nwax_bm25(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nval, sqlite3_value **args) {
  const double k1 = 1.2;
  const double b = 0.75;
  int ncol = api->xColumnCount(fts);
  int nphrase = api->xPhraseCount(fts);
  if (nval != ncol + 1 + nphrase) {
    sqlite3_result_error(ctx, "nwax_bm25: wants the column weights, the average row length and one IDF per phrase", -1);
    return;
  }
  double stack[NWAX_STACK_PHRASES];
  double *freq = nphrase <= NWAX_STACK_PHRASES ? stack : sqlite3_malloc64(sizeof(double) * (sqlite3_uint64)nphrase);
  if (freq == 0) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  memset(freq, 0, sizeof(double) * (size_t)nphrase);
  int ninst = 0;
  int rc = api->xInstCount(fts, &ninst);
  for (int i = 0; rc == SQLITE_OK && i < ninst; i++) {
    int ip, ic, io;
    rc = api->xInst(fts, i, &ip, &ic, &io);
    if (rc == SQLITE_OK) freq[ip] += sqlite3_value_double(args[ic]);
  }
  int ntok = 0;
  if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &ntok);
  if (rc != SQLITE_OK) {
    if (freq != stack) sqlite3_free(freq);
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  double avgdl = sqlite3_value_double(args[ncol]);
  double d = (double)ntok;
  double score = 0.0;
  /* The same terms in the same order as FTS5's bm25(), so one table's statistics give its value exactly. */
  for (int i = 0; i < nphrase; i++) {
    double idf = sqlite3_value_double(args[ncol + 1 + i]);
    score += idf * ((freq[i] * (k1 + 1.0)) / (freq[i] + k1 * (1 - b + b * d / avgdl)));
  }
  if (freq != stack) sqlite3_free(freq);
  sqlite3_result_double(ctx, -1.0 * score);
}

static fts5_api *fts5_of(sqlite3 *db) {
  fts5_api *api = 0;
  sqlite3_stmt *stmt = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(stmt);
  }
  sqlite3_finalize(stmt);
  return api;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_nwaxrank_init(sqlite3 *db, char **err, const sqlite3_api_routines *routines) {
  SQLITE_EXTENSION_INIT2(routines);
  fts5_api *api = fts5_of(db);
  if (api == 0 || api->iVersion < 2) {
    *err = sqlite3_mprintf("nwax_bm25: this SQLite has no FTS5");
    return SQLITE_ERROR;
  }
  return api->xCreateFunction(api, "nwax_bm25", 0, nwax_bm25, 0);
}
