/**
 * Proximity weighed into the candidates' scores, asked only of those that can still reach the
 * page (proximity.ts says what it is). Each candidate has its score without it (ranking.ts
 * rerank); proximity only lowers a score (better, as FTS5's), by `scale` x its nearness, and a
 * nearness is at most the query's rarity. So a candidate whose score less `scale` x rarity is
 * still above the `k`-th best score without proximity cannot reach the first `k` places (the
 * k-th best with proximity is at most that score): it is not asked, and keeps its score. The
 * first `k` are then exactly those of asking every candidate, and the same however the
 * collection is cut: a shard's share of the candidates holds its share of the first `k`, and
 * its own k-th best is no better than the collection's. Rare words make few candidates (their
 * matches are few); common words make a small bound: most queries ask a handful of rows, not a
 * hundred (at a million documents, the lookups were most of proximity's cost).
 */
import type { Candidate } from './ranking.js';

/** What the word search gives for proximity: the query's rarity, and what fills in `near` (and `passage`). */
export interface NearAsker<T> {
  rarity: number;
  ask(rows: T[]): void;
}

export function addNearness<T extends Candidate>(cands: T[], near: NearAsker<T>, scale: number, k: number): void {
  if (cands.length === 0 || k <= 0 || near.rarity <= 0 || scale <= 0) return;
  const bound = scale * near.rarity;
  const ranks = cands.map((c) => c.rank).sort((a, b) => a - b);
  const kth = ranks[Math.min(k, ranks.length) - 1];
  const need = cands.filter((c) => c.rank - bound <= kth);
  near.ask(need);
  for (const c of need) c.rank -= scale * (c.near ?? 0);
}
