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
import { rarity } from './proximity.js';
import type { OpenSet } from './open-set.js';
import { countMatches, firstMatches, nearMatches, rankTop, scoreMatches, type WordPlan } from './set-word-query.js';
import { MAX_SCORED, type RankLimits, type Row } from './types.js';
import { best, type Scored } from './set-scoring.js';
import type { LocalStats, SharedStats } from './types.js';

export interface WordResult {
  total: number;
  capped?: boolean;
  rankedAmong?: number;
  partial?: boolean;
  /** The candidates, best first (rank: the BM25 score), each with its set. */
  rows: (Row & { set: OpenSet })[];
  /**
   * For a query of two words or more: how rare its words are (proximity.ts), and what gives
   * candidates their proximity (`near`, `passage`), asked only for those that need it.
   */
  near?: { rarity: number; ask(rows: (Row & { set: OpenSet })[]): void };
}

export function localStats(sets: OpenSet[], plans: WordPlan[], cap: number, keys: boolean): LocalStats {
  let rows = 0;
  let tokens = 0;
  for (const s of sets) {
    rows += s.scoring.stats.rows;
    tokens += s.scoring.stats.tokens;
  }
  const hits: Record<string, number> = {};
  for (const p of plans) for (const ph of p.phrases) hits[ph.text] ??= sets.reduce((n, s) => n + s.scoring.phraseRows(ph.text), 0);
  let counted = 0;
  for (const [i, _s] of sets.entries()) counted += countMatches(plans[i], cap + 1 - Math.min(counted, cap));
  if (!keys) return { rows, tokens, hits, counted };
  const keysOf = (tier: boolean) =>
    mergeFirsts(
      sets,
      sets.map((_, i) => firstMatches(plans[i], cap, tier)),
      cap,
    ).map((x) => x.key);
  return { rows, tokens, hits, counted, head: keysOf(false), tier: keysOf(true) };
}

/** The collection's scoring of each set's plan: its rows, tokens and phrase frequencies. */
function scorings(sets: OpenSet[], plans: WordPlan[], all: Pick<SharedStats, 'rows' | 'tokens' | 'hits'>): Scoring[] {
  const avgdl = all.tokens / Math.max(1, all.rows);
  // A phrase the front did not count (it asked before a reload): counted here.
  const hits = (text: string) => all.hits[text] ?? sets.reduce((n, s) => n + s.scoring.phraseRows(text), 0);
  return plans.map((p, i) => ({ weights: sets[i].scoring.weights, avgdl, idf: p.phrases.map((ph) => idf(all.rows, hits(ph.text))) }));
}

/** Keys read at a time from a set while merging (most merges take the first few of most sets). */
const KEY_BATCH = 512;

/**
 * Every set's first matches (document numbers in key order: the index job and merge write
 * documents sorted by key) merged by key over all sets, the first `n` of them, or with `upTo`
 * every one up to that key; keys are read a batch at a time, as the merge reaches them.
 */
function mergeFirsts(sets: OpenSet[], firsts: number[][], n: number, upTo?: string): { set: number; id: number; key: string }[] {
  const keys: string[][] = sets.map(() => []);
  const at = sets.map(() => 0);
  const keyAt = (i: number): string | undefined => {
    const j = at[i];
    if (j >= firsts[i].length) return undefined;
    if (j >= keys[i].length) {
      const batch = firsts[i].slice(j, j + KEY_BATCH);
      const got = sets[i].keysOf(batch);
      for (const id of batch) keys[i].push(got.get(id) ?? '');
    }
    return keys[i][j];
  };
  const out: { set: number; id: number; key: string }[] = [];
  while (out.length < n) {
    let min = -1;
    let minKey = '';
    for (let i = 0; i < sets.length; i++) {
      const k = keyAt(i);
      if (k !== undefined && (min < 0 || k < minKey)) {
        min = i;
        minKey = k;
      }
    }
    if (min < 0 || (upTo !== undefined && minKey > upTo)) break;
    out.push({ set: min, id: firsts[min][at[min]++], key: minKey });
  }
  return out;
}

/**
 * How many of each set's first matches (document numbers in key order: the index job and
 * merge write documents sorted by key) are among the first `n` of all of them by key, or with
 * `upTo` are at most that key, reading a few keys rather than all: each round takes, from the
 * set whose step-th next key is least, its next `step` (= what is still wanted / the sets);
 * none of them can be past the n-th, since fewer than `step` of every other set's come before
 * (k-way selection; k ln(n) rounds of k keys: about 40 keys for 2 sets and 10,000 matches,
 * where merging them read 10,000 and cost 19 ms at a million documents). Ties between equal
 * keys of different sets go to the lower set.
 */
function firstCounts(sets: OpenSet[], firsts: number[][], n: number, upTo?: string): number[] {
  const cache = sets.map(() => new Map<number, string>());
  const key = (i: number, j: number): string => {
    let k = cache[i].get(j);
    if (k === undefined) cache[i].set(j, (k = sets[i].keyOf(firsts[i][j])));
    return k;
  };
  if (upTo !== undefined) {
    // Each set's matches up to the key: a binary search.
    return firsts.map((ids, i) => {
      let lo = 0;
      let hi = ids.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (key(i, mid) <= upTo) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    });
  }
  const taken = sets.map(() => 0);
  let need = Math.min(
    n,
    firsts.reduce((m, ids) => m + ids.length, 0),
  );
  while (need > 0) {
    const live = firsts.flatMap((ids, i) => (taken[i] < ids.length ? [i] : []));
    const step = Math.max(1, Math.floor(need / live.length));
    let least = -1;
    let leastKey = '';
    let leastStep = 0;
    for (const i of live) {
      const s = Math.min(step, firsts[i].length - taken[i]);
      const k = key(i, taken[i] + s - 1);
      if (least < 0 || k < leastKey) {
        least = i;
        leastKey = k;
        leastStep = s;
      }
    }
    taken[least] += leastStep;
    need -= leastStep;
  }
  return taken;
}

/**
 * The first `n` of every set's first `n` by key over all sets (or, from a front, those up to
 * the collection's `upTo`), as each set's ids.
 */
function firstOfAll(sets: OpenSet[], firsts: number[][], n: number, shared?: { upTo?: string }): number[][] {
  if (sets.length === 1 && !shared) return [firsts[0].slice(0, n)];
  if (shared && shared.upTo === undefined) return firsts;
  const counts = firstCounts(sets, firsts, n, shared?.upTo);
  return firsts.map((ids, i) => ids.slice(0, counts[i]));
}

/** `shared`: the collection's statistics from a shard front, instead of these sets' own. */
export function searchWords(sets: OpenSet[], plans: WordPlan[], candidates: number, limits: RankLimits, shared?: SharedStats): WordResult {
  const cap = shared?.cap ?? Math.max(1, limits.maxScored ?? MAX_SCORED);
  candidates = shared?.candidates ?? candidates;
  const late = () => limits.deadline !== undefined && performance.now() > limits.deadline;
  const own = shared ? undefined : localStats(sets, plans, cap, false);
  const scoring = scorings(sets, plans, shared ?? own!);
  // Matches counted over the collection up to the cap and one more.
  const counted = shared ? shared.counted : own!.counted;
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
      sets.map((_, i) => firstMatches(plans[i], candidates)),
      candidates,
    );
    // Only the best of each set's pool can be among the collection's candidates.
    scored = sets.map((_, i) => best(scoreMatches(plans[i], scoring[i], pools[i]), candidates));
    rankedAmong = pools.reduce((n, p) => n + p.length, 0);
  } else if (!capped) {
    scored = sets.map((_, i) => rankTop(plans[i], scoring[i], candidates));
  } else {
    // Capped: the head (the first matches in key order) and the tier of matches whose short
    // fields hold every word, where the best answers are (a champion list).
    const heads = firstOfAll(
      sets,
      sets.map((_, i) => firstMatches(plans[i], cap)),
      cap,
      shared && { upTo: shared.headUpTo },
    );
    let tiers: number[][] = sets.map(() => []);
    if (late()) partial = true;
    else
      tiers = firstOfAll(
        sets,
        sets.map((_, i) => firstMatches(plans[i], cap, true)),
        cap,
        shared && { upTo: shared.tierUpTo },
      );
    const pools = heads.map((h, i) => [...new Set([...h, ...tiers[i]])]);
    // Only the best of each set's pool can be among the collection's candidates.
    scored = sets.map((_, i) => best(scoreMatches(plans[i], scoring[i], pools[i]), candidates));
    rankedAmong = pools.reduce((n, p) => n + p.length, 0);
  }
  const rows = sets.flatMap((s, i) => s.scoredRows(scored[i]).map((r) => ({ ...r, set: s })));
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  rows.sort((a, b) => a.rank - b.rank || cmp(a.url, b.url) || cmp(a.digest, b.digest));
  rows.length = Math.min(rows.length, candidates);
  let near: WordResult['near'];
  if (plans[0]?.query.near.length) {
    const all = shared ?? own!;
    const idfs = plans[0].query.near.map((t) => idf(all.rows, all.hits[t] ?? sets.reduce((n, s) => n + s.scoring.phraseRows(t), 0)));
    const rare = rarity(idfs, all.rows);
    near = { rarity: rare, ask: (some) => nearCandidates(some, sets, plans, scoring, rare) };
  }
  return {
    total,
    rows,
    ...(counted > cap ? { capped: true } : {}),
    ...(rankedAmong !== undefined ? { rankedAmong } : {}),
    ...(partial ? { partial } : {}),
    ...(near ? { near } : {}),
  };
}

/** Candidates in the collection's order: BM25 (lower first), then URL, then digest. */
export function compareCandidates(a: { rank: number; url: string; digest: string }, b: { rank: number; url: string; digest: string }): number {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return a.rank - b.rank || cmp(a.url, b.url) || cmp(a.digest, b.digest);
}

/**
 * The candidates' proximity (proximity.ts), asked of each set for its own (a hundred rows
 * looked up by number, not the whole match), times the query's rarity `rare`.
 */
function nearCandidates(rows: (Row & { set: OpenSet })[], sets: OpenSet[], plans: WordPlan[], scoring: Scoring[], rare: number): void {
  for (const [i, s] of sets.entries()) {
    const mine = rows.filter((r) => r.set === s);
    if (mine.length === 0) continue;
    const near = nearMatches(
      plans[i],
      scoring[i],
      mine.map((r) => r.id),
    );
    for (const r of mine) {
      const n = near.get(r.id);
      r.near = (n?.near ?? 0) * rare;
      if (n?.passage !== undefined) r.passage = n.passage;
    }
  }
}
