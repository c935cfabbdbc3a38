#include "cdx-keys.h"

#include <string.h>

/* The first space of [p, end), or NULL. */
static inline const uint8_t *space_in(const uint8_t *p, const uint8_t *end) {
  return p < end ? memchr(p, ' ', (size_t)(end - p)) : NULL;
}

/* The last space of (after, end), or NULL. */
static inline const uint8_t *last_space(const uint8_t *after, const uint8_t *end) {
  for (const uint8_t *q = end - 1; q > after; q--)
    if (*q == ' ') return q;
  return NULL;
}

static inline int bytes_are(const uint8_t *p, const uint8_t *end, const char *word, size_t n) {
  return (size_t)(end - p) == n && memcmp(p, word, n) == 0;
}

int32_t nwax_cdx_keys(nwax_record_arena *a, int32_t *st, const uint8_t *chunk, int32_t from, int32_t to, int revisits) {
  size_t used = (size_t)st[CDX_KEYS_USED];
  size_t count = (size_t)st[CDX_KEYS_COUNT];
  int32_t pos = from;
  int status = CDX_KEYS_DONE;
  while (pos < to) {
    const uint8_t *s = chunk + pos;
    const uint8_t *e = memchr(s, '\n', (size_t)(to - pos));
    /* As dedup.ts's addLine: what it sends to its general reader is sent back. */
    if (e == NULL || e == s || *s == '!' || *s == ' ') {
      status = CDX_KEYS_SLOW;
      break;
    }
    /* Spaces 1-6 and the last: urlkey, date, url, mime, status, digest ... filename. */
    const uint8_t *s1 = space_in(s, e);
    const uint8_t *s2 = s1 ? space_in(s1 + 1, e) : NULL;
    if (s1 == NULL || s2 == NULL || s2[1] == '{' /* CDXJ */) {
      status = CDX_KEYS_SLOW;
      break;
    }
    const uint8_t *m1 = space_in(s2 + 1, e);
    const uint8_t *m2 = m1 ? space_in(m1 + 1, e) : NULL;
    const uint8_t *p = m2 ? space_in(m2 + 1, e) : NULL;
    const uint8_t *s6 = p ? space_in(p + 1, e) : NULL;
    const uint8_t *last = s6 ? last_space(s6, e) : NULL;
    if (last == NULL) {
      status = CDX_KEYS_SLOW;
      break;
    }
    const size_t date_len = (size_t)(s2 - s1 - 1);
    int slow = date_len < 4 || date_len > 14 || (s1 - s == 1 && *s == '-');
    for (const uint8_t *d = s1 + 1; d < s2 && !slow; d++) slow = *d < '0' || *d > '9';
    if (slow) {
      status = CDX_KEYS_SLOW;
      break;
    }
    const uint8_t *d = p + 1;
    const uint8_t *d5 = s6 - d > 5 ? d + 5 : s6;
    if (bytes_are(d, d5, "sha1:", 5) || bytes_are(d, d5, "SHA1:", 5)) d += 5;
    const int is_revisit = bytes_are(m1 + 1, m2, "warc/revisit", 12) || (e - last == 2 && last[1] == '-');
    const int no_digest = s6 - d == 1 && *d == '-';
    const int keyed = !(revisits && !is_revisit) && !no_digest;
    const size_t url_len = (size_t)(s1 - s);
    const size_t digest_len = (size_t)(s6 - d);
    const size_t file_len = revisits ? 0 : (size_t)(e - last);
    /* URLKEY sha1:DIGEST DATE[ FILE] and its newline (file_len counts its space). */
    const size_t n = url_len + 6 + digest_len + 1 + date_len + file_len;
    if (keyed && (count >= a->cap || used + n + 1 > a->buf_len)) {
      st[CDX_KEYS_NEED] = (int32_t)(n + 1);
      status = CDX_KEYS_ROOM;
      break;
    }
    st[CDX_KEYS_LINES]++;
    st[CDX_KEYS_CAPTURES]++;
    pos = (int32_t)(e + 1 - chunk);
    if (!keyed) {
      /* revisits' filter comes first, as in addLine: a capture it drops is not a digest's. */
      if (!(revisits && !is_revisit)) st[CDX_KEYS_NO_DIGEST]++;
      continue;
    }
    uint8_t *k = a->buf + used;
    memcpy(k, s, url_len);
    k += url_len;
    memcpy(k, " sha1:", 6);
    k += 6;
    memcpy(k, d, digest_len);
    k += digest_len;
    *k++ = ' ';
    memcpy(k, s1 + 1, date_len);
    k += date_len;
    if (file_len) {
      memcpy(k, last, file_len);
      k += file_len;
    }
    *k = '\n';
    a->start[count] = (int32_t)used;
    a->len[count] = (int32_t)n;
    a->part[count] = 0;
    count++;
    used += n + 1;
    if ((double)used + (double)count * a->per_line >= a->limit) {
      status = CDX_KEYS_FULL;
      break;
    }
  }
  st[CDX_KEYS_USED] = (int32_t)used;
  st[CDX_KEYS_COUNT] = (int32_t)count;
  st[CDX_KEYS_STATUS] = status;
  return pos;
}

void nwax_cdx_dups(const uint8_t *chunk, int32_t from, int32_t to, uint8_t *group, uint8_t *out, int32_t *st) {
  int32_t group_len = st[CDX_DUPS_GROUP_LEN];
  uint8_t *o = out + st[CDX_DUPS_USED];
  int32_t lines = 0;
  const uint8_t *s = chunk + from;
  const uint8_t *end = chunk + to;
  while (s < end) {
    const uint8_t *e = memchr(s, '\n', (size_t)(end - s));
    if (e == NULL) e = end;
    const uint8_t *a = space_in(s, e);
    const uint8_t *g = a ? space_in(a + 1, e) : NULL;
    const int32_t gl = (int32_t)((g ? g : e) - s);
    if (gl == group_len && memcmp(s, group, (size_t)gl) == 0) {
      const size_t n = (size_t)(e < end ? e + 1 - s : e - s);
      memcpy(o, s, n);
      o += n;
      lines++;
    } else {
      memcpy(group, s, (size_t)gl);
      group_len = gl;
    }
    s = e + 1;
  }
  st[CDX_DUPS_GROUP_LEN] = group_len;
  st[CDX_DUPS_USED] = (int32_t)(o - out);
  st[CDX_DUPS_LINES] += lines;
}
