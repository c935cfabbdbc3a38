/*
 * The n-gram scores of eld's detect (src/analysis/eld-scorer.ts) over a prepared text: its
 * words as eld encodes them (UTF-8 bytes, each byte not ASCII written as a character of eld's
 * dictionary), their n-grams, and each distinct n-gram's scores summed per language. What
 * eld-scorer.ts did with a Set of strings and a Map lookup per n-gram, a seventh of an
 * import's map, here with bytes and two hash tables.
 */
#ifndef NWAX_ELD_SCORE_H
#define NWAX_ELD_SCORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct nwax_eld nwax_eld;

/*
 * A table of `count` n-grams: n-gram i is keys[key_at[i], key_at[i + 1]) (characters as
 * bytes, each 0..255), its scores pairs (language, score) in weights[w_at[i], w_at[i + 1]).
 * `dict` is eld's dictionary as character codes (256 of them, each 0..255). Returns NULL when
 * out of memory or when a language number is not below `languages`.
 */
nwax_eld *nwax_eld_new(const uint8_t *keys, const int32_t *key_at, const int32_t *weights, const int32_t *w_at, uint32_t count,
                       const uint8_t *dict, int languages);
void nwax_eld_free(nwax_eld *t);
int nwax_eld_languages(const nwax_eld *t);

/*
 * Scores the prepared text s[0, n) (UTF-16 units, as eld reads a JavaScript string) into
 * scores[0, languages) and returns the number of distinct n-grams, known or not.
 */
uint32_t nwax_eld_score(const nwax_eld *t, const uint16_t *s, size_t n, double *scores);

#endif
