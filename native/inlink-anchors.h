/*
 * What the index takes of a URL's inlinks, read from the bytes invertlinks writes
 * (`{"inlinks":[{"from":"F","anchor":"A"},...]}`, JSON.stringify's): how many there are, and
 * where each distinct anchor other than '' lies, in the order each first appears; no object
 * made per inlink. The index's reduce walked the bench corpus's 76 MB of lists in JavaScript
 * at 0.3 GB/s, a tenth of its reduce's time beside the fts kernel.
 */
#ifndef NWAX_INLINK_ANCHORS_H
#define NWAX_INLINK_ANCHORS_H

#include <stddef.h>
#include <stdint.h>

/* Why nwax_inlink_anchors gave no count. */
#define NWAX_INLINKS_OTHER (-1) /* another shape, or a string with an escape or a raw control character: JSON.parse's */
#define NWAX_INLINKS_ROOM (-2)  /* more distinct anchors than `cap`: call again with more room */

/*
 * The inlinks of the JSON value b[0, n): returns their count and writes the distinct non-empty
 * anchors' [start, end) (offsets into b, the quotes left out) into spans, two int32 each,
 * *distinct of them; anchors with the same bytes are one. Or NWAX_INLINKS_OTHER, or
 * NWAX_INLINKS_ROOM when spans holds fewer than the distinct anchors (cap pairs).
 */
ptrdiff_t nwax_inlink_anchors(const uint8_t *b, size_t n, int32_t *spans, size_t cap, size_t *distinct);

#endif
