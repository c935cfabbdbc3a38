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

/* Fields of `st`. */
enum {
  SUM_KEY_LEN = 0,  /* bytes of the group's key in `key`, -1 for no group under way */
  SUM_USED = 1,     /* bytes of the block in use */
  SUM_UNITS = 2,    /* the block's length in UTF-16 units (what cuts it) */
  SUM_LINES = 3,    /* lines in the block */
  SUM_GROUPS = 4,   /* groups written here (the caller counts them and zeroes this) */
  SUM_LINE_NO = 5,  /* lines pushed, for error messages */
  SUM_STATUS = 6,   /* why it returned, below */
  SUM_ARG = 7,      /* SUM_VALUE: the value's start; SUM_KEY_ROOM: bytes needed */
  SUM_ARG2 = 8,     /* SUM_VALUE: the value's end */
  SUM_FIELDS = 9
};

enum {
  SUM_DONE = 0,      /* the lines are all pushed */
  SUM_BLOCK_FULL = 1, /* the block reached its size: flush it, go on from the position returned */
  SUM_KEY_ROOM = 2,  /* `key` is too small for the next key: grow it, go on */
  SUM_VALUE = 3,     /* the value [ARG, ARG2) is not a canonical integer: add it, go on */
  SUM_EMIT = 4       /* the group must be written by the caller (sum or room): write it, go on */
};

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
