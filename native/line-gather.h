/*
 * Copying an arena's lines, in a sorted order, into a chunk: a memcpy per line in place of
 * Buffer#copy through its JavaScript wrapper (a fifth of a map task's CPU in the
 * group-and-count, writing its spills).
 */
#ifndef NWAX_LINE_GATHER_H
#define NWAX_LINE_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "generated/shared.h"

#include "line-sort.h"

/*
 * Copies lines order[from, to) (each with the newline that follows it in the arena) into
 * out[*used, out_len) until one does not fit; with `unique`, a line equal to the one put out
 * before it (line number *prev, -1 for none) is left out. Returns the position in `order` of
 * the first line not handled; *used and *prev are moved on.
 */
int32_t nwax_gather_lines(const nwax_lines *lines, const int32_t *order, int32_t from, int32_t to, uint8_t *out,
                          size_t out_len, int32_t *used, int unique, int32_t *prev);

/*
 * Copies records order[from, to) as nwax_gather_lines does while each one's key (its first
 * klen[i] bytes) differs from the next one's: the single keys a combine passes on. Stops at
 * the first record whose key the next one shares (a group for the combiner) or that does not
 * fit. Returns the position in `order` where it stopped; *used is moved on.
 */
int32_t nwax_gather_singles(const nwax_lines *lines, const int32_t *klen, const int32_t *order, int32_t from, int32_t to,
                            uint8_t *out, size_t out_len, int32_t *used);

#endif
