/**
 * One index set opened for searching: its main index read-only, its dates index attached and
 * joined by document number, statements prepared once. Queries with words let FTS5 rank
 * through its own ORDER BY rank path and re-rank the candidates by boost; filters, the
 * deleted mark and orders by a stored field go through the documents table.
 */
import type Database from 'better-sqlite3';
import { openIndex, type Db } from '../index/schema.js';
import type { IndexSet } from './index-sets.js';
import { ftsExclusions, ftsMatch, type Query } from './query.js';
import type { StoredRef } from './stored.js';
import type { Facets } from './searcher.js';
import { NwaxError } from '../util/errors.js';

/** An order other than score: every match sorted by a stored field. */
export interface FieldOrder {
  field: 'date' | 'url';
  desc: boolean;
}

export interface Row {
  id: number; url: string; digest: string; title: string; dates: string; mime: string; status: number | null; length: number;
  collection: string; segment: string; file: string; location: string; offset: number; clen: number; host: string; rank: number;
  inlinks: number;
  lang: string;
}

/** `P` when the range `from-to` is P000... to P999... (one whole year, month, day...), else undefined. */
function periodPrefix(range: string): string | undefined {
  const [from, to] = range.split('-');
  let i = 0;
  while (i < from.length && from[i] === to[i]) i++;
  return i > 0 && /^0*$/.test(from.slice(i)) && /^9*$/.test(to.slice(i)) ? from.slice(0, i) : undefined;
}

/** Matches of a word query counted exactly, per index set; beyond, the total is a lower bound. */
export const COUNT_CAP = 10_000;

/** BM25 with weights for title, content, anchors, URL words, host. */
const RANK = 'bm25(4.0, 1.0, 2.0, 1.0, 0.5)';

export class OpenSet {
  readonly db: Db;
  /** Whether dedup marked documents deleted (queries then go through the documents table). */
  private readonly hasDeleted: boolean;
  /** The document count the index records (info.doc_count). */
  private readonly docCount: number;
  private documents: number | undefined;
  constructor(readonly set: IndexSet) {
    const main = openIndex(set.main, 'main');
    this.db = main.db;
    this.docCount = main.info.docCount;
    if (set.dates) {
      const dates = openIndex(set.dates, 'dates');
      dates.db.close();
      if (dates.info.docCount !== main.info.docCount) {
        this.db.close();
        throw new NwaxError('NWAX_FORMAT', `index set ${set.name}: ${set.main} holds ${main.info.docCount} documents but ${set.dates} ${dates.info.docCount}; parallel indexes must agree (rebuild the dates with add-dates)`);
      }
      this.db.prepare('ATTACH DATABASE ? AS d').run(set.dates);
    }
    this.hasDeleted = (this.db.prepare('SELECT EXISTS(SELECT 1 FROM docs WHERE deleted = 1) AS x').get() as { x: number }).x === 1;
    this.db.function('nwax_dates_in', { deterministic: true }, (dates: unknown, from: unknown, to: unknown) => {
      for (const d of String(dates).split(' ')) if (d >= (from as string) && d <= (to as string)) return 1;
      return 0;
    });
  }

  private datesExpr(): string {
    return this.set.dates ? "docs.dates || ' ' || coalesce(dd.dates, '')" : 'docs.dates';
  }

  /** WHERE clauses and parameters for the query's fields. */
  private filters(q: Query): { where: string[]; params: unknown[] } {
    const where: string[] = ['docs.deleted = 0'];
    const params: unknown[] = [];
    const anyOf = (items: string[], one: (v: string) => string, values: (v: string) => unknown[]) => {
      if (items.length === 0) return;
      where.push(`(${items.map(one).join(' OR ')})`);
      for (const v of items) params.push(...values(v));
    };
    anyOf(q.site, () => '(docs.host = ? OR docs.host LIKE ?)', (s) => [s, `%.${s}`]);
    anyOf(q.type, (t) => (t.includes('/') ? 'docs.mime = ?' : '(docs.mime LIKE ? OR docs.mime LIKE ?)'), (t) => (t.includes('/') ? [t] : [`${t}/%`, `%/${t}`]));
    anyOf(q.collection, () => 'docs.collection = ?', (c) => [c]);
    anyOf(q.lang, () => 'docs.lang = ?', (l) => [l]);
    anyOf(q.url, () => 'docs.url = ?', (u) => {
      try {
        return [new URL(u).href];
      } catch {
        return [u];
      }
    });
    // A whole period (date:2016, date:200710) is a prefix of its dates: a native string test;
    // any other range goes through the JavaScript function.
    anyOf(q.date.map((r) => `${r.from}-${r.to}`), (r) => (periodPrefix(r) ? `instr(' ' || ${this.datesExpr()}, ?) > 0` : `nwax_dates_in(${this.datesExpr()}, ?, ?)`),
      (r) => (periodPrefix(r) ? [` ${periodPrefix(r)}`] : r.split('-')));
    return { where, params };
  }

  private readonly statements = new Map<string, Database.Statement>();

  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) this.statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  /** Counts of the matching documents by host, type and year of first capture (the top 10 of each). */
  facets(q: Query): Facets {
    const match = ftsMatch(q);
    const { where, params } = this.filters(q);
    const join = this.set.dates ? 'LEFT JOIN d.dates dd ON dd.id = docs.id' : '';
    let from = `docs ${join}`;
    const all: unknown[] = [];
    if (match) {
      from = `fts JOIN docs ON docs.id = fts.rowid ${join}`;
      where.unshift('fts MATCH ?');
      all.push(match);
    } else {
      const excl = ftsExclusions(q);
      if (excl) {
        where.push('docs.id NOT IN (SELECT rowid FROM fts WHERE fts MATCH ?)');
        params.push(excl);
      }
    }
    all.push(...params);
    const count = (expr: string, also = '') => (this.stmt(`SELECT ${expr} AS v, count(*) AS n FROM ${from} WHERE ${where.join(' AND ')}${also} GROUP BY v ORDER BY n DESC, v LIMIT 10`).all(...all) as { v: string; n: number }[])
      .map((r): [string, number] => [String(r.v), r.n]);
    // Documents of no known language take no place among the ten languages shown.
    return { site: count('docs.host'), type: count('docs.mime'), year: count('substr(docs.date, 1, 4)'), lang: count('docs.lang', " AND docs.lang != ''") };
  }

  search(q: Query, limit: number, order?: FieldOrder): { total: number; rows: Row[]; capped?: boolean } {
    const match = ftsMatch(q);
    const { where, params } = this.filters(q);
    const join = this.set.dates ? 'LEFT JOIN d.dates dd ON dd.id = docs.id' : '';
    const cols = `docs.id, docs.url, docs.digest, docs.title, ${this.datesExpr()} AS dates, docs.mime, docs.status, docs.length, docs.collection,
      docs.segment, docs.file, docs.location, docs.offset, docs.clen, docs.host, docs.boost, docs.inlinks, docs.lang`;
    if (order) {
      // Every match in the order of a stored field (FTS5's rank does not apply).
      const from = match ? `fts JOIN docs ON docs.id = fts.rowid ${join}` : `docs ${join}`;
      const all = match ? [match, ...params] : [...params];
      if (match) where.unshift('fts MATCH ?');
      const excl = match ? undefined : ftsExclusions(q);
      if (excl) {
        where.push('docs.id NOT IN (SELECT rowid FROM fts WHERE fts MATCH ?)');
        all.push(excl);
      }
      const cond = `WHERE ${where.join(' AND ')}`;
      const dir = order.desc ? 'DESC' : 'ASC';
      const total = (this.stmt(`SELECT count(*) AS n FROM ${from} ${cond}`).get(...all) as { n: number }).n;
      const rows = this.stmt(`SELECT ${cols}, 0 AS rank FROM ${from} ${cond} ORDER BY docs.${order.field} ${dir}, docs.url ${dir}, docs.digest LIMIT ?`).all(...all, limit) as Row[];
      return { total, rows };
    }
    if (!match) {
      // Fields only: every document that passes, best boost first.
      const excl = ftsExclusions(q);
      if (excl) {
        where.push('docs.id NOT IN (SELECT rowid FROM fts WHERE fts MATCH ?)');
        params.push(excl);
      }
      const cond = `WHERE ${where.join(' AND ')}`;
      const total = (this.stmt(`SELECT count(*) AS n FROM docs ${join} ${cond}`).get(...params) as { n: number }).n;
      const rows = this.stmt(`SELECT ${cols}, -docs.boost AS rank FROM docs ${join} ${cond} ORDER BY rank, docs.url, docs.date LIMIT ?`).all(...params, limit) as Row[];
      return { total, rows };
    }
    // Words: FTS5 ranks (BM25 with the field weights, through its own ORDER BY rank path) and
    // gives the best candidates, which the searcher re-ranks with bounded features (ranking.ts)
    // over all sets together. The filters and the deleted mark need the documents table;
    // without them FTS5 answers alone.
    const candidates = Math.max(limit * 3, 100);
    const plain = where.length === 1 && !this.hasDeleted;
    let total: number;
    let ids: { id: number; r: number }[];
    // Matches are counted up to a cap: past it the total is "more than" (counting every match of
    // a common word was half the work of a query at a million documents).
    const counted = `LIMIT ${COUNT_CAP + 1}`;
    if (plain) {
      total = (this.stmt(`SELECT count(*) AS n FROM (SELECT 1 FROM fts WHERE fts MATCH ? ${counted})`).get(match) as { n: number }).n;
      ids = this.stmt(`SELECT rowid AS id, rank AS r FROM fts WHERE fts MATCH ? AND rank MATCH '${RANK}' ORDER BY rank LIMIT ?`).all(match, candidates) as { id: number; r: number }[];
    } else {
      const from = `fts JOIN docs ON docs.id = fts.rowid ${join} WHERE fts MATCH ? AND ${where.join(' AND ')}`;
      total = (this.stmt(`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} ${counted})`).get(match, ...params) as { n: number }).n;
      ids = this.stmt(`SELECT docs.id AS id, fts.rank AS r FROM ${from} AND fts.rank MATCH '${RANK}' ORDER BY fts.rank LIMIT ?`).all(match, ...params, candidates) as { id: number; r: number }[];
    }
    const capped = total > COUNT_CAP;
    if (capped) total = COUNT_CAP;
    if (ids.length === 0) return { total, rows: [], capped };
    const byId = new Map(ids.map((x) => [x.id, x.r]));
    const docs = this.stmt(`SELECT ${cols} FROM docs ${join} WHERE docs.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids.map((x) => x.id))) as Row[];
    for (const d of docs) d.rank = byId.get(d.id)!;
    return { total, rows: docs, capped };
  }

  hosts(): string[] {
    return (this.stmt("SELECT DISTINCT host FROM docs WHERE host != '' AND deleted = 0").all() as { host: string }[]).map((r) => r.host);
  }

  bestTitles(n: number): string[] {
    return (this.stmt("SELECT title FROM docs WHERE title != '' AND deleted = 0 ORDER BY boost DESC, id LIMIT ?").all(n) as { title: string }[]).map((r) => r.title);
  }

  /**
   * Documents served (not marked deleted by dedup). Counted once, when the set opens: an open set
   * never changes (an update is a new file, opened as a new set), so /healthz and /metrics read
   * a number, not a scan of the documents. Without deletions it is the count the index records.
   */
  get count(): number {
    this.documents ??= this.hasDeleted
      ? (this.stmt('SELECT count(*) AS n FROM docs WHERE deleted = 0').get() as { n: number }).n
      : this.docCount;
    return this.documents;
  }

  ref(id: number): StoredRef | undefined {
    return this.stmt('SELECT url, location, offset, clen, mime FROM docs WHERE id = ? AND deleted = 0').get(id) as StoredRef | undefined;
  }

  /** The first characters of the stored text of a document (the ranking's exact feature). */
  head(id: number, chars = 1000): string {
    return (this.stmt('SELECT substr(text, 1, ?) AS t FROM docs WHERE id = ?').get(chars, id) as { t: string | null } | undefined)?.t ?? '';
  }

  /** The stored text of a document (for its snippet: only the hits shown need it). */
  text(id: number): string {
    return (this.stmt('SELECT text FROM docs WHERE id = ?').get(id) as { text: string | null } | undefined)?.text ?? '';
  }

  close(): void {
    this.db.close();
  }
}

