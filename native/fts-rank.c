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

/*
 * nwax_near: how closely a row holds every phrase of the MATCH text (the query's words, ORed)
 * in one column, as FTS5's NEAR reads it:
 *
 *   nwax_near(fts, use_0 .. use_{ncol-1}, content)
 *
 * For each column whose `use` is not 0, the least "gap" over every choice of one instance per
 * phrase, all in that column: the start of the last-starting instance less the least end
 * (start + the phrase's tokens) among them. NEAR(p_1 .. p_n, k) matches a column exactly when
 * its gap is at most k (FTS5's fts5ExprNearIsMatch), so the JavaScript twin (js-near.ts) finds
 * the same value with NEAR queries. Returns "gap start": the least gap over the columns used
 * (-1 where no column holds every phrase) and where the least-gap window of column `content`
 * starts, in tokens (its first, on a tie; -1 where that column holds none): the passage the
 * snippet shows.
 *
 * The instances of each column are read in position order (xInst gives them so); for each
 * instance, the latest instance of every phrase up to it makes the best window ending there
 * (a later instance of a phrase of fixed length ends later): O(instances x phrases).
 */
#define NWAX_NEAR_NONE 0x7fffffff

static void nwax_near(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nval, sqlite3_value **args) {
  int ncol = api->xColumnCount(fts);
  int nphrase = api->xPhraseCount(fts);
  if (nval != ncol + 1 || nphrase < 1 || nphrase > NWAX_STACK_PHRASES) {
    sqlite3_result_error(ctx, "nwax_near: wants a flag per column and the passage's column, and 1 to 128 phrases", -1);
    return;
  }
  int content = sqlite3_value_int(args[ncol]);
  int size[NWAX_STACK_PHRASES];
  int last[NWAX_STACK_PHRASES];
  for (int p = 0; p < nphrase; p++) size[p] = api->xPhraseSize(fts, p);
  int ninst = 0;
  int rc = api->xInstCount(fts, &ninst);
  int best = NWAX_NEAR_NONE;
  int bestContent = NWAX_NEAR_NONE;
  int contentStart = -1;
  for (int col = 0; rc == SQLITE_OK && col < ncol; col++) {
    if (sqlite3_value_int(args[col]) == 0 && col != content) continue;
    for (int p = 0; p < nphrase; p++) last[p] = -1;
    int seen = 0;
    for (int i = 0; rc == SQLITE_OK && i < ninst; i++) {
      int ip, ic, io;
      rc = api->xInst(fts, i, &ip, &ic, &io);
      if (rc != SQLITE_OK || ic != col) continue;
      if (last[ip] < 0) seen++;
      last[ip] = io;
      if (seen < nphrase) continue;
      int minEnd = NWAX_NEAR_NONE;
      int minStart = io;
      for (int p = 0; p < nphrase; p++) {
        if (last[p] + size[p] < minEnd) minEnd = last[p] + size[p];
        if (last[p] < minStart) minStart = last[p];
      }
      int gap = io - minEnd;
      if (sqlite3_value_int(args[col]) != 0 && gap < best) best = gap;
      if (col == content && gap < bestContent) {
        bestContent = gap;
        contentStart = minStart;
      }
    }
  }
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  char out[32];
  sqlite3_snprintf((int)sizeof(out), out, "%d %d", best == NWAX_NEAR_NONE ? -1 : (best < 0 ? 0 : best), contentStart);
  sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
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
  int rc = api->xCreateFunction(api, "nwax_bm25", 0, nwax_bm25, 0);
  if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "nwax_near", 0, nwax_near, 0);
  return rc;
}
