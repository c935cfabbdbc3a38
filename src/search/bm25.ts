/**
 * BM25 over the whole collection. FTS5's bm25() takes its statistics (rows, each phrase's
 * document frequency, the average row length) from the one table it runs on, so an index cut
 * into parts ranked a page by the part it landed in (the top 10 differed between 1 and 3 parts
 * for 169 of 300 queries). The searcher sums the statistics over every index set and scores
 * with them: natively through nwax_bm25 (native/fts-rank.c, a SQLite extension), or through
 * the JavaScript twin (js-bm25.ts). Both give FTS5's formula, and given one table's own
 * statistics, bm25()'s value.
 */

/** FTS5's constants. */
export const K1 = 1.2;
export const B = 0.75;

/** What an index set adds to the collection's statistics. */
export interface SetStats {
  /** Documents served (FTS5's rows less those dedup marked deleted). */
  rows: number;
  /** Their tokens, over every column. */
  tokens: number;
}

/** The statistics a query is scored with: the collection's, for this query's phrases. */
export interface Scoring {
  /** Column weights, one per column of the set's text index. */
  weights: number[];
  /** The collection's average row length in tokens. */
  avgdl: number;
  /** One IDF per phrase of the MATCH text scored, in FTS5's order (fts-phrases.ts). */
  idf: number[];
}

/** FTS5's IDF: ln((N - n + 0.5) / (n + 0.5)), and 1e-6 where that is not positive (a phrase in over half the rows). */
export function idf(rows: number, hits: number): number {
  const v = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return v <= 0 ? 1e-6 : v;
}

/**
 * One row's score from its weighted phrase frequencies and its length in tokens, the terms
 * summed in the order nwax_bm25 sums them (so the two agree to the bit): negative, lower is
 * better, as FTS5's.
 */
export function bm25Score(freq: readonly number[], length: number, s: Scoring): number {
  let score = 0;
  for (let i = 0; i < s.idf.length; i++) {
    const f = freq[i] ?? 0;
    score += s.idf[i] * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * length) / s.avgdl)));
  }
  return -1.0 * score;
}

/** The arguments of nwax_bm25 after its table: the weights, the average length, the IDFs. */
export function rankArgs(s: Scoring): number[] {
  return [...s.weights, s.avgdl, ...s.idf];
}
