/**
 * The search engine's types, in one module: what a query asks (SearchOptions), what it answers
 * (SearchResult, Hit, Facets), what a shard front and its backends exchange (SharedStats,
 * LocalStats, ShardCandidate), and where a stored copy lies (StoredRef). The engine's files
 * and the service import them from here, so none imports another for its types alone.
 */
import type { Timeline } from './timeline.js';
import type { CaptureFields } from '../index/document.js';
import type { Snippet } from './snippet.js';
import type { BasisOf, RankingWeights, RerankBasis } from './ranking.js';

/** What hits per site count by (NutchWAX's `dedupField`). */
export type DedupField = 'site' | 'url' | 'digest';

export interface StoredRef {
  url: string;
  /** The capture's date (14 digits): with its URL, what a shard front's own rules decide on. */
  date: string;
  location: string;
  offset: number;
  clen: number;
  mime: string;
}

/** What a comparison of two versions reads of each (a view's versionParse). */
export interface VersionParse {
  url: string;
  digest: string;
  title: string;
  /** The text as the index read it (white space squashed). */
  text: string;
  /** The outlinks' URLs in page order; undefined where they could not be read. */
  links: string[] | undefined;
}

/**
 * A version whose own record (its first capture) the view withholds while it shows a later
 * capture: that capture, which the index does not locate (the capture index does: replay).
 */
export interface ShownCapture {
  shown: true;
  url: string;
  date: string;
  collection: string;
}

export interface Hit extends CaptureFields {
  url: string;
  digest: string;
  title: string;
  /** Every capture date of this version, ascending. */
  dates: string[];
  host: string;
  /** The document's language ('' when unknown). */
  lang: string;
  score: number;
  snippet: Snippet;
  /** Index set and document number. */
  set: string;
  doc: number;
  /** Hits of this site left out by hits-per-site. */
  moreFromSite: number;
}

/** Facet values with their counts, most first. */
export interface Facets {
  site: [string, number][];
  type: [string, number][];
  year: [string, number][];
  /** Languages (documents of no known language are not counted). */
  lang: [string, number][];
  /** The matches over time (timeline.ts). */
  timeline?: Timeline;
}

export interface SearchOptions {
  start?: number;
  hits?: number;
  /** At most this many hits per host; 0 = no limit. */
  hitsPerSite?: number;
  /** Make snippets (default true); without, hits carry an empty one. */
  snippets?: boolean;
  /** Count the matches by site, type and year, and over time (every match, so it costs a pass over them). */
  facets?: boolean;
  /** With the facets, the collection's versions in each period of the timeline (a query's share of them). */
  share?: boolean;
  /** Order of the hits: by score (default), by first capture date, or by URL (NutchWAX's `sort`). */
  sort?: 'score' | 'date' | 'url';
  /** Reverse the order (`reverse`): newest or last first. */
  reverse?: boolean;
  /** What hitsPerSite counts by (NutchWAX's `dedupField`): the site (default), the URL, or the digest. */
  dedupField?: DedupField;
  /**
   * hitsPerSite as a default rather than asked for: then it applies only where the hits come
   * from more than one site, and not to a site: query (a one-site collection lists its pages).
   */
  hitsPerSiteDefault?: boolean;
  /** Weights of the ranking's features (ranking.ts); default nwax's. */
  ranking?: RankingWeights;
  /** Answer from the cache of recent queries where it can (default true; benchmarks say false). */
  cache?: boolean;
  /**
   * Rank every match exactly (default false: past `maxScored` matches in the collection, the
   * ranking scores the likeliest of them; docs/decisions.md says how close that stays).
   */
  exact?: boolean;
  /** Matches counted and ranked exactly over the collection (`nwax.search.max.scored`, default 10,000). */
  maxScored?: number;
  /**
   * Milliseconds a query may spend finding candidates (`nwax.search.time.budget`, default 1000;
   * 0 = none): past it the query ranks what it found and says the answer is partial.
   */
  budgetMs?: number;
  /** From a shard front: the collection's statistics, instead of this searcher's own (word-search.ts). */
  shared?: SharedStats;
  /**
   * From a shard front: the last of the collection's candidates (BM25, URL, digest) and their
   * basis for the re-ranking, so a backend re-ranks its share of them as the whole would.
   */
  cut?: { last: [number, string, string]; basis: RerankBasis };
}

/** A candidate as a shard front cuts and re-ranks them: its BM25, its key, and its title's length (ranking.ts). */
export interface ShardCandidate extends BasisOf {
  url: string;
  digest: string;
}

export interface SearchResult {
  query: string;
  /** Versions matched (a lower bound when totalExact is false: matches are counted up to a cap). */
  total: number;
  /** false when the total is a lower bound. */
  totalExact?: boolean;
  /** Present when the ranking was capped: the matches it scored (over all index sets). */
  rankedAmong?: number;
  /** true when the time budget ran out: the hits are the best of the matches found before it. */
  partial?: boolean;
  start: number;
  hits: Hit[];
  facets?: Facets;
  elapsedMs: number;
  /** The index generation that answered (Searcher.generation). */
  generation?: number;
}

/** What a reload found: whether the sets changed, and what could not be opened. */
export interface ReloadResult {
  changed: boolean;
  generation: number;
  /** Sets (or the directory) that could not be opened; the old ones serve on. */
  errors: string[];
}

/**
 * What a shard front tells its backends about the whole collection (shards.ts), so that each
 * scores, caps and cuts as one index holding every shard would.
 */
export interface SharedStats {
  /** The collection's served documents and their tokens. */
  rows: number;
  tokens: number;
  /** The collection's documents holding each phrase (by its text, fts-phrases.ts). */
  hits: Record<string, number>;
  /** The collection's matches, counted up to the cap and one more. */
  counted: number;
  /** The cap (`nwax.search.max.scored`) and the candidates wanted, as the front counts them. */
  cap: number;
  candidates: number;
  /** Capped: the key of the last of the collection's first `cap` matches, and of its tier's (none: every one). */
  headUpTo?: string;
  tierUpTo?: string;
}

/** What this searcher's sets hold of a query's statistics (a backend's answer to its front). */
export interface LocalStats {
  rows: number;
  tokens: number;
  hits: Record<string, number>;
  /** Matches counted up to `cap` and one more. */
  counted: number;
  /** With `keys`: the keys of the first `cap` matches in key order, and of the tier's. */
  head?: string[];
  tier?: string[];
}

/** What one index set gives of a query (open-set.ts). */
/** An order other than score: every match sorted by a stored field. */
export interface FieldOrder {
  field: 'date' | 'url';
  desc: boolean;
}

/** A document as an index set reads it for a hit. */
export interface Row extends CaptureFields {
  id: number;
  url: string;
  digest: string;
  title: string;
  dates: string;
  host: string;
  rank: number;
  inlinks: number;
  /** Undefined where the row was read without it (OpenSet.textAndLang gives it). */
  lang?: string;
  /** How closely it holds the query's words together (proximity.ts), for a word query's candidates. */
  near?: number;
  /** Where its text's closest window of the query's words starts (tokens), where known: the snippet's passage. */
  passage?: number;
}

/**
 * Matches of a word query counted exactly and ranked exactly in the collection (the default of
 * `nwax.search.max.scored`); beyond, the total is a lower bound and the ranking capped.
 */
export const MAX_SCORED = 10_000;

/** How one query's ranking may spend its work. */
export interface RankLimits {
  /** Rank every match exactly, however many (default false: capped past `maxScored`). */
  exact?: boolean;
  /** Matches counted and ranked exactly before the ranking is capped (default MAX_SCORED). */
  maxScored?: number;
  /**
   * performance.now() past which the query takes no further step: it scores the candidates it
   * has (the answer is then partial). Looked at between steps, each bounded by `maxScored`
   * matches but for counting under a filter few matches pass.
   */
  deadline?: number;
}

export interface SetResult {
  total: number;
  rows: Row[];
  /** The total is a lower bound (more than `maxScored` matches). */
  capped?: boolean;
  /** The ranking scored this many matches, not all of them. */
  rankedAmong?: number;
  /** The time budget ran out: the candidates are those found before it did. */
  partial?: boolean;
}
