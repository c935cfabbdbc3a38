/**
 * One index set opened for searching: its main index read-only, its dates index attached and
 * joined by document number, statements prepared once. A word query is planned here and
 * ranked over every set together (word-search.ts) by BM25 with the collection's statistics
 * (set-scoring.ts; the searcher adds the bounded features of ranking.ts); filters, the
 * deleted mark and orders by a stored field go through the documents table.
 *
 * The work of a query is bounded (docs/decisions.md, "Bounded work per query"): the
 * collection's matches are counted up to `maxScored`; at most that many are ranked exactly.
 * Past it the ranking is capped: it scores the matches whose title, anchor text or URL holds
 * every word (the tier where the best answers are) and the first matches in key order, at most
 * `maxScored` of each, not every match (FTS5's ORDER BY rank computes BM25 for every match:
 * hundreds of milliseconds for a common word at a million documents). `exact` ranks every match.
 */
import type Database from 'better-sqlite3';
import { openIndex, TEXT_IN_SEGMENTS, urlKey, type Db } from '../index/schema.js';
import { SegmentTexts, textRoots } from '../segment/segment-texts.js';
import type { IndexSet } from './index-sets.js';
import type { QueryPlan } from './query-plan.js';
import { fieldFilters, shownOnly } from './set-filters.js';
import { SetScoring, type Scored } from './set-scoring.js';
import type { PlanSet, WordPlan } from './set-word-query.js';
import {
  MAX_SCORED,
  type Facets,
  type FieldOrder,
  type RankLimits,
  type Row,
  type SetResult,
  type ShownCapture,
  type StoredRef,
  type VersionParse,
} from './types.js';
import { NwaxError } from '../util/errors.js';
import type { Snippet } from './snippet.js';
import { SetTexts, type Passage, type TextRef } from './set-texts.js';
import { CAPTURE_FIELDS } from '../index/document.js';
import { SetAccess } from './access-view.js';
import { ANCHORS_COLUMN, matchWithoutAnchors } from './anchorless.js';
import { columnTotals } from './fts-stats.js';
import { countPeriods, inOrder, periodLength, periodOf, type Period } from './timeline.js';

/** A hit's capture fields, as the documents table's columns. */
const CAPTURE_COLUMNS_SQL = CAPTURE_FIELDS.map((f) => `docs.${f}`).join(', ');

/** The capture fields that say where a version's own record lies (a withheld capture's are not shown). */
const RECORD_PLACE = new Set<string>(['file', 'location', 'offset', 'clen']);

/** BM25's column weights: title, content, anchors, URL words, host (and 0 for the years). */
const WEIGHTS = [4.0, 1.0, 2.0, 1.0, 0.5];

export class OpenSet {
  readonly db: Db;
  /** Whether dedup marked documents deleted (queries then go through the documents table). */
  private readonly hasDeleted: boolean;
  /** Documents marked deleted by dedup. */
  private readonly deleted: number;
  /** The document count the index records (info.doc_count). */
  private readonly docCount: number;
  /** Whether documents are indexed by MIME type and collection (schema 3). */
  private readonly mimeIndexed: boolean;
  private mimeList: string[] | undefined;
  /** Whether the text index has the capture years (schema 3). */
  private readonly hasYears: boolean;
  /** Years only the dates index knows for some document (undefined: not recorded, any may be). */
  private readonly extraYears: Set<string> | undefined = new Set();
  /** Its side of the collection-wide BM25: its statistics, and its matches scored (set-scoring.ts). */
  readonly scoring: SetScoring;
  /** What this set's word plans run on (set-word-query.ts). */
  private readonly planSet: PlanSet;
  /** The documents' texts: from the segments (schema 4), or each row's own (set-texts.ts). */
  private readonly texts: SetTexts;
  /** Where this index's segments may lie, beside it and where it was made. */
  private readonly near: string[];

  /** `texts`: the searcher's reader of segment texts (shared, with its cache of blocks). */
  constructor(
    readonly set: IndexSet,
    texts: SegmentTexts = new SegmentTexts(),
  ) {
    const main = openIndex(set.main, 'main');
    this.db = main.db;
    this.docCount = main.info.docCount;
    this.near = textRoots(set.main, main.info.segmentRoots);
    this.texts = new SetTexts((sql) => this.stmt(sql), main.info.version >= TEXT_IN_SEGMENTS ? { store: texts, near: this.near } : undefined);
    if (set.dates) {
      const dates = openIndex(set.dates, 'dates');
      dates.db.close();
      if (dates.info.docCount !== main.info.docCount) {
        this.db.close();
        throw new NwaxError(
          'NWAX_FORMAT',
          `index set ${set.name}: ${set.main} holds ${main.info.docCount} documents but ${set.dates} ${dates.info.docCount}; parallel indexes must agree (rebuild the dates with add-dates)`,
        );
      }
      this.db.prepare('ATTACH DATABASE ? AS d').run(set.dates);
      this.extraYears = dates.info.extraYears ? new Set(dates.info.extraYears) : undefined;
    }
    this.hasYears = main.info.version >= 3;
    this.mimeIndexed = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'docs_mime'").get() !== undefined;
    // Indexes record their deletions; an older one is asked (a scan of every document when none is).
    this.deleted = main.info.deleted ?? (this.db.prepare('SELECT count(*) AS n FROM docs WHERE deleted = 1').get() as { n: number }).n;
    this.hasDeleted = this.deleted > 0;
    // The documents dedup marked leave the statistics (a scan of the documents where there are some).
    const deletedIds = this.hasDeleted ? (this.db.prepare('SELECT id FROM docs WHERE deleted = 1').pluck().all() as number[]) : [];
    this.scoring = new SetScoring(
      this.db,
      (sql) => this.stmt(sql),
      this.hasYears ? [...WEIGHTS, 0.0] : WEIGHTS,
      deletedIds,
      () => this.access.hiddenForStats(),
    );
    this.planSet = { stmt: (sql) => this.stmt(sql), scoring: this.scoring };
    // Recent captures under an embargo are found through the years column where it answers.
    this.access = new SetAccess(this.db, set.dates !== undefined, (years) =>
      this.yearsAnswer(years) ? `years : (${years.map((y) => `"${y}"`).join(' OR ')})` : undefined,
    );
    this.db.function('nwax_dates_in', { deterministic: true }, (dates: unknown, from: unknown, to: unknown) => {
      for (const d of String(dates).split(' ')) if (d >= (from as string) && d <= (to as string)) return 1;
      return 0;
    });
  }

  /** The access rules' side of this set: what it withholds from the class of the current query (access-view.ts). */
  readonly access: SetAccess;

  /** The documents table's joins: the dates index, and the dates the access rules show. */
  private joins(): string {
    return this.access.joins(this.set.dates ? 'LEFT JOIN d.dates dd ON dd.id = docs.id' : '');
  }

  private datesExpr(): string {
    return this.access.dates(this.set.dates ? "docs.dates || ' ' || coalesce(dd.dates, '')" : 'docs.dates');
  }

  /** Whether the text index's years column holds every year these documents were captured in (else the dates index adds some). */
  private yearsAnswer(years: readonly string[]): boolean {
    return this.hasYears && (!this.set.dates || (this.extraYears !== undefined && !years.some((y) => this.extraYears!.has(y))));
  }

  /**
   * Whether a query's date filter can ask its years of the text index: not when the index has
   * no years column, nor when the dates index gives some document one of these years that the
   * main index does not have (add-dates recorded which), since those documents would be missed.
   */
  private yearsAsked(plan: QueryPlan): boolean {
    return this.hasYears && plan.years !== undefined && this.yearsAnswer(plan.years);
  }

  /**
   * The MATCH texts, WHERE clauses and parameters of a query (years narrow the match where they
   * can). `match` is what BM25 scores (the words and years, never the host, so a page's score
   * does not depend on how it was found); `narrow` is what finds the matches: the same, with
   * the site's host phrase where the site is a small part of this index (site: on one site of
   * many finds that site's pages through the text index; on a site that holds most pages the
   * phrase's position checks cost more than the SQL test they save: 6.3 -> 0.6 ms for `admin
   * site:127.0.0.1` on the bench corpus).
   */
  private plan(p: QueryPlan): {
    match: string | undefined;
    narrow: string | undefined;
    raw: { match: string | undefined; narrow: string | undefined };
    driver: string | undefined;
    where: string[];
    params: unknown[];
  } {
    const years = this.yearsAsked(p);
    const rawMatch = p.match(years, false);
    const rawNarrow = rawMatch && this.siteIsNarrow(p) ? p.match(years, true) : rawMatch;
    // Where the view matches every document without its anchors, the words are asked so.
    const all = this.access.anchorless?.all;
    const match = rawMatch && all ? this.bare(rawMatch) : rawMatch;
    const narrow = rawNarrow && all ? this.bare(rawNarrow) : rawNarrow;
    // A query of fields alone is found through the text index where it has site: or date:.
    const driver = match ? undefined : p.fields(years);
    // Whole years are answered by the years column itself; other ranges are still tested on the rows.
    return {
      match,
      narrow,
      raw: { match: rawMatch, narrow: rawNarrow },
      driver,
      ...fieldFilters(
        p,
        {
          hasDeleted: this.hasDeleted,
          mimes: this.mimeIndexed ? () => this.mimes() : undefined,
          dates: this.datesExpr(),
          withheld: this.access.withheldTable,
          urlKeyed: this.texts.inSegments,
        },
        // A version's years in the text index may be of captures the view withholds.
        years && p.wholeYears && !this.access.partial,
      ),
    };
  }

  /** A MATCH text without the anchors column (anchorless.ts). */
  private bare(m: string): string {
    return matchWithoutAnchors(m, this.scoring.weights.length);
  }

  /**
   * The documents a word MATCH text finds for the view, as SQL (and its parameters): where the
   * view matches some documents without their anchors, those by the text without them.
   */
  private wordMatches(m: string): { sql: string; params: unknown[] } | undefined {
    const t = this.access.anchorless?.table;
    if (!t) return undefined;
    return {
      sql: `(SELECT rowid FROM fts WHERE fts MATCH ? AND +rowid NOT IN (SELECT id FROM temp.${t}) UNION ALL SELECT rowid FROM fts WHERE fts MATCH ? AND +rowid IN (SELECT id FROM temp.${t}))`,
      params: [m, this.bare(m)],
    };
  }

  /** The condition that leaves out the documents holding a query's exclusions, and its parameters. */
  private excluded(excl: string): { sql: string; params: unknown[] } {
    const some = this.wordMatches(excl);
    if (some) return { sql: `docs.id NOT IN ${some.sql}`, params: some.params };
    return { sql: 'docs.id NOT IN (SELECT rowid FROM fts WHERE fts MATCH ?)', params: [this.access.anchorless?.all ? this.bare(excl) : excl] };
  }

  /** Whether each host term is in more than a fifth of the documents' host columns, counted once a term. */
  private readonly commonHost = new Map<string, boolean>();

  /**
   * Whether the query's sites are a small part of this index (at most a fifth of its documents,
   * each site counted by its rarest host term: a doclist read up to that many rows, no phrase).
   */
  private siteIsNarrow(p: QueryPlan): boolean {
    if (p.siteTerms.length === 0 || this.docCount === 0) return false;
    const limit = Math.floor(this.docCount / 5);
    const common = (term: string): boolean => {
      let c = this.commonHost.get(term);
      if (c === undefined) {
        const n = (this.stmt(`SELECT count(*) AS n FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ${limit + 1})`).get(`host : "${term}"`) as { n: number }).n;
        this.commonHost.set(term, (c = n > limit));
      }
      return c;
    };
    // Every site rare: one common site makes the phrase cost more than it saves.
    return p.siteTerms.every((terms) => terms.length > 0 && !terms.every(common));
  }

  /** The MIME types the documents have, read once from the docs_mime index. */
  private mimes(): string[] {
    this.mimeList ??= this.db.prepare('SELECT DISTINCT mime FROM docs WHERE mime IS NOT NULL').pluck().all() as string[];
    return this.mimeList;
  }

  private readonly statements = new Map<string, Database.Statement>();

  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) this.statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  /**
   * Counts of the matching documents by host, type and year of first capture (the top 10 of
   * each), and over time (timeline.ts): every period they were captured in, with the
   * collection's versions in each where `share` asks for them.
   */
  facets(p: QueryPlan, limits: RankLimits = {}, share = false): Facets {
    const { narrow, driver, where, params } = this.plan(p);
    const words = narrow;
    const match = words ?? driver;
    const join = this.joins();
    let from = `docs ${join}`;
    const all: unknown[] = [];
    const some = words ? this.wordMatches(words) : undefined;
    if (some) {
      where.unshift(`docs.id IN ${some.sql}`);
      all.push(...some.params);
    } else if (match) {
      from = `fts CROSS JOIN docs ON docs.id = fts.rowid ${join}`;
      where.unshift('fts MATCH ?');
      all.push(match);
    }
    if (!words) {
      const excl = p.exclusions;
      if (excl) {
        const e = this.excluded(excl);
        where.push(e.sql);
        params.push(...e.params);
      }
    }
    all.push(...params);
    // Counted among the first `maxScored` matches, as the total is (every match with `exact`).
    const cap = limits.exact ? '' : `LIMIT ${Math.max(1, limits.maxScored ?? MAX_SCORED)}`;
    // One statement: the matches found once (a materialized table of their five fields), each
    // count a scan of it, then every version's dates for the timeline. Five statements found
    // the matches five times: at a million documents most of a results page's time.
    const top = (facet: string, also = '') =>
      `SELECT * FROM (SELECT '${facet}' AS f, ${facet} AS v, count(*) AS n FROM m${also} GROUP BY v ORDER BY n DESC, v LIMIT 10)`;
    const sql = [
      `WITH m AS MATERIALIZED (SELECT docs.host AS site, docs.mime AS type, substr(${this.access.firstDate()}, 1, 4) AS year, docs.lang AS lang,`,
      ` ${this.datesExpr()} AS dates FROM ${from} WHERE ${where.join(' AND ')} ${cap})`,
      // Documents of no known language take no place among the ten languages shown.
      ` ${top('site')} UNION ALL ${top('type')} UNION ALL ${top('year')} UNION ALL ${top('lang', " WHERE lang != ''")}`,
      " UNION ALL SELECT 'dates' AS f, dates AS v, 0 AS n FROM m",
    ].join('');
    const period = periodOf(p.dates);
    const len = periodLength(period);
    const over = new Map<string, number>();
    const counts: Pick<Facets, 'site' | 'type' | 'year' | 'lang'> = { site: [], type: [], year: [], lang: [] };
    for (const r of this.stmt(sql)
      .raw()
      .iterate(...all) as Iterable<[string, unknown, number]>) {
      if (r[0] === 'dates') countPeriods(over, r[1] as string, len, p.dates);
      else counts[r[0] as keyof typeof counts].push([String(r[1]), r[2]]);
    }
    return {
      ...counts,
      timeline: { period, hits: inOrder(over), ...(share ? { versions: this.versionsOver(period) } : {}) },
    };
  }

  /** The versions the current view shows in each period, counted at its first asking (a pass over every document), by view. */
  private readonly versionsByView = new Map<string, [string, number][]>();

  private versionsOver(period: Period): [string, number][] {
    const key = `${this.access.withheldTable ?? ''} ${this.access.partial ? this.joins() : ''} ${period}`;
    let v = this.versionsByView.get(key);
    if (!v) {
      const counts = new Map<string, number>();
      const len = periodLength(period);
      for (const dates of this.stmt(`SELECT ${this.datesExpr()} FROM docs ${this.joins()} WHERE docs.deleted = 0${this.access.shown()}`)
        .pluck()
        .iterate() as Iterable<string>)
        countPeriods(counts, dates, len, []);
      // The views of rules generations gone are not asked again: only the latest few are kept.
      if (this.versionsByView.size >= 8) this.versionsByView.delete(this.versionsByView.keys().next().value!);
      this.versionsByView.set(key, (v = inOrder(counts)));
    }
    return v;
  }

  /** The FROM, WHERE and parameters that select every match of a query, unranked. */
  private everyMatch(p: QueryPlan): { from: string; cond: string; all: unknown[] } {
    const { match, narrow, driver, where, params } = this.plan(p);
    const join = this.joins();
    const some = narrow ? this.wordMatches(narrow) : undefined;
    if (some) {
      where.unshift(`docs.id IN ${some.sql}`);
      return { from: `docs ${join}`, cond: `WHERE ${where.join(' AND ')}`, all: [...some.params, ...params] };
    }
    const m = narrow ?? driver;
    const from = m ? `fts CROSS JOIN docs ON docs.id = fts.rowid ${join}` : `docs ${join}`;
    const all = m ? [m, ...params] : [...params];
    if (m) where.unshift('fts MATCH ?');
    const excl = match ? undefined : p.exclusions;
    if (excl) {
      const e = this.excluded(excl);
      where.push(e.sql);
      all.push(...e.params);
    }
    return { from, cond: `WHERE ${where.join(' AND ')}`, all };
  }

  /** The document numbers of every match of a query, in document order (an export: no ranking, no cap). */
  matchIds(p: QueryPlan): number[] {
    const { from, cond, all } = this.everyMatch(p);
    return this.stmt(`SELECT docs.id FROM ${from} ${cond} ORDER BY docs.id`)
      .pluck()
      .all(...all) as number[];
  }

  /** Documents by number, in that order, without their text. */
  rowsOf(ids: number[]): Row[] {
    const byId = new Map(
      (
        this.stmt(`SELECT ${this.cols(false)} FROM docs ${this.joins()} WHERE docs.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as Row[]
      ).map((r) => [r.id, r]),
    );
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  search(p: QueryPlan, limit: number, order?: FieldOrder, limits: RankLimits = {}): SetResult {
    const { match, driver, where, params } = this.plan(p);
    const join = this.joins();
    const cap = Math.max(1, limits.maxScored ?? MAX_SCORED);
    if (order) {
      // Every match in the order of a stored field (FTS5's rank does not apply).
      const { from, cond, all } = this.everyMatch(p);
      const dir = order.desc ? 'DESC' : 'ASC';
      const total = (this.stmt(`SELECT count(*) AS n FROM ${from} ${cond}`).get(...all) as { n: number }).n;
      const rows = this.stmt(
        `SELECT ${this.cols()}, 0 AS rank FROM ${from} ${cond} ORDER BY ${order.field === 'date' ? this.access.firstDate() : 'docs.url'} ${dir}, docs.url ${dir}, docs.digest LIMIT ?`,
      ).all(...all, limit) as Row[];
      return { total, rows };
    }
    if (!match) {
      // Fields only: the documents that pass, best boost first; found through the text index
      // where there is a site: or date: to find them by, counted up to the cap, and past it
      // the best of the first `cap` in index order (every one with `exact`).
      const excl = p.exclusions;
      if (excl) {
        const e = this.excluded(excl);
        where.push(e.sql);
        params.push(...e.params);
      }
      const from = driver ? `fts CROSS JOIN docs ON docs.id = fts.rowid ${join}` : `docs ${join}`;
      const cond = `WHERE ${driver ? 'fts MATCH ? AND ' : ''}${where.join(' AND ')}`;
      const args = driver ? [driver, ...params] : params;
      const counted = (this.stmt(`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} ${cond} LIMIT ${cap + 1})`).get(...args) as { n: number }).n;
      const capped = counted > cap;
      const rows = (
        capped && !limits.exact
          ? this.stmt(
              `SELECT ${this.cols()}, -docs.boost AS rank FROM docs ${join} WHERE docs.id IN (SELECT docs.id FROM ${from} ${cond} LIMIT ${cap}) ORDER BY rank, docs.url, docs.date LIMIT ?`,
            )
          : this.stmt(`SELECT ${this.cols()}, -docs.boost AS rank FROM ${from} ${cond} ORDER BY rank, docs.url, docs.date LIMIT ?`)
      ).all(...args, limit) as Row[];
      return { total: Math.min(counted, cap), rows, ...(capped ? { capped, ...(limits.exact ? {} : { rankedAmong: cap }) } : {}) };
    }
    // Words: ranked over every set together, with the collection's statistics (word-search.ts).
    throw new NwaxError('NWAX_INTERNAL', 'a word query is ranked over every set by searchWords (word-search.ts)');
  }

  /**
   * A word query on this set: `match` is scored (its phrases in FTS5's order), `narrow` finds
   * the matches (the same, with the site's host phrase where it narrows: plan()); filters and
   * the deleted mark need the documents table, without them FTS5 answers alone. Undefined for
   * a query without words.
   */
  wordPlan(p: QueryPlan): WordPlan | undefined {
    const { match, narrow, raw, where, params } = this.plan(p);
    if (!match || !narrow || !raw.match || !raw.narrow) return undefined;
    // Without filters FTS5 answers alone; the versions the access rules withhold are left out
    // by document number then, with no read of the documents table.
    const w = this.access.withheldTable;
    const plain = where.filter((c) => !w || c !== shownOnly(w)).length === 1 && !this.hasDeleted;
    const join = this.joins();
    const a = this.access.anchorless;
    const tier = p.tier(raw.narrow);
    const plan: WordPlan = {
      query: p,
      match,
      narrow,
      tier: tier && a?.all ? this.bare(tier) : tier,
      // The phrases as every set and the front count them: those of the words as asked.
      phrases: p.phrases(raw.match),
      from: plain ? 'fts' : `fts CROSS JOIN docs ON docs.id = fts.rowid ${join}`,
      cond: plain ? `fts MATCH ?${w ? ` AND ${shownOnly(w, 'fts.rowid')}` : ''}` : `fts MATCH ? AND ${where.join(' AND ')}`,
      params: plain ? [] : params,
      set: this.planSet,
      ...(a?.all ? { bare: true } : {}),
    };
    if (!a?.table) return plan;
    // Some documents are matched without their anchors: the plan runs in two parts, the others
    // as asked and those without their anchors (set-word-query.ts joins them).
    const among = (not: boolean) => ` AND +fts.rowid ${not ? 'NOT ' : ''}IN (SELECT id FROM temp.${a.table})`;
    return {
      ...plan,
      cond: plan.cond + among(true),
      bareRows: {
        ...plan,
        match: this.bare(match),
        narrow: this.bare(narrow),
        tier: tier && this.bare(tier),
        cond: plan.cond + among(false),
        bare: true,
        among: (ids) =>
          new Set(this.stmt(`SELECT id FROM temp.${a.table} WHERE id IN (SELECT value FROM json_each(?))`).pluck().all(JSON.stringify(ids)) as number[]),
      },
    };
  }

  /** A record of one of this index's segments, read by `reader` (a segment dataset's: anchor-sources.ts reads crawl_parse). */
  segmentRecord(reader: SegmentTexts, segment: string, key: string): unknown {
    return reader.value(segment, key, this.near);
  }

  /**
   * A version's text, title and outlinks, for a comparison of versions: the text as snippets
   * read it, the title and links from its segment's parse_data (`links` undefined where that
   * cannot be read: an index of the texts in its rows, a segment moved away).
   */
  versionParse(parseData: SegmentTexts, id: number): VersionParse | undefined {
    const row = this.stmt('SELECT url, digest, segment, title FROM docs WHERE id = ? AND deleted = 0').get(id) as
      | { url: string; digest: string; segment: string | null; title: string | null }
      | undefined;
    if (!row) return undefined;
    let links: string[] | undefined;
    try {
      const data = row.segment
        ? (parseData.value(row.segment, `${row.url} ${row.digest}`, this.near) as { outlinks?: { url?: unknown }[] } | undefined)
        : undefined;
      if (Array.isArray(data?.outlinks)) links = data.outlinks.flatMap((l) => (typeof l?.url === 'string' ? [l.url] : []));
    } catch {
      links = undefined; // a damaged block: the comparison says the links are unknown
    }
    return { url: row.url, digest: row.digest, title: row.title ?? '', text: this.textAndLang(id).text, links };
  }

  /**
   * The documents of these URLs that hold anchor text and that the current view shows: those
   * matched without their anchors where a withheld page links to them (anchor-sources.ts).
   */
  linkedDocuments(urls: Iterable<string>): number[] {
    const byUrl = this.stmt(`SELECT id FROM docs WHERE ${this.urlIs()} AND deleted = 0 AND anchors != ''${this.access.shown()}`).pluck();
    const out: number[] = [];
    for (const u of urls) out.push(...(byUrl.all(...this.urlArgs(u)) as number[]));
    return out;
  }

  /** The condition that finds a document by its URL (by its hash first, schema 4), and its parameters. */
  private urlIs(table = ''): string {
    return this.texts.inSegments ? `${table}urlkey = ? AND ${table}url = ?` : `${table}url = ?`;
  }

  private urlArgs(url: string): unknown[] {
    return this.texts.inSegments ? [urlKey(url), url] : [url];
  }

  private anchorsHeld: boolean | undefined;

  /** Whether any document holds anchor text: the text index's token count of that column (FTS5 keeps it). */
  holdsAnchors(): boolean {
    this.anchorsHeld ??= (columnTotals(this.db)[ANCHORS_COLUMN] ?? 0) > 0;
    return this.anchorsHeld;
  }

  /** The title of a version of `url` the current view shows ('' for none given), undefined where it shows none. */
  shownTitle(url: string): string | undefined {
    const r = this.stmt(
      `SELECT docs.title FROM ${this.access.joins('docs')} WHERE ${this.urlIs('docs.')} AND docs.deleted = 0${this.access.shown()} LIMIT 1`,
    ).get(...this.urlArgs(url)) as { title: string | null } | undefined;
    return r && (r.title ?? '');
  }

  /** Whether a version of the page `url` is served (dedup's deleted ones are not). */
  holdsPage(url: string): boolean {
    return this.stmt(`SELECT 1 FROM docs WHERE ${this.urlIs()} AND deleted = 0 LIMIT 1`).get(...this.urlArgs(url)) !== undefined;
  }

  /** The documents' keys (`URL digest`, the order the index job wrote them in), by number. */
  keyOf(id: number): string {
    return (this.stmt("SELECT url || ' ' || digest FROM docs WHERE id = ?").pluck().get(id) as string | undefined) ?? '';
  }

  keysOf(ids: readonly number[]): Map<number, string> {
    const rows = this.stmt("SELECT id, url || ' ' || digest AS k FROM docs WHERE id IN (SELECT value FROM json_each(?))").raw().all(JSON.stringify(ids)) as [
      number,
      string,
    ][];
    return new Map(rows);
  }

  /** Scored documents as rows (their rank the score), without the language (see cols). */
  scoredRows(scored: readonly Scored[]): Row[] {
    if (scored.length === 0) return [];
    const byId = new Map(scored.map((x) => [x.id, x.r]));
    const join = this.joins();
    // The candidates without their language: in the documents table it comes after the stored
    // text, whose overflow pages a column past it makes SQLite read (a hundred candidates a
    // set: 161 -> 61 ms over 300 queries); the hits shown get it with their text (lang()).
    const docs = this.stmt(`SELECT ${this.cols(false)} FROM docs ${join} WHERE docs.id IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(scored.map((x) => x.id)),
    ) as Row[];
    for (const d of docs) d.rank = byId.get(d.id)!;
    return docs;
  }

  /** The columns of a hit; `lang` false leaves out the one stored after the text (Row.lang undefined). */
  private cols(lang = true): string {
    return `docs.id, docs.url, docs.digest, docs.title, ${this.datesExpr()} AS dates, ${this.captureCols()}, docs.host, docs.boost, docs.inlinks${lang ? ', docs.lang' : ''}`;
  }

  /**
   * The capture fields; where the view withholds a version's own capture (its first, which its
   * row names) but shows others, where that record lies is null: no hit, stored copy or export
   * reaches a capture the class may not see (docs/access-control.md).
   */
  private captureCols(): string {
    const own = this.access.ownCaptureShown();
    if (!own) return CAPTURE_COLUMNS_SQL;
    return CAPTURE_FIELDS.map((f) => (RECORD_PLACE.has(f) ? `CASE WHEN ${own} THEN docs.${f} END AS ${f}` : `docs.${f}`)).join(', ');
  }

  /** A hit's stored text ('' when `text` is false) and language (set-texts.ts). */
  textAndLang(id: number, text = true): { text: string; lang: string } {
    return this.texts.textAndLang(id, text);
  }

  /** A document's text as its JSON string's bytes (SetTexts.textJson). */
  textJson(id: number, known?: TextRef): Buffer | undefined {
    return this.texts.textJson(id, known);
  }

  /** A hit's snippet and language (set-texts.ts). */
  /** `passage`: where the text's closest window of the query's words is (set-texts.ts), where the ranking found one. */
  snippetAndLang(id: number, highlight: string[], passage?: Passage): { snippet: Snippet; lang: string } {
    return this.texts.snippetAndLang(id, highlight, passage);
  }

  hosts(): string[] {
    return (this.stmt(`SELECT DISTINCT host FROM docs WHERE host != '' AND deleted = 0${this.access.shown()}`).all() as { host: string }[]).map((r) => r.host);
  }

  bestTitles(n: number): string[] {
    return (
      this.stmt(`SELECT title FROM docs WHERE title != '' AND deleted = 0${this.access.shown()} ORDER BY boost DESC, id LIMIT ?`).all(n) as { title: string }[]
    ).map((r) => r.title);
  }

  /**
   * Documents served (not marked deleted by dedup): the count the index records less its
   * deletions, known when the set opens (an open set never changes: an update is a new file,
   * opened as a new set), so /healthz and /metrics read a number, not a scan of the documents.
   */
  get count(): number {
    return this.docCount - this.deleted;
  }

  /** Where document `id`'s record lies, where the view shows it (and the capture the row names). */
  ref(id: number): StoredRef | undefined {
    const own = this.access.ownCaptureShown();
    return this.stmt(
      `SELECT docs.url, docs.date, docs.location, docs.offset, docs.clen, docs.mime FROM ${this.access.joins('docs')} WHERE docs.id = ? AND docs.deleted = 0${this.access.shown()}${own ? ` AND ${own}` : ''}`,
    ).get(id) as StoredRef | undefined;
  }

  /** The first capture the view shows of a version whose own record it withholds (ref() gives none). */
  shownCapture(id: number): ShownCapture | undefined {
    if (!this.access.partial) return undefined;
    const r = this.stmt(
      `SELECT docs.url, docs.collection, ${this.access.firstDate()} AS date FROM ${this.access.joins('docs')} WHERE docs.id = ? AND docs.deleted = 0${this.access.shown()}`,
    ).get(id) as { url: string; collection: string | null; date: string } | undefined;
    return r && { shown: true, url: r.url, date: r.date, collection: r.collection ?? '' };
  }

  /** Every document served, in document order (an export of the collection), without its text. */
  *documents(): Generator<Row> {
    // A thousand at a time: the connection serves other reads (their texts) between batches.
    const batch = this.stmt(
      `SELECT ${this.cols(false)} FROM docs ${this.joins()} WHERE docs.deleted = 0${this.access.shown()} AND docs.id > ? ORDER BY docs.id LIMIT 1000`,
    );
    for (let after = -1; ; ) {
      const rows = batch.all(after) as Row[];
      if (rows.length === 0) return;
      yield* rows;
      after = rows[rows.length - 1].id;
    }
  }

  /** The first characters of the stored text of a document (the ranking's exact feature). */
  head(id: number, chars = 1000): string {
    return this.texts.head(id, chars);
  }

  close(): void {
    this.db.close();
  }
}
