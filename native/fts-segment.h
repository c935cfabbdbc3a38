/*
 * An FTS5 index written without FTS5's insert path: the terms of each row's columns (FTS5's
 * `ascii` tokenizer: runs of ASCII letters and digits and of bytes >= 0x80, ASCII folded to
 * lower case), their doclists kept in memory, and, when they pass the memory given or at the
 * end, written as one segment in FTS5's own record format (leaves of `pgsz` bytes, the b-tree
 * terms of %_idx, doclist indexes), what FTS5 itself writes for the same rows inserted in one
 * transaction (detail=full, no prefix indexes, no secure-delete). Every choice that decides a
 * byte follows SQLite's fts5_index.c (3.53: fts5FlushOneHash and the fts5Write* functions),
 * so the records are FTS5's, byte for byte (test/fts-segments.test.ts holds them to it).
 *
 * Why: FTS5's in-memory term hash (fts5HashKey shifts left only, so short terms crowd the low
 * slots) and the per-token callbacks were most of the index step (see docs/decisions.md,
 * "A compact index").
 */
#ifndef NWAX_FTS_SEGMENT_H
#define NWAX_FTS_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

typedef struct nwax_fts nwax_fts;

/* Readable bytes every column text must have after its end, which may be rewritten with the
 * values they hold (token bytes are found 64 at a time; terms are folded, hashed and compared a
 * word at a time, the last word read whole and masked). */
#define NWAX_FTS_SLACK 64

/* A builder for an FTS5 table of ncol indexed columns, leaves of pgsz bytes (FTS5's `pgsz`). */
nwax_fts *nwax_fts_new(int ncol, int pgsz);
void nwax_fts_free(nwax_fts *f);

/*
 * The terms of a token holding bytes above 0x7f (a word of another script, or ASCII words joined
 * by other characters): chunk[0, n) in, its terms (UTF-8, separated by spaces) out, valid until
 * the next call, *terms_n bytes; NULL where the analysis failed.
 */
typedef const uint8_t *(*nwax_fts_analyze)(void *ctx, const uint8_t *chunk, size_t n, size_t *terms_n);

/*
 * Adds row `rowid` (greater than every rowid added before): column c's text texts[c] of lens[c]
 * bytes (NWAX_FTS_SLACK more readable after it), tokenized as FTS5's ascii tokenizer does and
 * folded to lower case in place (ASCII letters only, as it folds them). Where `analyze` is given, a token with bytes above 0x7f is
 * replaced by the terms it gives (remembered for the tokens that come back), as if the text had
 * held them there. Its %_docsize record (a varint per column: its tokens) goes to docsize (room
 * for 9 * ncol bytes); returns that record's length, or -1 where rowid does not increase, the
 * analysis failed or memory ran out (the builder then takes no more rows).
 */
int nwax_fts_add(nwax_fts *f, int64_t rowid, uint8_t *const *texts, const size_t *lens, nwax_fts_analyze analyze, void *ctx, uint8_t *docsize);

/* Bytes of terms and doclists held, as FTS5 counts them against its `hashsize`. */
int64_t nwax_fts_pending(const nwax_fts *f);

/*
 * Writes the terms held as segment `segid` (1 to 2000, one no segment of the table holds: the
 * caller keeps the table's structure record, fts-load.ts) and forgets them. The records go to
 * *out (malloc'd, *out_n bytes), each
 *   'D' rowid:i64le n:u32le bytes[n]                      a %_data record
 *   'I' segid:u32le n:u32le term[n] pgno:i64le            a %_idx row
 * Returns 0, or -1 where memory ran out. Nothing held: *out_n is 0.
 */
int nwax_fts_flush(nwax_fts *f, int segid, uint8_t **out, size_t *out_n);

/* The averages record (rows, then each column's tokens) of every row added, into out (room for 10 * (ncol + 1) bytes); returns its length. */
size_t nwax_fts_averages(const nwax_fts *f, uint8_t *out);

#endif
