/**
 * nwax_bm25's JavaScript twin (where the extension is not built, or NWAX_NATIVE leaves the
 * `rank` kernel to JavaScript). An auxiliary function cannot be written in JavaScript, so the
 * frequencies it needs come from FTS5's own bm25(): run on one phrase alone with one column
 * weighted 1, it is IDF x f (k1 + 1) / (f + k1 (1 - b + b D / avgdl)) with this table's own
 * statistics, a strictly increasing function of f, the phrase's count in that column; inverted
 * and rounded, it gives the count exactly. The score is then computed with the collection's
 * statistics by bm25.ts, in nwax_bm25's order, so the two agree to the bit
 * (test/collection-rank.test.ts).
 */
import type { Db } from '../index/schema.js';
import { B, bm25Score, idf, K1, type Scoring } from './bm25.js';
import type { FtsPhrase } from './fts-phrases.js';
import { rowLengths } from './fts-stats.js';

export interface TableCounts {
  /** FTS5's rows and tokens in this table (every row). */
  rows: number;
  tokens: number;
  /** The rows this table holds of a phrase (every row), as bm25() counts them. */
  hits(text: string): number;
}

/**
 * The scores of rows `ids` for a MATCH text of phrases `phrases` (those rows that match it:
 * the caller found them by it), with the collection's statistics.
 */
export function scoreRows(db: Db, phrases: readonly FtsPhrase[], s: Scoring, ids: readonly number[], table: TableCounts): { id: number; r: number }[] {
  if (ids.length === 0) return [];
  const lengths = rowLengths(db, ids);
  const freq = new Map<number, number[]>(ids.map((id) => [id, new Array<number>(phrases.length).fill(0)]));
  const list = JSON.stringify(ids);
  const avgdl = table.tokens / table.rows;
  const cols = s.weights.flatMap((w, c) => (w !== 0 ? [c] : []));
  for (const [p, phrase] of phrases.entries()) {
    const localIdf = idf(table.rows, table.hits(phrase.text));
    const one = (c: number) => s.weights.map((_, k) => (k === c ? '1' : '0')).join(', ');
    const sql = `SELECT rowid, ${cols.map((c) => `bm25(fts, ${one(c)})`).join(', ')} FROM fts WHERE fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`;
    for (const row of db.prepare(sql).raw().all(phrase.text, list) as number[][]) {
      const id = row[0];
      const k = K1 * (1 - B + (B * (lengths.get(id) ?? 0)) / avgdl);
      let f = 0;
      for (const [j, c] of cols.entries()) {
        const score = -row[j + 1];
        // score = idf f (k1 + 1) / (f + k), so f = score k / (idf (k1 + 1) - score).
        const count = score > 0 ? Math.round((score * k) / (localIdf * (K1 + 1) - score)) : 0;
        f += s.weights[c] * count;
      }
      freq.get(id)![p] = f;
    }
  }
  return ids.map((id) => ({ id, r: bm25Score(freq.get(id)!, lengths.get(id) ?? 0, s) }));
}
