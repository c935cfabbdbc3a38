/*
 * Sorting lines in byte order (LC_ALL=C, memcmp order) by an index array, in C: the same
 * multikey quicksort as src/mapreduce/radix-sort.ts, on seven bytes per step, because a
 * comparator-free sort in JavaScript still paid a bounds check and a boxed number per byte
 * (2.9 s of a 17.5 s group-and-count).
 */
#ifndef NWAX_LINE_SORT_H
#define NWAX_LINE_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Lines of an arena: line i is buf[start[i], start[i] + len[i]). */
typedef struct {
  const uint8_t *buf;
  size_t buf_len;
  const int32_t *start;
  const int32_t *len;
} nwax_lines;

/*
 * Sorts idx[0, n) (line numbers) by the lines' bytes; `cache` is scratch space of n entries.
 * Equal lines are equal bytes, so the order among them is of no consequence.
 */
void nwax_sort_lines(const nwax_lines *lines, int32_t *idx, uint64_t *cache, size_t n);

#endif
