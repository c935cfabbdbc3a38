/**
 * A word query planned on one index set (OpenSet.wordPlan: the MATCH texts, the conditions,
 * the statements and scoring of its set), and what word-search.ts asks of its matches: counted
 * up to a cap, the first in key order, the best by BM25 with the collection's statistics.
 */
import type Database from 'better-sqlite3';
import type { QueryPlan } from './query-plan.js';
import type { FtsPhrase } from './fts-phrases.js';
import type { Scoring } from './bm25.js';
import { best, type Scored, type SetScoring } from './set-scoring.js';
import type { Near } from './proximity.js';
import { scoringWithoutAnchors } from './anchorless.js';

/** What a plan runs on: its set's statements (prepared once) and its side of the scoring. */
export interface PlanSet {
  stmt(sql: string): Database.Statement;
  readonly scoring: SetScoring;
}

/** A word query on one set (OpenSet.wordPlan). */
export interface WordPlan {
  /** The set it runs on. */
  set: PlanSet;
  /** The query, compiled once for every set. */
  query: QueryPlan;
  /** The MATCH text scored, and its phrases. */
  match: string;
  phrases: FtsPhrase[];
  /** The MATCH text that finds the matches (match, narrowed by a site's host phrase where that helps). */
  narrow: string;
  /** narrow, its words restricted to the short fields (title, anchors, URL words): the tier's matches; undefined for no words. */
  tier: string | undefined;
  /** FROM, WHERE (the MATCH first) and the parameters after the MATCH text. */
  from: string;
  cond: string;
  params: unknown[];
  /** Whether this plan's documents are matched without their anchors (anchorless.ts): scored with them weighed 0. */
  bare?: boolean;
  /**
   * Where the view matches some documents without their anchors: the plan over those (`bare`),
   * this one being over the others; what is asked of the plan is asked of both and joined.
   */
  bareRows?: WordPlan & { among(ids: readonly number[]): Set<number> };
}

/** The scoring of a plan's documents: without the anchors where they are matched without them. */
function scoringOf(p: WordPlan, s: Scoring): Scoring {
  return p.bare ? scoringWithoutAnchors(s) : s;
}

/** Two lists of document numbers in order, merged in order: the first `n`. */
function mergeInOrder(a: readonly number[], b: readonly number[], n: number): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (out.length < n && (i < a.length || j < b.length)) out.push(j >= b.length || (i < a.length && a[i] < b[j]) ? a[i++] : b[j++]);
  return out;
}

/** Matches of the plan, counted up to `n` (in C: fetching them costs a row each). */
export function countMatches(p: WordPlan, n: number): number {
  const c = (p.set.stmt(`SELECT count(*) AS n FROM (SELECT 1 FROM ${p.from} WHERE ${p.cond} LIMIT ${n})`).get(p.narrow, ...p.params) as { n: number }).n;
  return p.bareRows && c < n ? c + countMatches(p.bareRows, n - c) : c;
}

/** The first `n` matches in document order (key order: the index job wrote them sorted); `tier`: of the title/anchor/URL tier only. */
export function firstMatches(p: WordPlan, n: number, tier = false): number[] {
  const m = tier ? p.tier : p.narrow;
  if (!m) return [];
  const ids = p.set
    .stmt(`SELECT fts.rowid AS id FROM ${p.from} WHERE ${p.cond} LIMIT ${n}`)
    .pluck()
    .all(m, ...p.params) as number[];
  return p.bareRows ? mergeInOrder(ids, firstMatches(p.bareRows, n, tier), n) : ids;
}

/**
 * The `n` best matches by BM25 with the collection's statistics, ties in document order:
 * key order (the index job and merge write documents sorted by `URL digest`), so a set's
 * best `n` hold its share of the collection's best `n` by score, URL and digest.
 */
export function rankTop(p: WordPlan, s: Scoring, n: number): Scored[] {
  const top = rankPlan(p, scoringOf(p, s), n);
  return p.bareRows ? best([...top, ...rankTop(p.bareRows, s, n)], n) : top;
}

function rankPlan(p: WordPlan, s: Scoring, n: number): Scored[] {
  // A site that narrows the matches (fewer than the cap: rankTop is for an uncapped query):
  // every one scored, where FTS5's rank path would score every match of the words on all
  // sites first; the same without the extension (its twin scores rows it is given).
  if (p.narrow !== p.match || !p.set.scoring.native) return best(scoreMatches(p, s, firstMatches(p, Number.MAX_SAFE_INTEGER)), n);
  // `ORDER BY rank, rowid` is SQLite's top-n sort over FTS5's scores (0.6x the time of
  // FTS5's own `ORDER BY rank` at a million documents), with the ties in document order.
  const sql =
    p.from === 'fts'
      ? `SELECT rowid AS id, rank AS r FROM fts WHERE ${p.cond} AND rank MATCH ? ORDER BY rank, rowid LIMIT ?`
      : `SELECT docs.id AS id, fts.rank AS r FROM ${p.from} WHERE ${p.cond} AND fts.rank MATCH ? ORDER BY fts.rank, docs.id LIMIT ?`;
  const rank = p.set.scoring.rankFunction(s);
  return (p.from === 'fts' ? p.set.stmt(sql).all(p.match, rank, n) : p.set.stmt(sql).all(p.match, ...p.params, rank, n)) as Scored[];
}

/** Matches `ids` of the plan scored by BM25 with the collection's statistics. */
export function scoreMatches(p: WordPlan, s: Scoring, ids: readonly number[]): Scored[] {
  if (!p.bareRows || ids.length === 0) return p.set.scoring.score(p.match, p.phrases, scoringOf(p, s), ids);
  // Each document by the part that matched it: the bare part's are scored without their anchors.
  const bare = p.bareRows.among(ids);
  const own = ids.filter((id) => !bare.has(id));
  const theirs = ids.filter((id) => bare.has(id));
  return [...p.set.scoring.score(p.match, p.phrases, s, own), ...scoreMatches(p.bareRows, s, theirs)];
}

/** The proximity of matches `ids` of the plan (proximity.ts): each by the part that matched it, without its anchors where the view so matches it. */
export function nearMatches(p: WordPlan, s: Scoring, ids: readonly number[]): Map<number, Near> {
  if (!p.bareRows || ids.length === 0) return p.set.scoring.near(p.query.near, scoringOf(p, s).weights, ids);
  const bare = p.bareRows.among(ids);
  const own = p.set.scoring.near(
    p.query.near,
    s.weights,
    ids.filter((id) => !bare.has(id)),
  );
  for (const [id, n] of nearMatches(
    p.bareRows,
    s,
    ids.filter((id) => bare.has(id)),
  ))
    own.set(id, n);
  return own;
}
