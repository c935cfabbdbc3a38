/*
 * A map task's records, emitted as bytes, added to its arena in batches: the key hashed as
 * Hadoop hashes a Text (its partition), checked for tabs and newlines, and copied with its
 * value, one call per batch. In JavaScript the hash loop and the copies through Buffer#copy
 * were a third of the group-and-count's map.
 */
#ifndef NWAX_RECORD_ADD_H
#define NWAX_RECORD_ADD_H

#include <stddef.h>
#include <stdint.h>

#include "generated/shared.h"

/* A record arena (src/mapreduce/line-arena.ts): its bytes and index arrays. */
typedef struct {
  uint8_t *buf;
  size_t buf_len;
  int32_t *start;
  int32_t *len;
  int32_t *part;
  int32_t *klen;
  /* Lines the index arrays hold. */
  size_t cap;
  /* Bytes of lines and index at which the arena is full, and index bytes per line. */
  double limit;
  double per_line;
} nwax_record_arena;

/*
 * Adds `key TAB value` for keys keys[pairs[2j], pairs[2j + 1]), j in [from, n), each with its
 * partition among `reduces`; `st` holds the arena's bytes used and line count, moved on.
 * Stops after the record that fills the arena, and before a record that does not fit its
 * buffer or index or whose key holds a tab or newline (the caller's slower path takes it).
 * Returns the first j not added.
 */
int32_t nwax_add_records(nwax_record_arena *a, int32_t *st, const uint8_t *keys, const int32_t *pairs, int32_t from,
                         int32_t n, const uint8_t *value, size_t value_len, int32_t reduces);

#endif
