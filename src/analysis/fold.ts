/**
 * Normalization of one word, as ICUFoldingFilter does for the scripts whose users expect it:
 * NFKC (full-width Latin to ASCII, half-width kana to full-width, ligatures apart), case folding,
 * and diacritics removed where they decorate a letter (Latin, Greek, Cyrillic, Arabic, Hebrew),
 * never where they are the letters (Indic vowel signs, Thai, Khmer; Hangul stays composed).
 * Turkish dotted and dotless i both fold to i, so either spelling finds the other.
 */

/** Letters that fold to other letters rather than losing a mark (ICU folding's choices). */
const LETTERS: Record<string, string> = {
  ß: 'ss',
  ẞ: 'ss',
  ı: 'i',
  ς: 'σ',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ħ: 'h',
  ŧ: 't',
  ŀ: 'l',
  ĸ: 'q',
  ŋ: 'n',
};
const SPECIAL = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'gu');

/** Marks after a letter of a script whose marks are decoration (accents, harakat, niqqud). */
const DECORATION = /(?<=[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Armenian}]\p{M}*)\p{Mn}/gu;

/** What is not part of a word after NFKC (ZWJ, ZWNJ, tatweel, the parentheses of ⑴). */
const NOT_WORD = /[^\p{L}\p{M}\p{N}]|\u0640/gu;

/** Folded forms of recent words: pages repeat their words, and folding is the costly step. */
const cache = new Map<string, string>();
const CACHE_SIZE = 50_000;

/** The surface form: NFKC and lower case, marks kept (for "exact form first" ranking). */
export function surface(word: string): string {
  return word.normalize('NFKC').toLowerCase().replace(NOT_WORD, '');
}

/** The folded form of a word of a script with spaces (the index and the query both use it). */
export function fold(word: string): string {
  let f = cache.get(word);
  if (f !== undefined) return f;
  f = surface(word)
    .replace(SPECIAL, (c) => LETTERS[c])
    .normalize('NFD')
    .replace(DECORATION, '')
    .normalize('NFC');
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(word, f);
  return f;
}

/** NFKC and lower case for the letters of scripts without spaces (kana, Han, Hangul, Thai...). */
export function foldUnit(unit: string): string {
  return unit.normalize('NFKC').toLowerCase().replace(NOT_WORD, '');
}
