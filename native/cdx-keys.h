/*
 * dedup-cdx's and revisits' sort keys from CDX11 lines (src/cdx/dedup.ts), and dedup-cdx's
 * lines from the sorted keys, a chunk of lines per call. The keys: each line's urlkey, date,
 * mime, digest and file found by their spaces, and `URLKEY sha1:DIGEST DATE[ FILE]` written
 * into the sort's arena. In JavaScript each field was a Buffer#indexOf call and each copy a
 * Buffer#copy, whose argument checks and views cost more than the bytes they passed over: the
 * main thread, which the sort's worker waited on, spent a third of its time in them. The same
 * held for telling the sorted keys' groups apart.
 */
#ifndef NWAX_CDX_KEYS_H
#define NWAX_CDX_KEYS_H

#include <stdint.h>

#include "generated/shared.h"

#include "record-add.h"

/* st's fields: in and out, then out only (added to, never reset here). */
/* cdxKeys' `st` fields and statuses (CDX_KEYS_*) are in generated/shared.h. */

/*
 * Takes the lines of chunk[from, to) (each ending with a newline) until one of the statuses
 * above; returns the position of the first line not taken. `revisits`: only revisit captures
 * (mime warc/revisit, or file `-`), keys without the file. The arena's `klen` is not used.
 */
int32_t nwax_cdx_keys(nwax_record_arena *a, int32_t *st, const uint8_t *chunk, int32_t from, int32_t to, int revisits);

/* cdx_dups' st fields. */
/* cdxDups' `st` fields (CDX_DUPS_*): generated/shared.h. */

/*
 * dedup-cdx's output from its sorted keys: of each group of lines that share URLKEY
 * sha1:DIGEST (a key up to its second space), every line but the first, copied to `out` from
 * st[CDX_DUPS_USED] on. The lines of chunk[from, to) end with newlines; `out` and `group`
 * hold at least `to - from` bytes more than they do; `group` holds the current group's key
 * from chunk to chunk, st[CDX_DUPS_GROUP_LEN] its length (-1 for none).
 */
void nwax_cdx_dups(const uint8_t *chunk, int32_t from, int32_t to, uint8_t *group, uint8_t *out, int32_t *st);

#endif
