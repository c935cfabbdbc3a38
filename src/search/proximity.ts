/**
 * Proximity: how closely a page holds the query's words together. A searcher who remembers a
 * few words of a passage means the page where they stand in one sentence, not the index page
 * where they stand hundreds of words apart; BM25 counts words, never where they are.
 *
 * The measure is FTS5's own NEAR distance, read from the positions the text index keeps (never
 * from the stored text): a column's `gap` is the least, over every choice of one occurrence per
 * query word, of the start of the last-starting one less the least end among them (the tokens
 * between the words, for words of one term each: 0 for words side by side). nwax_near
 * (native/fts-rank.c) computes it for a row's columns; its JavaScript twin (js-near.ts) finds it
 * with NEAR queries. Either way it is cut to a step of LADDER, so the two agree exactly, and it
 * depends on the document and the query alone: the same however the collection is cut.
 *
 * The feature is the step's closeness, 1 - ln(1 + k) / ln(65) (1 side by side, 0.42 ten tokens
 * apart, 0 past the ladder: a hub page whose words stand hundreds apart), times the query's
 * rarity, the least IDF of its words over ln(N) (capped at 1): rare words together are a
 * remembered sentence, common ones together (`linux usb`) say little, and a section's home
 * page should not lose to every page that writes them side by side (measured on the
 * navigational queries: docs/decisions.md). Only the text's windows count: the title has its
 * own features, and windows in the title and anchors cost the navigational queries 0.01
 * MRR@10 for nothing on the passage queries. A query of one word has no proximity (0 for
 * every page: its ranking is unchanged).
 */

import { indexTerms, isCjkUnit } from '../analysis/analyzer.js';

/** The gaps told apart: about x1.4 a step, nothing past 64 tokens (a window that wide is no passage). */
export const LADDER = [0, 1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64] as const;

/** The columns whose windows count: the text (see above). */
export const NEAR_COLUMNS = ['content'] as const;

/** The column whose window is the passage a snippet shows. */
export const PASSAGE_COLUMN = 'content';

/** The least step at or above `gap`, or undefined past the ladder (no window). */
export function step(gap: number): number | undefined {
  if (gap < 0) return undefined;
  for (const k of LADDER) if (gap <= k) return k;
  return undefined;
}

/** The closeness of a step (undefined: none) in [0, 1]. */
export function nearness(k: number | undefined): number {
  return k === undefined ? 0 : 1 - Math.log1p(k) / Math.log1p(LADDER[LADDER.length - 1]);
}

/** How rare a query's words are: the least of their IDFs over ln(N), in [0, 1], for a collection of `rows` documents. */
export function rarity(idfs: readonly number[], rows: number): number {
  return idfs.length === 0 ? 0 : Math.min(1, Math.min(...idfs) / Math.log(Math.max(2, rows)));
}

/** What proximity gives a candidate: its closeness, and where the text's best window starts (tokens), where known. */
export interface Near {
  near: number;
  passage?: number;
}

/** A phrase of terms found at `pos` of `terms`: each term equal, a lone CJK character last as a prefix (as query-plan.ts writes it for FTS5). */
function phraseAt(terms: readonly string[], pos: number, phrase: readonly string[]): boolean {
  for (let j = 0; j < phrase.length; j++) {
    const t = terms[pos + j];
    if (t === undefined) return false;
    const prefix = j === phrase.length - 1 && isCjkUnit(phrase[j]);
    if (prefix ? !t.startsWith(phrase[j]) : t !== phrase[j]) return false;
  }
  return true;
}

/**
 * Where nwax_near would put the passage of `text` for the query's words `phrases` (each its
 * terms): the start, in the text index's numbering of terms, of the first window of least gap,
 * or undefined where the text does not hold them all. For the ranking's twin, which finds the
 * step by NEAR queries but not the place: the snippet looks for it in the text it reads anyway.
 */
export function passageIn(text: string, phrases: readonly (readonly string[])[]): number | undefined {
  if (phrases.length < 2) return undefined;
  const terms = indexTerms(text).map((t) => t.term);
  const last = phrases.map(() => -1);
  let seen = 0;
  let best = Number.POSITIVE_INFINITY;
  let start: number | undefined;
  for (let pos = 0; pos < terms.length; pos++) {
    for (const [p, phrase] of phrases.entries()) {
      if (!phraseAt(terms, pos, phrase)) continue;
      if (last[p] < 0) seen++;
      last[p] = pos;
      if (seen < phrases.length) continue;
      let minEnd = Number.POSITIVE_INFINITY;
      let minStart = pos;
      for (const [q, l] of last.entries()) {
        minEnd = Math.min(minEnd, l + phrases[q].length);
        minStart = Math.min(minStart, l);
      }
      if (pos - minEnd < best) {
        best = pos - minEnd;
        start = minStart;
      }
    }
  }
  return start;
}
