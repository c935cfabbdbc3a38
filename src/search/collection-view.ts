/**
 * The collection as one user class may see it: the only way to read a searcher (Searcher.view).
 * A view is bound to its class when it is made, so no caller can read the indexes without
 * having named whom it reads for, and none can forget to say it before a later call (there is
 * no `scope()` left to forget). Every answer that leaves the engine comes from a view: hits,
 * counts, the shard exchange's statistics and candidates, stored copies, exports, health counts
 * and suggestions. The public's view is `view()`; what the rules withhold from a class is never
 * handed to code holding that class's view (access-view.ts builds what each set withholds).
 */
import type { Row } from './types.js';
import type { LocalStats, SearchOptions, SearchResult, ShardCandidate, ShownCapture, StoredRef, VersionParse } from './types.js';

export interface CollectionView {
  /** The access rules' user class this view answers for (undefined: the public). */
  readonly user: string | undefined;
  search(query: string, opts?: SearchOptions): SearchResult;
  /**
   * This backend's share of a word query's statistics for its shard front (shards.ts), counted
   * over the documents this class may see; undefined for a query without words.
   */
  shardStats(query: string, cap: number, keys: boolean): LocalStats | undefined;
  /** This backend's word candidates scored with the collection's statistics (`opts.shared`). */
  shardCandidates(query: string, opts: SearchOptions): ShardCandidate[];
  /**
   * Where a document's stored copy is; the capture shown instead where the rules withhold the
   * version's own record but not all its captures; `blocked` where they block it (451);
   * undefined where there is none or they exclude it (404).
   */
  stored(set: string, doc: number): StoredRef | ShownCapture | 'blocked' | undefined;
  /**
   * A version's text, title and links (a comparison of versions); `blocked` where the rules
   * block it, undefined where there is none or they exclude it.
   */
  versionParse(set: string, doc: number): VersionParse | 'blocked' | undefined;
  /**
   * Up to `max` pages that link to `url` or show it (an image's pages), each with the title of a
   * version this class may see; pages it may not see are not named.
   */
  linkedFrom(url: string, max: number): { url: string; title: string }[];
  /** Every document this class may see, with its set's name (an export of the whole collection). */
  allDocuments(): Generator<Row & { setName: string }>;
  /** Every version this class may see that a query finds (no ranking, no cap: an export). */
  matchingDocuments(query: string): Generator<Row & { setName: string }>;
  /** A visible document's stored text as a JSON string's bytes; undefined where it is absent or withheld. */
  textJson(set: string, row: Pick<Row, 'id' | 'segment' | 'url' | 'digest'>): Buffer | undefined;
  /** The sets served, with the documents this class may see in each (/readyz, /metrics). */
  setCounts(): { name: string; documents: number }[];
  /** Documents this class may see, over every set (/healthz). */
  documents(): number;
  /** Site names and the titles of the best pages (by boost) this class may see, for suggestions. */
  suggestionSource(titles: number): Generator<{ text: string; kind: 'site' | 'title' }>;
}
