/**
 * The one text analysis of nwax: the index writer, the query parser, title: queries, the
 * ranking's title and URL features and the snippets all cut text into terms here, so the same
 * text gives the same terms at index and at query time, in every script, by construction.
 *
 * A text is cut into runs of letters, marks and digits; a run into pieces of one kind:
 * - words of scripts with spaces (Latin, Cyrillic, Greek, Arabic, Hebrew, Indic...): one term,
 *   folded (fold.ts);
 * - Han and kana (one piece: Japanese mixes them in a word) and Hangul: overlapping bigrams of
 *   characters, as Lucene's CJKBigramFilter (Solr's `text_cjk`), so a word inside a run without
 *   spaces is found (東京 in 東京都の天気予報, 서울 in 서울에서). A lone character is a unigram.
 *   The index adds the last character of each longer piece as a unigram too ("tail"), so that a
 *   one-character query (a prefix search over the terms) finds it at the end of a piece as well;
 *   a query has the same tails but the one at its end (see `terms`), so its terms are a phrase
 *   inside the indexed ones;
 * - Thai, Lao, Khmer and Myanmar: dictionary words from ICU's word break iterator
 *   (Intl.Segmenter), one piece at a time: its cost grows with the square of the text it is
 *   given, never a whole page.
 *
 * The index stores the terms joined by spaces under FTS5's `ascii` tokenizer, which splits on
 * ASCII separators only, so FTS5 keeps exactly these terms (better-sqlite3 cannot register a
 * tokenizer of its own).
 */
import { fold, foldUnit, surface } from './fold.js';

/** Recorded in each index; an index made with another analyzer must be rebuilt. */
export const ANALYZER = 'nwax-text/1';

export interface Token {
  /** The term as indexed. */
  term: string;
  /** [start, end) of the text it came from (UTF-16 offsets). */
  start: number;
  end: number;
  /** A CJK tail unigram (index only; see above). */
  tail?: boolean;
}

/** Longest non-ASCII term kept (longer ones are data, not words). */
export const MAX_TERM = 64;

const RUN = /[\p{L}\p{M}\p{N}\u200c\u200d]+/gu;
const ASCII_RUN = /^[a-zA-Z0-9]+$/;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3005\u3006\u30fc\uff70\u3099-\u309c\uff9e\uff9f]/u;
const HANGUL = /\p{Script=Hangul}/u;
const SEA = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
// biome-ignore lint/suspicious/noMisleadingCharacterClass: the combining kana marks are wanted as a range of their own, each a mark
const MARK = /[\p{M}\u200c\u200d\uff9e\uff9f\u3099-\u309c]/u;

type Kind = 'word' | 'cjk' | 'hangul' | 'sea';

/** The kind of a character: by code range for the common ones, by Unicode script for the rest. */
function kindOf(c: string): Kind {
  const code = c.codePointAt(0)!;
  if (code < 0x0e00) return 'word';
  if (code < 0x0f00) return 'sea'; // Thai, Lao
  if ((code >= 0x4e00 && code <= 0x9fff) || (code >= 0x3040 && code <= 0x30ff) || (code >= 0x3400 && code <= 0x4dbf)) return 'cjk';
  if (code >= 0xac00 && code <= 0xd7a3) return 'hangul';
  if (HANGUL.test(c)) return 'hangul';
  if (CJK.test(c)) return 'cjk';
  if (SEA.test(c)) return 'sea';
  return 'word';
}

function isMark(c: string): boolean {
  const code = c.charCodeAt(0);
  return code >= 0x300 && MARK.test(c);
}

let segmenter: Intl.Segmenter | undefined;
/** Text given to the segmenter at once: its cost is quadratic in this length. */
const SEGMENT_CHUNK = 512;

function word(text: string, at: number, out: Token[]): void {
  const t = fold(text);
  if (t.length > 0 && t.length <= MAX_TERM) out.push({ term: t, start: at, end: at + text.length });
}

/** Han, kana and Hangul that NFKC and lower-casing leave as they are (most of such text). */
function plainUnit(u: string): boolean {
  if (u.length !== 1) return false;
  const c = u.charCodeAt(0);
  return (
    (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3041 && c <= 0x3096) || (c >= 0x30a1 && c <= 0x30fa) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0x3400 && c <= 0x4dbf)
  );
}

/** Units of a CJK piece: a character with the marks after it (ｶﾞ is one unit, folded to ガ). */
function bigrams(text: string, at: number, tails: boolean, out: Token[]): void {
  const units: { u: string; start: number; end: number }[] = [];
  let i = 0;
  for (const c of text) {
    const last = units[units.length - 1];
    if (last && isMark(c)) {
      last.u += c;
      last.end += c.length;
    } else units.push({ u: c, start: at + i, end: at + i + c.length });
    i += c.length;
  }
  const folded = units.filter((x) => {
    if (!plainUnit(x.u)) x.u = foldUnit(x.u);
    return x.u.length > 0;
  });
  if (folded.length === 1) {
    out.push({ term: folded[0].u, start: folded[0].start, end: folded[0].end });
    return;
  }
  for (let k = 0; k + 1 < folded.length; k++) out.push({ term: folded[k].u + folded[k + 1].u, start: folded[k].start, end: folded[k + 1].end });
  const last = folded[folded.length - 1];
  if (tails && last) out.push({ term: last.u, start: last.start, end: last.end, tail: true });
}

function dictionaryWords(text: string, at: number, out: Token[]): void {
  segmenter ??= new Intl.Segmenter('th', { granularity: 'word' });
  for (let from = 0; from < text.length; from += SEGMENT_CHUNK) {
    const chunk = text.slice(from, from + SEGMENT_CHUNK);
    for (const s of segmenter.segment(chunk)) {
      const term = foldUnit(s.segment);
      if (term.length > 0 && term.length <= MAX_TERM) out.push({ term, start: at + from + s.index, end: at + from + s.index + s.segment.length });
    }
  }
}

/** The tokens of one run of letters, marks and digits, cut into pieces of one kind. */
function pieces(run: string, at: number, tails: boolean, out: Token[]): void {
  let kind: Kind | undefined;
  let start = 0;
  let i = 0;
  const flush = (end: number) => {
    if (kind === undefined || end <= start) return;
    const text = run.slice(start, end);
    if (kind === 'word') word(text, at + start, out);
    else if (kind === 'sea') dictionaryWords(text, at + start, out);
    else bigrams(text, at + start, tails, out);
  };
  for (const c of run) {
    // A mark belongs to the letter before it, whatever script the mark is coded in.
    const k = kind !== undefined && isMark(c) ? kind : kindOf(c);
    if (k !== kind) {
      flush(i);
      kind = k;
      start = i;
    }
    i += c.length;
  }
  flush(i);
}

/**
 * The tokens of a text, in order, with where each came from. `tails`: the CJK tail unigrams
 * (the index wants them, a query and a snippet do not).
 */
export function* tokens(text: string, tails = false): Generator<Token> {
  const re = new RegExp(RUN);
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const run = m[0];
    if (ASCII_RUN.test(run)) {
      // Any length, as FTS5's ascii tokenizer keeps it (indexText passes ASCII through).
      yield { term: run.toLowerCase(), start: m.index, end: m.index + run.length };
      continue;
    }
    const out: Token[] = [];
    pieces(run, m.index, tails, out);
    yield* out;
  }
}

/**
 * The terms of a query word or phrase: the indexed terms of the same text, but a tail at its
 * very end (the text searched may go on where the query stops: 東京 inside 東京都). Tails
 * inside stay, as the index has them there: 平成21年度 is 平成 成 21 年度 in both.
 */
export function terms(text: string): string[] {
  const all = [...tokens(text, true)];
  if (all.length > 0 && all[all.length - 1].tail) all.pop();
  return all.map((t) => t.term);
}

/** The terms that mark a snippet for a query word (no tails: they would mark lone characters). */
export function markTerms(text: string): string[] {
  return [...tokens(text)].map((t) => t.term);
}

/** Characters of the scripts cut into bigrams or dictionary words (a chunk without them is words only). */
const NOT_WORDS_ONLY = /[\u0e00-\u0eff\u1000-\u11ff\u1780-\u17ff\u2e80-\ud7ff\uf900-\ufaff\uff00-\uffef]|[\ud840-\ud87f]/;
const SEPARATORS = /[^\p{L}\p{M}\p{N}\u200c\u200d]+/u;

/**
 * Chunks analyzed already, and their terms: the same few (a word with an accent, `don’t`, a
 * dash between words) come back on page after page, and their analysis was a tenth of the
 * index step. Short chunks only, and forgotten past a bound, so a long run of CJK text or a
 * stream of distinct words holds no memory.
 */
const ANALYZED = new Map<string, string>();
const ANALYZED_MAX = 1 << 16;
const ANALYZED_CHUNK = 64;

/**
 * The index terms of a chunk of text around non-ASCII characters: a run of ASCII letters and
 * digits and of characters past ASCII, as FTS5's ascii tokenizer cuts a token (the index's
 * `fts` kernel hands its tokens with such characters here, as indexText's chunks).
 */
export function chunkTerms(chunk: string): string {
  if (chunk.length > ANALYZED_CHUNK) return analyzeChunk(chunk);
  let terms = ANALYZED.get(chunk);
  if (terms === undefined) {
    if (ANALYZED.size >= ANALYZED_MAX) ANALYZED.clear();
    terms = analyzeChunk(chunk);
    ANALYZED.set(chunk, terms);
  }
  return terms;
}

/**
 * Classes of UTF-16 units for `plainTerms`, each unit's found once by the regular expressions
 * `tokens` uses and kept: a separator (outside RUN), an ASCII letter or digit, a Han or kana
 * character and a Hangul syllable that folding leaves as they are (plainUnit) and that are no
 * marks, and anything else (marks, other scripts, surrogates), which the fast path leaves to
 * `tokens`.
 */
const UNIT_SEPARATOR = 1;
const UNIT_ASCII = 2;
const UNIT_CJK = 3;
const UNIT_HANGUL = 4;
const UNIT_OTHER = 5;
const unitClasses = new Uint8Array(0x10000);
const RUN_UNIT = /^[\p{L}\p{M}\p{N}\u200c\u200d]$/u;

function unitClass(code: number): number {
  let k = unitClasses[code];
  if (k === 0) {
    const c = String.fromCharCode(code);
    if (isAsciiAlnum(code)) k = UNIT_ASCII;
    else if (code >= 0xd800 && code <= 0xdfff) k = UNIT_OTHER;
    else if (plainUnit(c)) k = code >= 0xac00 && code <= 0xd7a3 ? UNIT_HANGUL : UNIT_CJK;
    else k = RUN_UNIT.test(c) ? UNIT_OTHER : UNIT_SEPARATOR;
    unitClasses[code] = k;
  }
  return k;
}

/**
 * The index terms of a chunk of ASCII words, Han, kana and Hangul between separators (a page of
 * Chinese, Japanese or Korean is mostly such chunks, between its punctuation): what `tokens`
 * gives for it with tails, without its regular expressions, generator and objects per
 * character (the 59k chunks the bench corpus's index step analyzes: 435 -> 150 ms, the same
 * terms). Undefined for a chunk holding anything else.
 */
function plainTerms(chunk: string): string | undefined {
  const out: string[] = [];
  const n = chunk.length;
  for (let i = 0; i < n; ) {
    const k = unitClass(chunk.charCodeAt(i));
    if (k === UNIT_SEPARATOR) {
      i++;
      continue;
    }
    // A run of letters and digits: ASCII alone is one term of any length, as `tokens` keeps it.
    let e = i;
    let ascii = true;
    for (; e < n; e++) {
      const c = unitClass(chunk.charCodeAt(e));
      if (c === UNIT_SEPARATOR) break;
      if (c === UNIT_OTHER) return undefined;
      if (c !== UNIT_ASCII) ascii = false;
    }
    if (ascii) {
      out.push(chunk.slice(i, e).toLowerCase());
      i = e;
      continue;
    }
    // Pieces of one kind (`pieces`): a word (folded: lower case, MAX_TERM at most), or units
    // of Han and kana or of Hangul cut into bigrams with the last unit as a tail (`bigrams`).
    for (let s = i; s < e; ) {
      const kind = unitClass(chunk.charCodeAt(s));
      let t = s + 1;
      while (t < e && unitClass(chunk.charCodeAt(t)) === kind) t++;
      if (kind === UNIT_ASCII) {
        if (t - s <= MAX_TERM) out.push(chunk.slice(s, t).toLowerCase());
      } else if (t - s === 1) out.push(chunk[s]);
      else {
        for (let q = s; q + 1 < t; q++) out.push(chunk.slice(q, q + 2));
        out.push(chunk[t - 1]);
      }
      s = t;
    }
    i = e;
  }
  return out.join(' ');
}

/**
 * chunkTerms without its cache, for a caller that keeps its own (the index's `fts` kernel
 * remembers every chunk it analyzed, of any length, until its bound).
 */
export function analyzeChunk(chunk: string): string {
  const plain = plainTerms(chunk);
  if (plain !== undefined) return plain;
  const found: string[] = [];
  if (NOT_WORDS_ONLY.test(chunk)) {
    for (const t of tokens(chunk, true)) found.push(t.term);
  } else {
    // Words of scripts with spaces only (accents, Cyrillic, Greek, curly quotes between
    // ASCII words): what `tokens` gives, without its per-character work.
    for (const w of chunk.split(SEPARATORS)) {
      if (w === '') continue;
      if (ASCII_RUN.test(w)) found.push(w.toLowerCase());
      else {
        const f = fold(w);
        if (f.length > 0 && f.length <= MAX_TERM) found.push(f);
      }
    }
  }
  return found.join(' ');
}

function isAsciiAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

/**
 * What the index stores for a text: its terms (with tails), joined by spaces. Stretches of
 * ASCII pass through as they are: FTS5's ascii tokenizer cuts them at every other character and
 * lower-cases them, which is what `tokens` does to an ASCII run (so both sides agree), at C
 * speed. Only the words that hold a non-ASCII character, and the characters between them, go
 * through the analysis here (an English page costs one scan).
 */
export function indexText(text: string): string {
  let out = '';
  let chunks = false;
  indexCut(text, (from, to, chunk) => {
    if (!chunk) out += text.slice(from, to);
    else {
      chunks = true;
      out += ` ${chunkTerms(text.slice(from, to))} `;
    }
    return false;
  });
  return chunks ? out : text;
}

/**
 * indexText's cut of `text`, in order: each stretch of ASCII (FTS5's to cut into words) and
 * each chunk around characters past ASCII (the analyzer's), as [from, to) to `visit`, which
 * returns true to stop.
 */
function indexCut(text: string, visit: (from: number, to: number, chunk: boolean) => boolean): void {
  const nonAscii = /[^\x00-\x7f]/g;
  let last = 0;
  for (let m = nonAscii.exec(text); m; m = nonAscii.exec(text)) {
    let s = m.index;
    while (s > last && isAsciiAlnum(text.charCodeAt(s - 1))) s--;
    let e = m.index + 1;
    while (e < text.length && (text.charCodeAt(e) >= 128 || isAsciiAlnum(text.charCodeAt(e)))) e++;
    if (visit(last, s, false) || visit(s, e, true)) return;
    last = e;
    nonAscii.lastIndex = e;
  }
  visit(last, text.length, false);
}

/**
 * The terms of what indexText gives for `text`, in the order FTS5 numbers a column's positions,
 * each with the offset of its first character: ASCII letters and digits are FTS5's tokens, a
 * chunk's terms the analyzer's tokens with tails (chunkTerms is made of them), one position each.
 */
export function indexTerms(text: string): { term: string; start: number }[] {
  const out: { term: string; start: number }[] = [];
  const ascii = /[a-zA-Z0-9]+/g;
  indexCut(text, (from, to, chunk) => {
    if (chunk) for (const t of tokens(text.slice(from, to), true)) out.push({ term: t.term, start: from + t.start });
    else {
      ascii.lastIndex = from;
      for (let m = ascii.exec(text); m && m.index < to; m = ascii.exec(text)) out.push({ term: m[0].toLowerCase(), start: m.index });
    }
    return false;
  });
  return out;
}

/**
 * Where the `n`-th term (from 0) of indexTerms comes from, or undefined past the text's last
 * term: the same cut, counting ASCII words in a loop (a regular expression's match object per
 * word cost most of a deep passage's snippet) and a chunk's terms by chunkTerms (cached).
 */
export function tokenStart(text: string, n: number): number | undefined {
  if (n < 0) return undefined;
  let left = n;
  let found: number | undefined;
  indexCut(text, (from, to, chunk) => {
    if (chunk) {
      const terms = chunkTerms(text.slice(from, to));
      const count = terms === '' ? 0 : terms.split(' ').length;
      if (left >= count) {
        left -= count;
        return false;
      }
      let i = 0;
      found = from;
      for (const t of tokens(text.slice(from, to), true)) {
        if (i++ === left) {
          found = from + t.start;
          break;
        }
      }
      return true;
    }
    let inWord = false;
    for (let i = from; i < to; i++) {
      const word = isAsciiAlnum(text.charCodeAt(i));
      if (word && !inWord) {
        if (left === 0) {
          found = i;
          return true;
        }
        left--;
      }
      inWord = word;
    }
    return false;
  });
  return found;
}

/** True for a term that is one CJK character: a query for it is a prefix search (see above). */
export function isCjkUnit(term: string): boolean {
  const first = term.codePointAt(0);
  return first !== undefined && String.fromCodePoint(first).length === term.length && (CJK.test(term) || HANGUL.test(term));
}

/** The surface forms (marks kept) of a text's words of scripts with spaces. */
export function surfaces(text: string): string[] {
  const out: string[] = [];
  const re = new RegExp(RUN);
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (ASCII_RUN.test(m[0])) out.push(m[0].toLowerCase());
    else {
      const found: Token[] = [];
      pieces(m[0], 0, false, found);
      for (const t of found) out.push(surface(m[0].slice(t.start, t.end)));
    }
  }
  return out;
}
