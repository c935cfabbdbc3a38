/**
 * The searcher: a query over every index set under its directory (open-set.ts opens one); the
 * sets are queried one after another for their best candidates (BM25 x boost), the candidates
 * merged by score, and hits per site collapsed *after* the merge, so that a site never shows
 * more than N hits however many partitions hold it. A date filter matches a version when any
 * of its capture dates is in range. Totals are summed over the sets.
 */
import { statSync } from 'node:fs';
import { findIndexSets, type IndexSet } from './index-sets.js';
import { parseQuery } from './query.js';
import { snippetOf, type Snippet } from './snippet.js';
import type { StoredRef } from './stored.js';
import { OpenSet, type FieldOrder, type Row } from './open-set.js';
import { collapse, dedupKey, markMore, sumFacets, type DedupField } from './collapse.js';

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
  dedupField?: DedupField;
}

export interface SearchResult {
  query: string;
  total: number;
  start: number;
  hits: Hit[];
  facets?: Facets;
  elapsedMs: number;
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
    // hitsPerSite counts by the dedup field, after the merge.
    const keyOf = dedupKey(opts.dedupField);
    const { shown, hidden } = collapse(candidates, perSite, keyOf);
    const page = shown.slice(start, start + want);
    const hits: Hit[] = page.map((r) => ({
      url: r.url, digest: r.digest, title: r.title, dates: [...new Set(r.dates.split(' ').filter(Boolean))].sort(), mime: r.mime, status: r.status,
      length: r.length, collection: r.collection, segment: r.segment, file: r.file, location: r.location, offset: r.offset, clen: r.clen,
      host: r.host, score: -r.rank, snippet: opts.snippets === false ? { text: '', marks: [] } : snippetOf(r.set.text(r.id), q.highlight), set: r.set.set.name, doc: r.id, moreFromSite: 0,
    }));
    markMore(hits, hidden, keyOf);
    const facets = opts.facets ? sumFacets(this.sets.map((s) => s.facets(q))) : undefined;
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

