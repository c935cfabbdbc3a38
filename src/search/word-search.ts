/**
 * A word query over every index set at once, ranked as if the collection were one index, so
 * the same collection gives the same hits and scores however it is cut (1 part or 8, several
 * index sets, parts merged; test/collection-rank.test.ts):
 *
 * 1. Statistics: the documents and tokens of every set, and each phrase's documents in every
 *    set, summed (Elasticsearch's dfs_query_then_fetch, Solr's ExactStatsCache); each set
 *    scores with them (bm25.ts).
 * 2. The cap (`nwax.search.max.scored`) counts the collection's matches. Under it every match
 *    is scored; past it, the matches scored are the collection's first `cap` in key order
 *    (`URL digest`, the order the index job writes) and the first `cap` of the tier whose
 *    short fields hold every word, each taken over all sets by key, so the pool does not
 *    depend on the cut either.
 * 3. The best candidates of all sets are cut to one list by score, then URL and digest: the
 *    re-ranking (ranking.ts) sees the same candidates, whatever the sets.
 */
import { idf, type Scoring } from './bm25.js';
import type { OpenSet, RankLimits, Row, Scored, WordPlan } from './open-set.js';
import { MAX_SCORED } from './open-set.js';

export interface WordResult {
  total: number;
  capped?: boolean;
  rankedAmong?: number;
  partial?: boolean;
  /** The candidates, best first (rank: the BM25 score), each with its set. */
  rows: (Row & { set: OpenSet })[];
}

/** The collection's scoring of each set's plan: summed rows, tokens and phrase frequencies. */
function scorings(sets: OpenSet[], plans: WordPlan[]): Scoring[] {
  let rows = 0;
  let tokens = 0;
  for (const s of sets) {
    rows += s.stats.rows;
    tokens += s.stats.tokens;
  }
  const hits = new Map<string, number>();
  for (const p of plans)
    for (const ph of p.phrases)
      if (!hits.has(ph.text))
        hits.set(
          ph.text,
          sets.reduce((n, s) => n + s.phraseRows(ph.text), 0),
        );
  const avgdl = tokens / Math.max(1, rows);
  return plans.map((p, i) => ({ weights: sets[i].weights, avgdl, idf: p.phrases.map((ph) => idf(rows, hits.get(ph.text)!)) }));
}

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** The first `n` of every set's first `n` (document numbers in key order), by key over all sets, as each set's ids. */
function firstOfAll(sets: OpenSet[], firsts: number[][], n: number): number[][] {
  if (sets.length === 1) return [firsts[0].slice(0, n)];
  const all = firsts.flatMap((ids, i) => {
    const keys = sets[i].keysOf(ids);
    return ids.map((id) => ({ set: i, id, key: keys.get(id) ?? '' }));
  });
  all.sort(byKey);
  const out: number[][] = sets.map(() => []);
  for (const x of all.slice(0, n)) out[x.set].push(x.id);
  return out;
}

export function searchWords(sets: OpenSet[], plans: WordPlan[], candidates: number, limits: RankLimits): WordResult {
  const cap = Math.max(1, limits.maxScored ?? MAX_SCORED);
  const late = () => limits.deadline !== undefined && performance.now() > limits.deadline;
  const scoring = scorings(sets, plans);
  // Matches counted over the collection up to the cap and one more.
  let counted = 0;
  for (const [i, s] of sets.entries()) counted += s.countMatches(plans[i], cap + 1 - Math.min(counted, cap));
  const capped = counted > cap && !limits.exact;
  const total = Math.min(counted, cap);
  let scored: Scored[][];
  let rankedAmong: number | undefined;
  let partial = false;
  if (late()) {
    // Out of time already (a filter few matches pass makes counting long): the first
    // candidates in key order are scored, and the answer says it is partial.
    partial = true;
    const pools = firstOfAll(
      sets,
      sets.map((s, i) => s.firstMatches(plans[i], candidates)),
      candidates,
    );
    scored = sets.map((s, i) => s.score(plans[i], scoring[i], pools[i]));
    rankedAmong = pools.reduce((n, p) => n + p.length, 0);
  } else if (!capped) {
    scored = sets.map((s, i) => s.rankTop(plans[i], scoring[i], candidates));
  } else {
    // Capped: the head (the first matches in key order) and the tier of matches whose short
    // fields hold every word, where the best answers are (a champion list).
    const heads = firstOfAll(
      sets,
      sets.map((s, i) => s.firstMatches(plans[i], cap)),
      cap,
    );
    let tiers: number[][] = sets.map(() => []);
    if (late()) partial = true;
    else
      tiers = firstOfAll(
        sets,
        sets.map((s, i) => s.firstMatches(plans[i], cap, true)),
        cap,
      );
    const pools = heads.map((h, i) => [...new Set([...h, ...tiers[i]])]);
    scored = sets.map((s, i) => s.score(plans[i], scoring[i], pools[i]));
    rankedAmong = pools.reduce((n, p) => n + p.length, 0);
  }
  const rows = sets.flatMap((s, i) => s.scoredRows(scored[i]).map((r) => ({ ...r, set: s })));
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  rows.sort((a, b) => a.rank - b.rank || cmp(a.url, b.url) || cmp(a.digest, b.digest));
  rows.length = Math.min(rows.length, candidates);
  return { total, rows, ...(counted > cap ? { capped: true } : {}), ...(rankedAmong !== undefined ? { rankedAmong } : {}), ...(partial ? { partial } : {}) };
}
