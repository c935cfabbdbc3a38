/*
 * Whole gzip members inflated by libdeflate (Debian's libdeflate-dev), for the record files
 * every job reads: a part is thousands of gzip members of 64 KiB blocks each, and libdeflate
 * inflates a whole member held in memory at about four times node:zlib's rate on this
 * project's segments (docs/decisions.md, "Inflating record files with libdeflate").
 * libdeflate checks each member's CRC-32 and length as zlib does. Built only where libdeflate
 * is found (binding.gyp); node:zlib is the twin, and takes every member this leaves.
 */
#ifndef NWAX_GUNZIP_MEMBERS_H
#define NWAX_GUNZIP_MEMBERS_H

#include <stddef.h>
#include <stdint.h>

/* Why nwax_gunzip_members stopped. */
enum {
  NWAX_GUNZIP_ALL_TAKEN = 0,   /* the input ended at a member's end */
  NWAX_GUNZIP_NO_ROOM = 1,     /* the next member does not fit in the output's room left */
  NWAX_GUNZIP_NOT_INFLATED = 2 /* the next member did not inflate: cut short by the input's end, corrupt, or one to leave to zlib */
};

/*
 * Inflates whole gzip members of in[0, n), one after another, into out[0, cap), until one of
 * the reasons above; returns it. *in_used and *out_used are the bytes taken and made; *last_in
 * and *last_out the last member's (0 where none was inflated). A member whose header carries a
 * header CRC (which zlib checks and libdeflate does not) is one left to zlib.
 */
int nwax_gunzip_members(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *in_used, size_t *out_used, size_t *last_in, size_t *last_out);

#endif
