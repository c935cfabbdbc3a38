/**
 * One index set's side of the collection-wide BM25 (bm25.ts): what it adds to the
 * collection's statistics (its served documents and tokens, each phrase's documents, counted
 * once a phrase: a set never changes while open), and its matches scored with the
 * collection's statistics, by nwax_bm25 where the extension loads (native/fts-rank.c) or by
 * its JavaScript twin (js-bm25.ts).
 */
import type Database from 'better-sqlite3';
import type { Db } from '../index/schema.js';
import { rankArgs, type Scoring, type SetStats } from './bm25.js';
import type { FtsPhrase } from './fts-phrases.js';
import { columnTokens, columnTotals, rowLengths, tableTotals } from './fts-stats.js';
import type { Anchorless } from './access-view.js';
import { ANCHORS_COLUMN, matchWithoutAnchors } from './anchorless.js';
import { scoreRows, type TableCounts } from './js-bm25.js';
import { rankExtension } from '../native/addon.js';
import { FTS_COLUMNS } from '../index/schema.js';
import { nearSteps } from './js-near.js';
import { NEAR_COLUMNS, nearness, PASSAGE_COLUMN, step, type Near } from './proximity.js';

/** A document's BM25 score (negative, lower is better, as FTS5's). */
export interface Scored {
  id: number;
  r: number;
}

/**
 * The best `n` by score (lower first), ties in document order: key order, so the best `n` of
 * a set hold its share of the collection's best `n` by score, URL and digest (word-search.ts).
 */
export function best(scored: Scored[], n: number): Scored[] {
  scored.sort((x, y) => x.r - y.r || x.id - y.id);
  scored.length = Math.min(n, scored.length);
  return scored;
}

/** Phrase counts kept per set. */
const PHRASE_COUNTS = 4096;

function remember(map: Map<string, number>, key: string, value: number): void {
  map.set(key, value);
  if (map.size > PHRASE_COUNTS) map.delete(map.keys().next().value!);
}

let loadFailureSaid = false;

/** Loads nwax_bm25 into a connection where it is built and wanted; a failure leaves the JavaScript twin (said once). */
function loadRank(db: Db): boolean {
  const ext = rankExtension();
  if (!ext) return false;
  try {
    // better-sqlite3 takes the entry point as a second argument (its types know only the path).
    (db.loadExtension as (path: string, entry: string) => unknown).call(db, ext, 'sqlite3_nwaxrank_init');
    return true;
  } catch (err) {
    if (!loadFailureSaid) process.stderr.write(`nwax: the ranking extension did not load (${(err as Error).message}); ranking in JavaScript\n`);
    loadFailureSaid = true;
    return false;
  }
}

/**
 * The documents a view withholds whole: its key, its temporary table (`id`), and their ids; and
 * those it matches without their anchors (none of them withheld or deleted), if any.
 */
export interface HiddenDocs {
  key: string;
  table: string;
  ids: () => readonly number[];
  anchorless?: Anchorless;
}

export class SetScoring {
  /** Whether nwax_bm25 is loaded (else its JavaScript twin scores). */
  readonly native: boolean;
  /** FTS5's own counts for this table (every row): what its bm25() uses, and the JavaScript twin inverts. */
  private readonly table: TableCounts;
  /** Phrase counts of every served document (dedup's deleted ones out). */
  private readonly phraseCounts = new Map<string, number>();
  /** The statistics and phrase counts of each view (by its key): what its class may see. */
  private readonly byView = new Map<string, { served?: SetStats; phraseCounts: Map<string, number>; hidden?: HiddenDocs }>();

  /**
   * `weights`: BM25's column weights; `deletedIds`: documents dedup marked deleted (out of the
   * statistics); `hidden`: the documents the current class may not see (the access view's, with
   * its key), out of its statistics too, so a score reveals nothing of them.
   */
  constructor(
    private readonly db: Db,
    private readonly stmt: (sql: string) => Database.Statement,
    readonly weights: number[],
    private readonly deletedIds: readonly number[],
    private readonly hidden: () => HiddenDocs | undefined = () => undefined,
  ) {
    this.native = loadRank(db);
    const rawHits = new Map<string, number>();
    this.table = {
      ...tableTotals(db),
      hits: (text) => {
        let n = rawHits.get(text);
        if (n === undefined) remember(rawHits, text, (n = (stmt('SELECT count(*) AS n FROM fts WHERE fts MATCH ?').get(text) as { n: number }).n));
        return n;
      },
    };
  }

  /** The current view's counts, made at its first use (once a rules generation). */
  private view() {
    const h = this.hidden();
    const key = h?.key ?? '';
    let v = this.byView.get(key);
    if (!v) {
      // A view of a rules generation gone is not asked again: only the latest few are kept.
      if (this.byView.size >= 8) this.byView.delete(this.byView.keys().next().value!);
      this.byView.set(key, (v = { phraseCounts: new Map(), hidden: h }));
    }
    return v;
  }

  /** What this set adds to the collection's statistics, for the current class: the rows it may see and their tokens. */
  get stats(): SetStats {
    const v = this.view();
    if (!v.served) {
      const out = [...this.deletedIds, ...(v.hidden?.ids() ?? [])];
      const outTokens = out.length ? [...rowLengths(this.db, out).values()].reduce((a, b) => a + b, 0) : 0;
      // The anchors of the documents matched without them are not counted either.
      const a = v.hidden?.anchorless;
      const anchors = a?.all
        ? (columnTotals(this.db)[ANCHORS_COLUMN] ?? 0) - columnTokens(this.db, out, ANCHORS_COLUMN)
        : a?.table
          ? columnTokens(this.db, this.db.prepare(`SELECT id FROM temp.${a.table}`).pluck().all() as number[], ANCHORS_COLUMN)
          : 0;
      v.served = { rows: this.table.rows - out.length, tokens: this.table.tokens - outTokens - anchors };
    }
    return v.served;
  }

  /** The served documents that hold a phrase (a phrase alone, as fts-phrases.ts writes it), every class's. */
  private servedRows(text: string): number {
    let n = this.phraseCounts.get(text);
    if (n === undefined) {
      n = this.table.hits(text);
      if (this.deletedIds.length)
        n -= (
          this.stmt('SELECT count(*) AS n FROM fts WHERE fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))').get(
            text,
            JSON.stringify(this.deletedIds),
          ) as { n: number }
        ).n;
      remember(this.phraseCounts, text, n);
    }
    return n;
  }

  /** The documents the current class may see that hold a phrase: the served ones less those its view withholds (their table, by key). */
  phraseRows(text: string): number {
    const v = this.view();
    if (!v.hidden) return this.servedRows(text);
    let n = v.phraseCounts.get(text);
    if (n === undefined) {
      const within = (m: string, table: string) =>
        (this.stmt(`SELECT count(*) AS n FROM fts WHERE fts MATCH ? AND +rowid IN (SELECT id FROM temp.${table})`).get(m) as { n: number }).n;
      const a = v.hidden.anchorless;
      const bare = matchWithoutAnchors(text, this.weights.length);
      // Every document matched without its anchors, or those of a table (none withheld or deleted):
      // those that hold the phrase only in their anchors are not counted.
      if (a?.all) n = this.servedRows(bare) - within(bare, v.hidden.table);
      else {
        n = this.servedRows(text) - within(text, v.hidden.table);
        if (a?.table) n -= within(text, a.table) - within(bare, a.table);
      }
      remember(v.phraseCounts, text, n);
    }
    return n;
  }

  /** FTS5's rank function for `ORDER BY rank` (native only): nwax_bm25 with the collection's statistics as literals. */
  rankFunction(s: Scoring): string {
    return `nwax_bm25(${rankArgs(s).map(String).join(', ')})`;
  }

  /**
   * The proximity of rows `ids` (which hold every phrase of `phrases`, the query's words in
   * FTS5's syntax) in the columns of NEAR_COLUMNS that `weights` does not weigh 0 (a document
   * matched without its anchors has no window in them), and where the text's window starts.
   */
  near(phrases: readonly string[], weights: readonly number[], ids: readonly number[]): Map<number, Near> {
    const out = new Map<number, Near>();
    if (ids.length === 0 || phrases.length < 2) return out;
    const use = weights.map((w, c) => (w !== 0 && (NEAR_COLUMNS as readonly string[]).includes(FTS_COLUMNS[c]) ? 1 : 0));
    if (!this.native) {
      const cols = use.flatMap((u, c) => (u ? [FTS_COLUMNS[c]] : []));
      for (const [id, k] of nearSteps(this.db, phrases, cols, ids)) out.set(id, { near: nearness(k) });
      return out;
    }
    const rows = this.stmt(
      `SELECT rowid AS id, nwax_near(fts, ${use.map(() => '?').join(', ')}, ?) AS n FROM fts WHERE fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
    )
      .raw()
      .all(...use, FTS_COLUMNS.indexOf(PASSAGE_COLUMN), phrases.join(' OR '), JSON.stringify(ids)) as [number, string][];
    for (const [id, n] of rows) {
      const [gap, start] = n.split(' ').map(Number);
      const near = nearness(step(gap));
      out.set(id, start >= 0 ? { near, passage: start } : { near });
    }
    return out;
  }

  /** Rows `ids`, which match `match` (of phrases `phrases`), scored with the collection's statistics. */
  score(match: string, phrases: readonly FtsPhrase[], s: Scoring, ids: readonly number[]): Scored[] {
    if (ids.length === 0) return [];
    if (!this.native) return scoreRows(this.db, phrases, s, ids, this.table);
    const args = rankArgs(s);
    // `+rowid` keeps FTS5 from taking the IN list as rowid lookups (one whole MATCH per value);
    // SQLite tests each match against the list, and the score runs only for the rows that pass.
    return this.stmt(
      `SELECT rowid AS id, nwax_bm25(fts, ${args.map(() => '?').join(', ')}) AS r FROM fts WHERE fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`,
    ).all(...args, match, JSON.stringify(ids)) as Scored[];
  }
}
