/**
 * What one index set withholds from one user class under the access rules, as two temporary
 * tables its queries read: the versions none of whose captures may be shown (`how`: 1 blocked,
 * 2 excluded), left out of every match, count, facet and export; and the versions some of
 * whose captures may not, with the dates that may (and the first of them), which stand for the
 * version's dates in hits, date filters, facets and date order. The rules are applied once per
 * set and rules generation (when a query of the class first needs them), not per query: a query
 * pays one `NOT IN` of an indexed table.
 *
 * Which documents are looked at: where the default is allow and there is no embargo, only those
 * of hosts some rule can touch (rules.ts touchesHost; the documents by host through docs_host);
 * else every document.
 */
import type { HiddenDocs } from './set-scoring.js';
import type { Db } from '../index/schema.js';
import type { AccessRules, Verdict } from '../access/rules.js';
import { shownOnly } from './set-filters.js';
import { datesOf, mergeDates } from '../index/document.js';

/** The tables of a view; undefined where nothing is withheld that way. */
export interface AccessView {
  /** Versions withheld whole: `id`, `how` (1 block, 2 exclude). */
  withheld?: string;
  /** Versions withheld in part: `id`, `dates` (those allowed), `first` (the first of them). */
  partial?: string;
  /** How many served documents it withholds whole, once counted; and which, once read. */
  withheldCount?: number;
  withheldIds?: number[];
  /**
   * The documents matched without their anchor text, since a page the view withholds gave them
   * some (anchor-sources.ts): `table` (`id`) lists them, or `all` every document; and the
   * collection's state it was worked out for (undefined: not yet).
   */
  anchorless?: Anchorless;
  anchorlessFor?: string;
}

/** Documents matched without their anchors: those of a table, or every one. */
export type Anchorless = { table: string; all?: undefined } | { all: true; table?: undefined };

export const OPEN_VIEW: AccessView = {};

let tables = 0;

interface DocDates {
  id: number;
  url: string;
  host: string;
  dates: string;
}

/** The view of `db`'s documents for `user` under `rules`: its tables created and filled. */
/**
 * `recent(years)`: the FTS5 MATCH text of the documents captured in any of those years, where the
 * index's years column answers it for every document (else undefined: the rows are read).
 */
export function buildAccessView(
  db: Db,
  hasDatesIndex: boolean,
  rules: AccessRules,
  user: string | undefined,
  recent: (years: string[]) => string | undefined,
): AccessView {
  const join = hasDatesIndex ? 'LEFT JOIN d.dates dd ON dd.id = docs.id' : '';
  const dates = hasDatesIndex ? "docs.dates || ' ' || coalesce(dd.dates, '')" : 'docs.dates';
  const cols = `docs.id AS id, docs.url AS url, docs.host AS host, ${dates} AS dates FROM docs ${join} WHERE docs.deleted = 0`;
  const o = rules.options;
  // Where the default allows, what can be withheld: the documents of hosts a rule can touch, and
  // under an embargo of the later captures (newer, after) those captured since its cutoff's year
  // (the text index's years find them). An embargo of the earlier ones (older, before), or one
  // with no year to look in, has every document looked at.
  const cutoff = rules.embargoCutoff();
  const cutoffYear = Number(cutoff?.slice(0, 4));
  const thisYear = new Date().getUTCFullYear();
  const years = cutoff ? Array.from({ length: Math.max(0, thisYear + 1 - cutoffYear + 1) }, (_, i) => String(cutoffYear + i).padStart(4, '0')) : [];
  const since = years.length ? recent(years) : undefined;
  let docs: Iterable<DocDates>;
  if (o.defaultAccess === 'allow' && (!o.embargo || since)) {
    const hosts = (db.prepare('SELECT DISTINCT host FROM docs').pluck().all() as string[]).filter((h) => !h || rules.touchesHost(h));
    const byHost = db.prepare(`SELECT ${cols} AND docs.host = ?`);
    const byYears = since ? db.prepare(`SELECT ${cols} AND docs.id IN (SELECT rowid FROM fts WHERE fts MATCH ?)`) : undefined;
    const seen = new Set<string>(hosts);
    docs = (function* () {
      for (const h of hosts) yield* byHost.iterate(h) as Iterable<DocDates>;
      // Recent captures of the other hosts (those of the hosts above were read already).
      if (byYears) for (const d of byYears.iterate(since) as Iterable<DocDates>) if (!seen.has(d.host)) yield d;
    })();
  } else docs = db.prepare(`SELECT ${cols}`).iterate() as Iterable<DocDates>;
  const withheld: [number, number][] = [];
  const partial: [number, string, string][] = [];
  const how = (v: Verdict) => (v === 'exclude' ? 2 : 1);
  // A host no rule can touch has the default's decisions (and the embargo's): no key, no lookup.
  const touched = new Map<string, boolean>();
  const touches = (host: string) => {
    let t = touched.get(host);
    if (t === undefined) touched.set(host, (t = !host || rules.touchesHost(host)));
    return t;
  };
  for (const d of docs) {
    const key = touches(d.host) ? rules.keyOf(d.url) : undefined;
    const all = mergeDates(datesOf(d.dates));
    const decide = (ts: string) => (key === undefined ? rules.verdictDefault(ts) : rules.verdict(key, ts, user));
    if (key === undefined ? !o.embargo : !rules.dated(key)) {
      const v = decide(all[0] ?? '');
      if (v !== 'allow') withheld.push([d.id, how(v)]);
      continue;
    }
    const allowed: string[] = [];
    let blocked = false;
    for (const ts of all) {
      const v = decide(ts);
      if (v === 'allow') allowed.push(ts);
      else if (v === 'block') blocked = true;
    }
    if (allowed.length === 0) withheld.push([d.id, blocked || all.length === 0 ? 1 : 2]);
    else if (allowed.length < all.length) partial.push([d.id, allowed.join(' '), allowed[0]]);
  }
  const view: AccessView = {};
  const n = ++tables;
  // The connection is read-only on its files; query_only (set when opened) forbids temporary tables too.
  db.pragma('query_only = OFF');
  try {
    fill(db, view, n, withheld, partial);
  } finally {
    db.pragma('query_only = ON');
  }
  return view;
}

function fill(db: Db, view: AccessView, n: number, withheld: [number, number][], partial: [number, string, string][]): void {
  if (withheld.length) {
    view.withheld = `acl_withheld_${n}`;
    db.exec(`CREATE TEMP TABLE ${view.withheld}(id INTEGER PRIMARY KEY, how INTEGER NOT NULL)`);
    const ins = db.prepare(`INSERT INTO temp.${view.withheld} VALUES (?, ?)`);
    db.transaction(() => {
      for (const w of withheld) ins.run(w[0], w[1]);
    })();
  }
  if (partial.length) {
    view.partial = `acl_partial_${n}`;
    db.exec(`CREATE TEMP TABLE ${view.partial}(id INTEGER PRIMARY KEY, dates TEXT NOT NULL, first TEXT NOT NULL)`);
    const ins = db.prepare(`INSERT INTO temp.${view.partial} VALUES (?, ?, ?)`);
    db.transaction(() => {
      for (const p of partial) ins.run(p[0], p[1], p[2]);
    })();
  }
}

/** Drops a view's tables (the rules changed). */
export function dropAccessView(db: Db, view: AccessView): void {
  db.pragma('query_only = OFF');
  try {
    for (const t of [view.withheld, view.partial, view.anchorless?.table]) if (t) db.exec(`DROP TABLE IF EXISTS temp.${t}`);
  } finally {
    db.pragma('query_only = ON');
  }
}

/**
 * One index set's side of the access rules: the views it has built (by user class, for one
 * rules generation) and the one the current query answers for. A query runs whole on one
 * thread, so the searcher sets the class (use) before each; the set's SQL reads the view's
 * tables through joins(), dates(), firstDate() and shown().
 */
export class SetAccess {
  private view: AccessView = OPEN_VIEW;
  private views = new Map<string, AccessView>();
  private viewsOf = '';

  /** `recent(years)`: the MATCH text of the documents captured in those years, where the years column answers it. */
  constructor(
    private readonly db: Db,
    private readonly hasDatesIndex: boolean,
    private readonly recent: (years: string[]) => string | undefined,
  ) {}

  /**
   * The class the next calls answer for, under `rules` of `generation` (the rules' generation
   * and epoch): its view built at its first use. `rules` undefined: nothing withheld.
   */
  use(rules: AccessRules | undefined, generation: string, user: string | undefined): void {
    if (!rules) {
      this.view = OPEN_VIEW;
      return;
    }
    if (generation !== this.viewsOf) {
      for (const v of this.views.values()) dropAccessView(this.db, v);
      this.views = new Map();
      this.viewsOf = generation;
    }
    // A class no rule names is the public's.
    const cls = user && rules.users.includes(user) ? user : '';
    let view = this.views.get(cls);
    if (!view) this.views.set(cls, (view = buildAccessView(this.db, this.hasDatesIndex, rules, cls || undefined, this.recent)));
    this.view = view;
  }

  /** The pages the current view withholds whole (their segment and key): whose links' anchor text it withholds too. */
  *withheldPages(): Generator<{ segment: string; url: string; digest: string }> {
    const w = this.view.withheld;
    if (!w) return;
    yield* this.db
      .prepare(`SELECT docs.segment AS segment, docs.url AS url, docs.digest AS digest FROM temp.${w} w JOIN docs ON docs.id = w.id`)
      .iterate() as Iterable<{
      segment: string;
      url: string;
      digest: string;
    }>;
  }

  /** The collection's state (`of`) the current view's anchorless documents were worked out for. */
  anchorlessFor(): string | undefined {
    return this.view === OPEN_VIEW ? undefined : this.view.anchorlessFor;
  }

  /** Records which documents the current view matches without their anchors (none: an empty list), for the collection's state `of`. */
  setAnchorless(of: string, ids: readonly number[] | 'all'): void {
    const v = this.view;
    if (v === OPEN_VIEW) return;
    const old = v.anchorless?.table;
    v.anchorless = undefined;
    v.anchorlessFor = of;
    this.db.pragma('query_only = OFF');
    try {
      if (old) this.db.exec(`DROP TABLE IF EXISTS temp.${old}`);
      if (ids === 'all') v.anchorless = { all: true };
      else if (ids.length) {
        const table = `acl_anchorless_${++tables}`;
        this.db.exec(`CREATE TEMP TABLE ${table}(id INTEGER PRIMARY KEY)`);
        const ins = this.db.prepare(`INSERT OR IGNORE INTO temp.${table} VALUES (?)`);
        this.db.transaction(() => {
          for (const id of ids) ins.run(id);
        })();
        v.anchorless = { table };
      }
    } finally {
      this.db.pragma('query_only = ON');
    }
  }

  /** The documents the current view matches without their anchors, if any. */
  get anchorless(): Anchorless | undefined {
    return this.view.anchorless;
  }

  /** The table of the versions withheld whole from the current class, if any. */
  get withheldTable(): string | undefined {
    return this.view.withheld;
  }

  /** Whether some versions show only some of their dates to the current class. */
  get partial(): boolean {
    return this.view.partial !== undefined;
  }

  /** How the current view withholds a document: 0 not, 1 blocked, 2 excluded. */
  withheld(id: number): number {
    if (!this.view.withheld) return 0;
    return (this.db.prepare(`SELECT how FROM temp.${this.view.withheld} WHERE id = ?`).pluck().get(id) as number | undefined) ?? 0;
  }

  /**
   * The documents the current view withholds whole, for the statistics of its class: the view's
   * key (its table) and its ids, read at the first asking; undefined where it withholds none.
   */
  hiddenForStats(): HiddenDocs | undefined {
    const v = this.view;
    if (!v.withheld) return undefined;
    const table = v.withheld;
    const a = v.anchorless;
    return {
      // The statistics change with the documents matched without their anchors.
      key: `${table} ${a?.table ?? (a?.all ? 'all' : '')}`,
      table,
      ids: () => (v.withheldIds ??= this.db.prepare(`SELECT id FROM temp.${table} ORDER BY id`).pluck().all() as number[]),
      anchorless: a,
    };
  }

  /** Documents the current view withholds whole, of those served (dedup's deleted ones are not): what its count of documents leaves out. */
  withheldCount(): number {
    const v = this.view;
    if (!v.withheld) return 0;
    v.withheldCount ??= this.db.prepare(`SELECT count(*) FROM temp.${v.withheld} w JOIN docs ON docs.id = w.id WHERE docs.deleted = 0`).pluck().get() as number;
    return v.withheldCount;
  }

  /** The documents table's joins (`base`: the dates index's), with the view's shown dates. */
  joins(base: string): string {
    return this.view.partial ? `${base} LEFT JOIN temp.${this.view.partial} ap ON ap.id = docs.id` : base;
  }

  /** A document's dates (`all`: every one) as the view shows them. */
  dates(all: string): string {
    return this.view.partial ? `coalesce(ap.dates, ${all})` : all;
  }

  /**
   * Where the view withholds some of a version's captures, the condition that its row's own
   * capture (its first, `docs.date`, whose record the row's file and offset name) is among
   * those shown; '' where every shown version shows all its captures.
   */
  ownCaptureShown(): string {
    return this.view.partial ? "(ap.id IS NULL OR instr(' ' || ap.dates || ' ', ' ' || docs.date || ' ') > 0)" : '';
  }

  /** A document's first capture date that the view shows. */
  firstDate(): string {
    return this.view.partial ? 'coalesce(ap.first, docs.date)' : 'docs.date';
  }

  /** The view's condition on documents (` AND ...`), '' where it withholds none whole. */
  shown(): string {
    return this.view.withheld ? ` AND ${shownOnly(this.view.withheld)}` : '';
  }
}
