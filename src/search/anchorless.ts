/**
 * Matching and scoring without the anchor text: how a view leaves out the words that a page it
 * withholds gave, as anchor text, to the pages it links to (anchor-sources.ts finds those pages).
 * FTS5 keeps one row per document, its anchors in one column, so a row cannot lose some of its
 * anchors without being indexed again; such a document is matched, for that view, by every
 * column but its anchors (an FTS5 column filter) and scored with the anchors weighed 0, so
 * neither its matches nor its score nor the collection's counts hold a withheld page's words.
 */
import { FTS_COLUMNS } from '../index/schema.js';
import type { Scoring } from './bm25.js';

/** The anchors' place among the text index's columns (and BM25's weights). */
export const ANCHORS_COLUMN = FTS_COLUMNS.indexOf('anchors');

/** The MATCH text `m` limited to every column but the anchors, of a text index of `columns` columns (2: no years column). */
export function matchWithoutAnchors(m: string, columns: number): string {
  const cols = FTS_COLUMNS.slice(0, columns).filter((c) => c !== 'anchors');
  // A column filter on a group: FTS5 intersects it with any filter inside (title:, the tier's).
  return `{${cols.join(' ')}} : (${m})`;
}

/** The scoring with the anchors weighed 0: a document matched without them scores as if it had none. */
export function scoringWithoutAnchors(s: Scoring): Scoring {
  return { ...s, weights: s.weights.map((w, i) => (i === ANCHORS_COLUMN ? 0 : w)) };
}
