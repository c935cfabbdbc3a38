/**
 * Snippets from a window of the stored text around the first matches (never a re-tokenized
 * page): the window starts a little before the first query term found and holds the marks of
 * every query term in it, as [start, end) offsets for the renderer to mark and escape. Terms
 * are found by the analyzer that made the index (analysis/analyzer.ts), so a Japanese, Thai or
 * Greek snippet marks the word searched for, as the index matched it: `東京` inside 東京都, `resume`
 * on résumé.
 */
import { isCjkUnit, tokenStart, tokens, type Token } from '../analysis/analyzer.js';

export interface Snippet {
  text: string;
  marks: [number, number][];
}

const WINDOW = 240;
const BEFORE = 60;
/** Text searched for a first match: past it the snippet is the page's head (bounded work per hit). */
const SCAN = 200_000;
/**
 * Characters of a text its snippet can depend on: the first match is looked for in the first
 * SCAN, and the window cut after it. snippetOf of a text's first SNIPPET_READS characters, where
 * the text goes on, is snippetOf of the whole.
 */
export const SNIPPET_READS = SCAN + WINDOW + 16;

/** How a token matches: as a whole term, by its first character (a one-character CJK query), or not. */
type Match = 'whole' | 'first' | undefined;

function matcher(highlight: string[]): (t: Token) => Match {
  const terms = new Set(highlight.filter(Boolean));
  // A lone CJK character is searched as a prefix of the index's bigrams (query.ts).
  const prefixes = [...terms].filter(isCjkUnit);
  return (t) => (terms.has(t.term) ? 'whole' : prefixes.some((p) => t.term.startsWith(p)) ? 'first' : undefined);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const SPACED = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Armenian}\p{Script=Devanagari}\p{N}]/u;

/**
 * Where the first query term is written in the text as the term itself (most are: ASCII
 * words, bigrams inside runs of Han and kana, Thai words), by one native regular expression
 * search, or -1. Words of scripts with spaces must stand alone; the pieces of scripts without
 * spaces may sit inside a run.
 */
function quickFirst(text: string, highlight: string[]): number {
  const byLength = [...highlight].sort((a, b) => b.length - a.length);
  if (byLength.every((t) => ASCII_WORD.test(t))) return asciiFirst(text.length > SCAN ? text.slice(0, SCAN) : text, byLength);
  const spaced = byLength.filter((t) => SPACED.test(t)).map(escapeRe);
  const inRuns = byLength.filter((t) => !SPACED.test(t)).map(escapeRe);
  const alts = [...(spaced.length ? [`(?<![\\p{L}\\p{N}])(?:${spaced.join('|')})(?![\\p{L}\\p{M}\\p{N}])`] : []), ...inRuns];
  const m = new RegExp(alts.join('|'), 'iu').exec(text.length > SCAN ? text.slice(0, SCAN) : text);
  return m ? m.index : -1;
}

const ASCII_WORD = /^[a-z0-9]+$/i;
const BEFORE_WORD = /[\p{L}\p{N}]/u;
const AFTER_WORD = /[\p{L}\p{M}\p{N}]/u;

/**
 * quickFirst for ASCII words (most queries): the words found by a plain case-insensitive
 * pattern, each place then checked to stand alone (no letter, mark or digit of any script
 * either side), as the /iu pattern with lookarounds does, at a fraction of its cost over a long
 * page (4 x 500 queries on the bench corpus: 1.4 s of it).
 */
function asciiFirst(text: string, terms: string[]): number {
  // Under /iu, s and k also match ſ (U+017F) and the Kelvin sign (U+212A), whose case folds to
  // them; a plain /i does not, so they are named.
  const re = new RegExp(terms.map((t) => escapeRe(t).replace(/s/gi, '[sſ]').replace(/k/gi, '[k\u212a]')).join('|'), 'gi');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const before = m.index > 0 ? String.fromCodePoint(codePointBefore(text, m.index)) : ' ';
    const end = m.index + m[0].length;
    const after = end < text.length ? String.fromCodePoint(text.codePointAt(end)!) : ' ';
    if (!BEFORE_WORD.test(before) && !AFTER_WORD.test(after)) return m.index;
    re.lastIndex = m.index + 1;
  }
  return -1;
}

/** The code point that ends just before `at`. */
function codePointBefore(text: string, at: number): number {
  const lo = text.charCodeAt(at - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && at >= 2) {
    const hi = text.charCodeAt(at - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return text.codePointAt(at - 2)!;
  }
  return lo;
}

/**
 * The first match: found as written (above), else by the analyzer's tokens (résumé for resume,
 * ｷｬﾌﾟｼｮﾝ for キャプション) of the runs of word characters that hold something past ASCII: an
 * ASCII run is its own lower case to the analyzer, which the search as written has already
 * looked for, so a mostly-ASCII page is not analyzed whole (4 x 500 queries on the bench
 * corpus: 2.4 s of analysis).
 */
function firstMatch(text: string, highlight: string[], hit: (t: Token) => Match): number | undefined {
  const quick = quickFirst(text, highlight);
  if (quick >= 0) return quick;
  const scanned = text.length > SCAN ? text.slice(0, SCAN) : text;
  const past = /[^\x00-\x7f]/g;
  for (let m = past.exec(scanned); m; m = past.exec(scanned)) {
    const [from, to] = runAround(scanned, m.index);
    if (to > from) for (const t of tokens(scanned.slice(from, to))) if (hit(t)) return from + t.start;
    past.lastIndex = Math.max(to, m.index + 1);
  }
  return undefined;
}

const WORD = /[\p{L}\p{M}\p{N}\u200c\u200d]/u;

/** The run of word characters (the analyzer's runs) holding the code unit at `at`: [from, to). */
function runAround(text: string, at: number): [number, number] {
  const isWord = (i: number) => i >= 0 && i < text.length && WORD.test(String.fromCodePoint(text.codePointAt(i)!));
  // Step onto a pair's first half, then out to the run's ends a code point at a time.
  let from = at > 0 && /[\udc00-\udfff]/.test(text[at]) && /[\ud800-\udbff]/.test(text[at - 1]) ? at - 1 : at;
  if (!isWord(from)) return [from, from];
  for (;;) {
    const prev = from >= 2 && /[\udc00-\udfff]/.test(text[from - 1]) && /[\ud800-\udbff]/.test(text[from - 2]) ? from - 2 : from - 1;
    if (!isWord(prev)) break;
    from = prev;
  }
  let to = from;
  while (to < text.length && isWord(to)) to += text.codePointAt(to)! > 0xffff ? 2 : 1;
  return [from, to];
}

/** The marks of the matching tokens of `window`, overlapping ones (CJK bigrams) joined. */
function marksIn(window: string, hit: (t: Token) => Match, shift: number): [number, number][] {
  const marks: [number, number][] = [];
  for (const t of tokens(window)) {
    const how = hit(t);
    if (!how) continue;
    const end = how === 'first' ? t.start + String.fromCodePoint(window.codePointAt(t.start)!).length : t.end;
    const last = marks[marks.length - 1];
    if (last && t.start + shift <= last[1]) last[1] = Math.max(last[1], end + shift);
    else marks.push([t.start + shift, end + shift]);
  }
  return marks;
}

/** Where the snippet of `text` for `highlight` starts looking: the first match's offset, or undefined (held to the analyzer by a test). */
export function firstMatchOf(text: string, highlight: string[]): number | undefined {
  return firstMatch(text, [...new Set(highlight.filter(Boolean))], matcher(highlight));
}

export function snippetOf(text: string, highlight: string[]): Snippet {
  if (highlight.length === 0 || text.length === 0) return { text: text.slice(0, WINDOW) + (text.length > WINDOW ? ' …' : ''), marks: [] };
  const hit = matcher(highlight);
  return windowAt(text, firstMatch(text, [...new Set(highlight.filter(Boolean))], hit), hit);
}

/**
 * The snippet of the passage that the ranking found closest (proximity.ts): the window of the
 * text around its token `passage` (the text index's numbering: tokenStart), or undefined where
 * `text` does not reach that token with room for the window after it (a longer head is wanted).
 */
export function snippetOfPassage(text: string, highlight: string[], passage: number, whole: boolean): Snippet | undefined {
  const at = tokenStart(text, passage);
  if (at === undefined || (!whole && at + WINDOW + 16 >= text.length)) return undefined;
  return windowAt(text, at, matcher(highlight));
}

/** The window of `text` from a little before `first` (the head where undefined), its matches marked. */
function windowAt(text: string, first: number | undefined, hit: (t: Token) => Match): Snippet {
  let start = first !== undefined ? Math.max(0, first - BEFORE) : 0;
  // Start and end at word boundaries where there is one nearby.
  if (start > 0) {
    const sp = text.indexOf(' ', start);
    if (sp >= 0 && sp < (first ?? start + 20)) start = sp + 1;
    // Never inside a surrogate pair.
    else if (/[\udc00-\udfff]/.test(text[start])) start++;
  }
  let end = Math.min(text.length, start + WINDOW);
  if (end < text.length) {
    const sp = text.lastIndexOf(' ', end);
    if (sp > start + WINDOW / 2) end = sp;
    else if (/[\udc00-\udfff]/.test(text[end])) end++;
  }
  const prefix = start > 0 ? '… ' : '';
  const window = text.slice(start, end);
  return { text: prefix + window + (end < text.length ? ' …' : ''), marks: marksIn(window, hit, prefix.length) };
}

/**
 * The snippet snippetOf gives of a text that begins with `head` and goes on past it, or
 * undefined where the head cannot tell (no match written as the query's terms in it, or one too
 * near its end): a long page's snippet from its first kilobytes, read from its segment without
 * the rest. The same: snippetOf finds the first match as written before any other way, and
 * reads nothing past the window it cuts after that match.
 */
export function snippetOfHead(head: string, highlight: string[]): Snippet | undefined {
  const terms = [...new Set(highlight.filter(Boolean))];
  if (terms.length === 0 || highlight.length === 0) return head.length > WINDOW ? snippetOf(head, highlight) : undefined;
  const first = quickFirst(head, terms);
  // Room for the window and for the checks either side of the match (a word must stand alone).
  const longest = Math.max(...terms.map((t) => t.length));
  if (first < 0 || first + longest + WINDOW + 8 >= head.length) return undefined;
  return snippetOf(head, highlight);
}

/** The snippet with its marks between `open` and `close`, every piece passed through `escapeText`. */
export function markSnippet(s: Snippet, open: string, close: string, escapeText: (t: string) => string = (t) => t): string {
  let out = '';
  let at = 0;
  for (const [a, b] of s.marks) {
    out += escapeText(s.text.slice(at, a)) + open + escapeText(s.text.slice(a, b)) + close;
    at = b;
  }
  return out + escapeText(s.text.slice(at));
}
