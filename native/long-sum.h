/*
 * The reduce of a job whose reduce is the built-in sum (Hadoop's LongSumReducer), in C: merged
 * `key TAB value` lines grouped by key, canonical integer values summed, and each group's
 * `key TAB sum` line appended to the record file's block in place. What it does not do it
 * hands back to src/mapreduce/local-runner.ts: a value that is not a canonical integer (JSON
 * parsed there), a sum that is not a safe integer (formatted as JavaScript does), a full
 * block (gzipped there).
 */
#ifndef NWAX_LONG_SUM_H
#define NWAX_LONG_SUM_H

#include <stddef.h>
#include <stdint.h>

#include "generated/shared.h"

/* Fields of `st`. */
/* Its `st` fields and statuses (SUM_*) are in generated/shared.h. */

typedef struct {
  uint8_t *key;
  size_t key_cap;
  uint8_t *block;
  size_t block_cap;
  int32_t block_size;
} nwax_sum_buffers;

/* Pushes the lines of chunk[from, to) (each ending with '\n'); returns the position reached. */
int32_t nwax_long_sum(const nwax_sum_buffers *b, const uint8_t *chunk, int32_t from, int32_t to, int32_t *st,
                      double *sum);

#endif
