/* Whole gzip members inflated by libdeflate (gunzip-members.h says what and why). */
#include "gunzip-members.h"

#include <libdeflate.h>

#define GZIP_FLG 3    /* the header's flag byte */
#define GZIP_FHCRC 2  /* a CRC-16 of the header follows it */

/* One decompressor a thread (a task thread reads one part at a time), made at its first
 * member and kept for the thread's life: it is a few kB, and making one per call was a
 * measurable part of a member's time. */
static _Thread_local struct libdeflate_decompressor *decompressor;

int nwax_gunzip_members(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *in_used, size_t *out_used, size_t *last_in, size_t *last_out) {
  size_t i = 0, o = 0;
  *last_in = *last_out = 0;
  int why = NWAX_GUNZIP_ALL_TAKEN;
  if (!decompressor && !(decompressor = libdeflate_alloc_decompressor())) why = NWAX_GUNZIP_NOT_INFLATED;
  while (why == NWAX_GUNZIP_ALL_TAKEN && i < n) {
    if (n - i > GZIP_FLG && (in[i + GZIP_FLG] & GZIP_FHCRC)) {
      why = NWAX_GUNZIP_NOT_INFLATED;
      break;
    }
    size_t took, made;
    const enum libdeflate_result r = libdeflate_gzip_decompress_ex(decompressor, in + i, n - i, out + o, cap - o, &took, &made);
    if (r == LIBDEFLATE_SUCCESS) {
      i += took;
      o += made;
      *last_in = took;
      *last_out = made;
    } else why = r == LIBDEFLATE_INSUFFICIENT_SPACE ? NWAX_GUNZIP_NO_ROOM : NWAX_GUNZIP_NOT_INFLATED;
  }
  *in_used = i;
  *out_used = o;
  return why;
}
