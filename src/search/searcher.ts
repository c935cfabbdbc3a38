/**
 * The searcher: a query over every index set under its directory. Each set's main index is
 * opened read-only with its dates index attached and joined by document number; the sets are
 * queried one after another for their best candidates (BM25 x boost), the candidates merged by
 * score, and hits per site collapsed *after* the merge, so that a site never shows more than N
 * hits however many partitions hold it. A date filter matches a version when any of its
 * capture dates is in range. Totals are summed over the sets.
 */
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { openIndex, type Db } from '../index/schema.js';
import { findIndexSets, type IndexSet } from './index-sets.js';
import { ftsExclusions, ftsMatch, parseQuery, type Query } from './query.js';
import { snippetOf, type Snippet } from './snippet.js';
import type { StoredRef } from './stored.js';
import { NwaxError } from '../util/errors.js';

export interface Hit {
  url: string;
  digest: string;
  title: string;
  /** Every capture date of this version, ascending. */
  dates: string[];
  mime: string;
  status: number | null;
  length: number;
  collection: string;
  segment: string;
  file: string;
  location: string;
  offset: number;
  clen: number;
  host: string;
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
}

export interface SearchOptions {
  start?: number;
  hits?: number;
  /** At most this many hits per host; 0 = no limit. */
  hitsPerSite?: number;
  /** Make snippets (default true); without, hits carry an empty one. */
  snippets?: boolean;
  /** Count the matches by site, type and year (every match, so it costs a pass over them). */
  facets?: boolean;
  /** Order of the hits: by score (default), by first capture date, or by URL (NutchWAX's `sort`). */
  sort?: 'score' | 'date' | 'url';
  /** Reverse the order (`reverse`): newest or last first. */
  reverse?: boolean;
  /** What hitsPerSite counts by (NutchWAX's `dedupField`): the site (default), the URL, or the digest. */
  dedupField?: 'site' | 'url' | 'digest';
}

/** An order other than score: every match sorted by a stored field. */
interface FieldOrder {
  field: 'date' | 'url';
  desc: boolean;
}

export interface SearchResult {
  query: string;
  total: number;
  start: number;
  hits: Hit[];
  facets?: Facets;
  elapsedMs: number;
}

interface Row {
  id: number; url: string; digest: string; title: string; dates: string; mime: string; status: number | null; length: number;
  collection: string; segment: string; file: string; location: string; offset: number; clen: number; host: string; rank: number;
}

/** BM25 with weights for title, content, anchors, URL words, host. */
const RANK = 'bm25(4.0, 1.0, 2.0, 1.0, 0.5)';

class OpenSet {
  readonly db: Db;
  /** Whether dedup marked documents deleted (queries then go through the documents table). */
  private readonly hasDeleted: boolean;
  constructor(readonly set: IndexSet) {
    const main = openIndex(set.main, 'main');
    this.db = main.db;
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
    anyOf(q.url, () => 'docs.url = ?', (u) => {
      try {
        return [new URL(u).href];
      } catch {
        return [u];
      }
    });
    anyOf(q.date.map((r) => `${r.from}-${r.to}`), () => `nwax_dates_in(${this.datesExpr()}, ?, ?)`, (r) => r.split('-'));
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
    const count = (expr: string) => (this.stmt(`SELECT ${expr} AS v, count(*) AS n FROM ${from} WHERE ${where.join(' AND ')} GROUP BY v ORDER BY n DESC, v LIMIT 10`).all(...all) as { v: string; n: number }[])
      .map((r): [string, number] => [String(r.v), r.n]);
    return { site: count('docs.host'), type: count('docs.mime'), year: count('substr(docs.date, 1, 4)') };
  }

  search(q: Query, limit: number, order?: FieldOrder): { total: number; rows: Row[] } {
    const match = ftsMatch(q);
    const { where, params } = this.filters(q);
    const join = this.set.dates ? 'LEFT JOIN d.dates dd ON dd.id = docs.id' : '';
    const cols = `docs.id, docs.url, docs.digest, docs.title, ${this.datesExpr()} AS dates, docs.mime, docs.status, docs.length, docs.collection,
      docs.segment, docs.file, docs.location, docs.offset, docs.clen, docs.host, docs.boost`;
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
    // gives the best candidates, which the boost (ln(e + inlinks) x score) then re-ranks. The
    // filters and the deleted mark need the documents table; without them FTS5 answers alone.
    const candidates = limit * 3;
    const plain = where.length === 1 && !this.hasDeleted;
    let total: number;
    let ids: { id: number; r: number }[];
    if (plain) {
      total = (this.stmt('SELECT count(*) AS n FROM fts WHERE fts MATCH ?').get(match) as { n: number }).n;
      ids = this.stmt(`SELECT rowid AS id, rank AS r FROM fts WHERE fts MATCH ? AND rank MATCH '${RANK}' ORDER BY rank LIMIT ?`).all(match, candidates) as { id: number; r: number }[];
    } else {
      const from = `fts JOIN docs ON docs.id = fts.rowid ${join} WHERE fts MATCH ? AND ${where.join(' AND ')}`;
      total = (this.stmt(`SELECT count(*) AS n FROM ${from}`).get(match, ...params) as { n: number }).n;
      ids = this.stmt(`SELECT docs.id AS id, fts.rank AS r FROM ${from} AND fts.rank MATCH '${RANK}' ORDER BY fts.rank LIMIT ?`).all(match, ...params, candidates) as { id: number; r: number }[];
    }
    if (ids.length === 0) return { total, rows: [] };
    const byId = new Map(ids.map((x) => [x.id, x.r]));
    const docs = this.stmt(`SELECT ${cols} FROM docs ${join} WHERE docs.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids.map((x) => x.id))) as (Row & { boost: number })[];
    for (const d of docs) d.rank = byId.get(d.id)! * d.boost;
    docs.sort((a, b) => a.rank - b.rank || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    return { total, rows: docs.slice(0, limit) };
  }

  hosts(): string[] {
    return (this.stmt("SELECT DISTINCT host FROM docs WHERE host != '' AND deleted = 0").all() as { host: string }[]).map((r) => r.host);
  }

  bestTitles(n: number): string[] {
    return (this.stmt("SELECT title FROM docs WHERE title != '' AND deleted = 0 ORDER BY boost DESC, id LIMIT ?").all(n) as { title: string }[]).map((r) => r.title);
  }

  get count(): number {
    return (this.stmt('SELECT count(*) AS n FROM docs WHERE deleted = 0').get() as { n: number }).n;
  }

  ref(id: number): StoredRef | undefined {
    return this.stmt('SELECT url, location, offset, clen, mime FROM docs WHERE id = ? AND deleted = 0').get(id) as StoredRef | undefined;
  }

  /** The stored text of a document (for its snippet: only the hits shown need it). */
  text(id: number): string {
    return (this.stmt('SELECT text FROM docs WHERE id = ?').get(id) as { text: string | null } | undefined)?.text ?? '';
  }

  close(): void {
    this.db.close();
  }
}

/** The identity of the files of a set (inode and change time): a swapped-in file has another. */
function stamp(set: IndexSet): string {
  return [set.main, set.dates].filter((f): f is string => f !== undefined).map((f) => {
    try {
      const st = statSync(f);
      return `${st.ino}:${st.mtimeMs}`;
    } catch {
      return 'gone';
    }
  }).join(' ');
}

export class Searcher {
  private sets: OpenSet[];
  private stamps: string[];
  private checked = 0;

  constructor(readonly dir: string) {
    this.sets = findIndexSets(dir).map((s) => new OpenSet(s));
    this.stamps = this.sets.map((s) => stamp(s.set));
  }

  /**
   * Reopens a set whose files were replaced (add-dates renames a new dates index into place;
   * a new index run renames its dataset): at most once a second, so a busy service stats little.
   * Until the new files open cleanly, the old ones keep serving.
   */
  private refresh(): void {
    const now = Date.now();
    if (now - this.checked < 1000) return;
    this.checked = now;
    this.sets.forEach((s, i) => {
      const st = stamp(s.set);
      if (st === this.stamps[i]) return;
      try {
        const fresh = new OpenSet(s.set);
        s.close();
        this.sets[i] = fresh;
        this.stamps[i] = st;
      } catch {
        // Half-swapped or unreadable: try again on a later query.
      }
    });
  }

  search(query: string, opts: SearchOptions = {}): SearchResult {
    const t0 = performance.now();
    this.refresh();
    const q = parseQuery(query);
    const start = Math.max(0, opts.start ?? 0);
    const want = Math.max(1, opts.hits ?? 10);
    const perSite = Math.max(0, opts.hitsPerSite ?? 0);
    const order: FieldOrder | undefined = opts.sort === 'date' || opts.sort === 'url' ? { field: opts.sort, desc: opts.reverse === true } : undefined;
    // Enough candidates from each set for this page after collapsing.
    const limit = Math.min(5000, (start + want) * (perSite ? 10 : 1));
    let total = 0;
    const candidates: (Row & { set: OpenSet })[] = [];
    for (const s of this.sets) {
      const r = s.search(q, limit, order);
      total += r.total;
      for (const row of r.rows) candidates.push({ ...row, set: s });
    }
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    if (order) {
      const field = order.field === 'date' ? (r: Row) => r.dates.split(' ').filter(Boolean).sort()[0] ?? '' : (r: Row) => r.url;
      const sign = order.desc ? -1 : 1;
      candidates.sort((a, b) => sign * (cmp(field(a), field(b)) || cmp(a.url, b.url)) || cmp(a.digest, b.digest));
    } else {
      candidates.sort((a, b) => a.rank - b.rank || cmp(a.url, b.url) || cmp(a.dates, b.dates));
      if (opts.reverse) candidates.reverse();
    }
    // hitsPerSite counts by the dedup field: the site (host), the URL (one version of each), the digest.
    const dedupOf = opts.dedupField === 'url' ? (r: Row) => r.url : opts.dedupField === 'digest' ? (r: Row) => r.digest : (r: Row) => r.host;
    const shown: (Row & { set: OpenSet })[] = [];
    const perHost = new Map<string, number>();
    const hidden = new Map<string, number>();
    for (const c of candidates) {
      const key = dedupOf(c);
      const n = perHost.get(key) ?? 0;
      if (perSite && n >= perSite) {
        hidden.set(key, (hidden.get(key) ?? 0) + 1);
        continue;
      }
      perHost.set(key, n + 1);
      shown.push(c);
    }
    const page = shown.slice(start, start + want);
    const hits: Hit[] = page.map((r) => ({
      url: r.url, digest: r.digest, title: r.title, dates: [...new Set(r.dates.split(' ').filter(Boolean))].sort(), mime: r.mime, status: r.status,
      length: r.length, collection: r.collection, segment: r.segment, file: r.file, location: r.location, offset: r.offset, clen: r.clen,
      host: r.host, score: -r.rank, snippet: opts.snippets === false ? { text: '', marks: [] } : snippetOf(r.set.text(r.id), q.highlight), set: r.set.set.name, doc: r.id, moreFromSite: 0,
    }));
    // "More from this site" goes on the last shown hit of each collapsed site.
    const hitKey = opts.dedupField === 'url' ? (h: Hit) => h.url : opts.dedupField === 'digest' ? (h: Hit) => h.digest : (h: Hit) => h.host;
    for (const [key, n] of hidden) {
      const last = [...hits].reverse().find((h) => hitKey(h) === key);
      if (last) last.moreFromSite = n;
    }
    let facets: Facets | undefined;
    if (opts.facets) {
      const sum = new Map<string, Map<string, number>>();
      for (const s of this.sets) {
        for (const [name, values] of Object.entries(s.facets(q))) {
          const m = sum.get(name) ?? new Map<string, number>();
          for (const [v, n] of values) m.set(v, (m.get(v) ?? 0) + n);
          sum.set(name, m);
        }
      }
      const top = (name: string) => [...(sum.get(name) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
      facets = { site: top('site'), type: top('type'), year: top('year') };
    }
    return { query, total, start, hits, ...(facets ? { facets } : {}), elapsedMs: performance.now() - t0 };
  }

  /** Where the stored copy of document `doc` of set `set` is; undefined when there is none. */
  stored(set: string, doc: number): StoredRef | undefined {
    const s = this.sets.find((x) => x.set.name === set);
    return s?.ref(doc);
  }

  /** Site names and the titles of the best pages (by boost), for suggestions. */
  *suggestionSource(titles: number): Generator<{ text: string; kind: 'site' | 'title' }> {
    for (const s of this.sets) for (const host of s.hosts()) yield { text: host, kind: 'site' };
    for (const s of this.sets) for (const title of s.bestTitles(Math.ceil(titles / this.sets.length))) yield { text: title, kind: 'title' };
  }

  /** Documents in all sets (for /healthz). */
  documents(): number {
    return this.sets.reduce((n, s) => n + s.count, 0);
  }

  close(): void {
    for (const s of this.sets) s.close();
  }
}

export type { Database };
