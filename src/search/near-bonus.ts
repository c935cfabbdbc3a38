/**
 * Proximity weighed into the candidates' scores, asked only of those that can still reach the
 * page (proximity.ts says what it is). Each candidate has its score without it (ranking.ts
 * rerank); proximity only lowers a score (better, as FTS5's), by `scale` x its nearness, and a
 * nearness is at most the query's rarity: a candidate's final score lies in [rank - bound, rank].
 *
 * Two rules, each exact (the page is the page of asking every candidate, however the
 * collection is cut):
 * - a candidate whose score less the bound is still behind the `k`-th best score without
 *   proximity cannot reach the first `k` places: it is never asked. A shard's share of the
 *   candidates holds its share of the first `k`, and its own k-th best is no better than the
 *   collection's. Rare words make few candidates; common words make a small bound.
 * - where hits per site thin the list (the page's `k` is then ten times its hits), candidates
 *   are asked best first, a few at a time: once the candidates asked whose final score is
 *   better than any candidate not asked could reach fill the page (`filled`), the rest are not
 *   asked. Whatever is not asked comes after them, with proximity or without.
 * At a million documents the lookups were most of proximity's cost.
 */
import type { Candidate } from './ranking.js';

/** What the word search gives for proximity: the query's rarity, and what fills in `near` (and `passage`). */
export interface NearAsker<T> {
  rarity: number;
  ask(rows: T[]): void;
}

/** Candidates asked at first where the page is filled by `filled` (then twice as many each time). */
const FIRST_ASK = 16;

/**
 * `filled(settled)`: whether these candidates, in the order of their final scores, fill the page
 * (hits per site applied); undefined where the first `k` are the page.
 */
export function addNearness<T extends Candidate>(cands: T[], near: NearAsker<T>, scale: number, k: number, filled?: (settled: T[]) => boolean): void {
  if (cands.length === 0 || k <= 0 || near.rarity <= 0 || scale <= 0) return;
  const bound = scale * near.rarity;
  const byRank = [...cands].sort((a, b) => a.rank - b.rank);
  const kth = byRank[Math.min(k, byRank.length) - 1].rank;
  // Those that can reach the first k: a prefix of the order by score without proximity.
  let reach = byRank.findIndex((c) => c.rank - bound > kth);
  if (reach < 0) reach = byRank.length;
  const ask = (from: number, to: number) => {
    const some = byRank.slice(from, to);
    near.ask(some);
    for (const c of some) c.rank -= scale * (c.near ?? 0);
  };
  if (filled === undefined) {
    ask(0, reach);
    return;
  }
  let asked = 0;
  for (let batch = FIRST_ASK; asked < reach; batch *= 2) {
    const to = Math.min(reach, asked + batch);
    ask(asked, to);
    asked = to;
    if (asked >= reach) return;
    // The best any candidate not asked could reach (byRank[asked] is the best of them).
    const best = byRank[asked].rank - bound;
    // Strictly better: at an equal score a candidate not asked could come first by its URL.
    if (filled(byRank.slice(0, asked).filter((c) => c.rank < best))) return;
  }
}
