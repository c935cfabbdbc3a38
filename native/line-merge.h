/*
 * The k-way merge of sorted line sources into an output chunk, in C: the tournament of losers
 * of src/mapreduce/byte-merge.ts, with memcmp and memcpy in place of Buffer#compare and copies
 * through JavaScript (each a native call's fixed cost: 2.8 s and 2.3 s of a 17.5 s
 * group-and-count). Reading files stays in JavaScript: a source whose buffer holds no whole
 * line more returns control, the caller refills it and calls again.
 */
#ifndef NWAX_LINE_MERGE_H
#define NWAX_LINE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "generated/shared.h"

/* The cursors' fields (CUR_*), the `st` fields (ST_*) and the statuses (MERGE_*): generated/shared.h. */

typedef struct {
  int k;
  int unique;
  /* A source's bytes; a source of lines in a buffer, read up to `fill` and scanned for '\n'. */
  const uint8_t **buf;
  /* A source of arena lines instead (order != NULL): line order[pos] while pos < fill. */
  const int32_t **order;
  const int32_t **start;
  const int32_t **len;
  int32_t *cur;
  int32_t *tree;
} nwax_merge;

nwax_merge *nwax_merge_new(int k, int unique, int32_t *cur, int32_t *tree);
void nwax_merge_free(nwax_merge *m);

/* Merges into out[st[ST_USED], out_len) until done, out is full, or a source needs bytes. */
int nwax_merge_run(nwax_merge *m, uint8_t *out, size_t out_len, int32_t *st);

#endif
