/**
 * The searcher: a query over every index set under its directory (open-set.ts opens one). A
 * word query is ranked over all sets together as one collection (word-search.ts: the
 * collection's statistics, cap and candidates; ranking.ts re-ranks them); other queries ask
 * each set for its best by boost or by a stored field, merged. Hits per site are collapsed
 * *after* the merge, so that a site never shows more than N hits however many partitions hold
 * it. A date filter matches a version when any of its capture dates is in range.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findIndexSets, type IndexSet } from './index-sets.js';
import { parseQuery, words } from './query.js';
import { compileQuery, type QueryPlan } from './query-plan.js';
import type { Hit, LocalStats, ReloadResult, SearchOptions, SearchResult, ShardCandidate, ShownCapture, StoredRef, VersionParse } from './types.js';
import { OpenSet } from './open-set.js';
import type { WordPlan } from './set-word-query.js';
import type { FieldOrder, RankLimits, Row } from './types.js';
import { collapse, dedupKey, duplicateVersions, markMore, mergeVersions, searchResult, showsAtLeast, sumFacets } from './collapse.js';
import { addNearness } from './near-bonus.js';
import { DEFAULT_WEIGHTS, marked, rerank } from './ranking.js';
import { compareCandidates, localStats, searchWords, type WordResult } from './word-search.js';
import { captureFieldsOf, datesOf, firstDate, mergeDates } from '../index/document.js';
import { AccessPolicy, type AccessSettings } from '../access/policy.js';
import { SegmentTexts } from '../segment/segment-texts.js';
import { parts } from '../mapreduce/dataset.js';
import { RecordFileReader } from '../mapreduce/record-file-reader.js';
import { anchorTargets } from './anchor-sources.js';
import type { CollectionView } from './collection-view.js';

/** The identity of the files of a set (inode and change time): a swapped-in file has another. */
function stamp(set: IndexSet): string {
  return [set.main, set.dates]
    .filter((f): f is string => f !== undefined)
    .map((f) => {
      try {
        const st = statSync(f);
        return `${st.ino}:${st.mtimeMs}`;
      } catch {
        return 'gone';
      }
    })
    .join(' ');
}

/** Answers kept for repeated queries (per searcher: one per search worker). */
const CACHE_ENTRIES = 256;

export class Searcher {
  private sets: OpenSet[];
  private stamps: string[];
  private checked = 0;
  /** Rises by one each time the sets served change (a new, replaced or removed set). */
  generation = 1;
  /** When the sets last changed (ms since the epoch). */
  lastReload = Date.now();
  /** The last error of each set that failed to open, so each is logged once. */
  private readonly failed = new Map<string, string>();

  /** The texts of the documents (snippets, heads), read from the segments with one cache of blocks. */
  private readonly texts: SegmentTexts;
  /** The segments' outlinks (crawl_parse), read for the pages the rules withhold (anchor-sources.ts). */
  private readonly crawlParse: SegmentTexts;
  /** The versions' parse_data (titles and outlinks), for comparisons of versions. */
  private readonly parseData: SegmentTexts;
  /** The LinkDb's parts beside the indexes (DIR/linkdb), opened at the first lookup of a generation; [] where there is none. */
  private linkDb: { generation: number; parts: RecordFileReader[] } | undefined;

  /** The access rules applied to every answer; none where no property asks for any. */
  readonly access: AccessPolicy | undefined;
  /** The rules' generation and epoch the public's views were last built for (refresh). */
  private warmedFor = '';

  /**
   * `opts.rulesAtReload`: the access rules are read again only when told to (refresh(true): a
   * search worker, told by the service when it has seen them change), not as queries come.
   */
  constructor(
    readonly dir: string,
    private readonly log: (message: string) => void = () => {},
    access?: AccessSettings | AccessPolicy,
    private readonly opts: { rulesAtReload?: boolean } = {},
  ) {
    this.access = access instanceof AccessPolicy ? access : access ? new AccessPolicy(access, log) : undefined;
    // Nutch's searcher.dir holds the segments beside the indexes: the texts of hits are read there.
    this.texts = new SegmentTexts([join(dir, 'segments')]);
    this.crawlParse = new SegmentTexts([join(dir, 'segments')], 'crawl_parse');
    this.parseData = new SegmentTexts([join(dir, 'segments')], 'parse_data');
    this.sets = findIndexSets(dir).map((s) => new OpenSet(s, this.texts));
    this.stamps = this.sets.map((s) => stamp(s.set));
  }

  /** The rules' generation and, where they move with the clock, the hour: what the sets' views and the cached answers are valid for. */
  private accessEpoch(): string {
    const a = this.access;
    return a?.active ? `${a.generation}/${a.rules.epoch()}` : '';
  }

  /** Every set answers the next calls for this user class under the rules in force. */
  private scope(user: string | undefined): void {
    const a = this.access;
    const rules = a?.active ? a.rules : undefined;
    for (const s of this.sets) s.access.use(rules, this.accessEpoch(), user);
    if (rules) this.withholdAnchors(user);
  }

  /** The classes told already that no anchor text is matched for them, and why (logged once a reason). */
  private readonly anchorsSaid = new Map<string, string>();

  /**
   * The documents the current views match without their anchor text: those the pages they
   * withhold link to (anchor-sources.ts), worked out once a class, rules generation and set of
   * index sets (a withheld page in one set may give anchors to a page in another).
   */
  private withholdAnchors(user: string | undefined): void {
    const of = `${this.generation} ${this.accessEpoch()}`;
    if (this.sets.every((s) => s.access.anchorlessFor() === of)) return;
    const t = anchorTargets(this.sets, this.crawlParse, this.dir, this.access!.rules, user);
    if ('unread' in t) {
      const cls = user ?? '';
      if (this.anchorsSaid.get(cls) !== t.unread) this.log(`access: ${t.unread}: no anchor text is matched for ${user ? `user class ${user}` : 'the public'}`);
      this.anchorsSaid.set(cls, t.unread);
      for (const s of this.sets) s.access.setAnchorless(of, 'all');
      return;
    }
    for (const s of this.sets) s.access.setAnchorless(of, t.urls.size ? s.linkedDocuments(t.urls) : []);
  }

  /**
   * Looks for new, replaced and removed index sets under the directory (at most once a second
   * unless `force`): a set whose files were swapped (add-dates renames a new dates index into
   * place; an index run renames its dataset) or that appeared is opened beside the old ones, and
   * the list of sets switches at once, between two queries, so a query sees the old sets or the
   * new ones, never a mix. A new set that does not open (damaged, half-written) is not served;
   * the set it would replace serves on; either is logged once. Where the access rules or the
   * sets changed (or the hour, for rules that move with the clock), the public's views are
   * built now, between queries, not by the first query after the change.
   */
  refresh(force = false): ReloadResult {
    const r = this.look(force);
    const epoch = `${this.generation} ${this.accessEpoch()}`;
    if (!this.access?.active || epoch === this.warmedFor) return r;
    this.warmedFor = epoch;
    this.scope(undefined);
    return { ...r, changed: true };
  }

  private look(force: boolean): ReloadResult {
    const now = Date.now();
    const errors = () => [...this.failed.values(), ...(this.access?.errors ?? [])];
    if (!force && now - this.checked < 1000) return { changed: false, generation: this.generation, errors: errors() };
    this.checked = now;
    // Changed access rules make every answer after this one new (the cache is by generation).
    const rules = force || !this.opts.rulesAtReload ? this.access?.reload() : undefined;
    if (rules?.changed) {
      this.generation++;
      this.lastReload = now;
      this.log(`access rules generation ${this.access!.generation}`);
    }
    let found: IndexSet[];
    try {
      found = findIndexSets(this.dir);
    } catch (err) {
      // Mid-swap (a dataset renamed aside) or emptied: serve what is open until it settles.
      this.fail(this.dir, `${(err as Error).message}; the open indexes serve on`);
      return { changed: rules?.changed ?? false, generation: this.generation, errors: errors() };
    }
    this.failed.delete(this.dir);
    const old = new Map(this.sets.map((s, i) => [s.set.name, { open: s, stamp: this.stamps[i] }]));
    const sets: OpenSet[] = [];
    const stamps: string[] = [];
    let changed = false;
    for (const set of found) {
      const st = stamp(set);
      const before = old.get(set.name);
      const same = before && before.stamp === st && before.open.set.main === set.main && before.open.set.dates === set.dates;
      if (same) {
        sets.push(before.open);
        stamps.push(st);
        old.delete(set.name);
        continue;
      }
      try {
        sets.push(new OpenSet(set, this.texts));
        stamps.push(st);
        changed = true;
        this.failed.delete(set.name);
      } catch (err) {
        this.fail(set.name, `index set ${set.name}: ${(err as Error).message}; ${before ? 'the open one serves on' : 'not served'}`);
        if (before) {
          sets.push(before.open);
          stamps.push(before.stamp);
          old.delete(set.name);
        }
      }
    }
    // Replaced and removed sets: no query is running on this thread, so they close now.
    if (old.size > 0) changed = true;
    if (!changed) return { changed: rules?.changed ?? false, generation: this.generation, errors: errors() };
    this.sets = sets;
    this.stamps = stamps;
    this.generation++;
    this.lastReload = now;
    for (const { open } of old.values()) open.close();
    this.log(`index generation ${this.generation}: ${sets.map((s) => s.set.name).join(', ')}`);
    return { changed: true, generation: this.generation, errors: errors() };
  }

  private fail(key: string, message: string): void {
    if (this.failed.get(key) === message) return;
    this.failed.set(key, message);
    this.log(`reload: ${message}`);
  }

  /**
   * The collection as user class `user` may see it (undefined: the public): the only way to
   * read it. Each call of the view applies the rules for its class; nothing else reads the sets.
   */
  view(user?: string): CollectionView {
    return {
      user,
      search: (query, opts = {}) => this.search(user, query, opts),
      shardStats: (query, cap, keys) => this.shardStats(user, query, cap, keys),
      shardCandidates: (query, opts) => this.shardCandidates(user, query, opts),
      stored: (set, doc) => this.stored(user, set, doc),
      versionParse: (set, doc) => this.versionParse(user, set, doc),
      linkedFrom: (url, max) => this.linkedFrom(user, url, max),
      allDocuments: () => this.allDocuments(user),
      matchingDocuments: (query) => this.matchingDocuments(user, query),
      textJson: (set, row) => this.textJson(user, set, row),
      setCounts: () => this.setCounts(user),
      documents: () => this.setCounts(user).reduce((n, s) => n + s.documents, 0),
      suggestionSource: (titles) => this.suggestionSource(user, titles),
    };
  }

  /** The sets served now, with the documents `user` may see in each. */
  private setCounts(user: string | undefined): { name: string; documents: number }[] {
    this.scope(user);
    return this.sets.map((s) => ({ name: s.set.name, documents: s.count - s.access.withheldCount() }));
  }

  /**
   * Recent answers, by query, options and index generation (a reload makes them stale by
   * itself): a popular query, a page reloaded, the next page asked twice cost a lookup.
   */
  private readonly cache = new Map<string, SearchResult>();

  private search(user: string | undefined, query: string, opts: SearchOptions): SearchResult {
    const t0 = performance.now();
    this.refresh();
    if (opts.cache === false) return this.reading(() => this.searchUncached(user, query, opts, t0));
    const key = `${this.generation}\u0000${this.accessEpoch()}\u0000${user ?? ''}\u0000${query}\u0000${JSON.stringify(opts)}`;
    const hit = this.cache.get(key);
    if (hit) {
      // Most recently used last: the first key is the one to drop.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return { ...hit, elapsedMs: performance.now() - t0 };
    }
    const result = this.reading(() => this.searchUncached(user, query, opts, t0));
    // A partial answer (the time budget ran out) is not kept: the next asking may do better.
    if (result.partial) return result;
    this.cache.set(key, result);
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return result;
  }

  /**
   * `fn` in one read transaction on every set. Outside one, SQLite takes and drops the file's
   * lock and reads its header again for each statement (13 us a statement against 0.5 inside
   * one: the most of a small collection's query, which runs dozens); inside, a query also reads
   * one state of each index. Committed, not rolled back: an access view made meanwhile (temp
   * tables) is kept.
   */
  private reading<T>(fn: () => T): T {
    const begun = this.sets.filter((s) => !s.db.inTransaction);
    for (const s of begun) s.db.exec('BEGIN');
    try {
      return fn();
    } finally {
      for (const s of begun) if (s.db.inTransaction) s.db.exec('COMMIT');
    }
  }

  private searchUncached(user: string | undefined, query: string, opts: SearchOptions, t0: number): SearchResult {
    const generation = this.generation;
    this.scope(user);
    // Compiled once: every set runs the same plan.
    const plan = compileQuery(parseQuery(query));
    const { q } = plan;
    const start = Math.max(0, opts.start ?? 0);
    const want = Math.max(1, opts.hits ?? 10);
    let perSite = Math.max(0, opts.hitsPerSite ?? 0);
    // The words the text score is for (the title feature compares them with each title).
    // (A Korean word typed with a particle compares as its noun, which titles hold in any form.)
    const ftsWords = [...new Set([...q.must.map((ws) => q.stems[ws.join(' ')] ?? ws), ...q.title].flat())];
    const order: FieldOrder | undefined = opts.sort === 'date' || opts.sort === 'url' ? { field: opts.sort, desc: opts.reverse === true } : undefined;
    // Enough candidates from each set for this page after collapsing.
    const limit = Math.min(5000, (start + want) * (perSite ? 10 : 1));
    let total = 0;
    let totalExact = true;
    let rankedAmong: number | undefined;
    let partial = false;
    const budget = opts.budgetMs ?? 1000;
    const limits = { exact: opts.exact === true, maxScored: opts.maxScored, deadline: budget > 0 ? t0 + budget : undefined };
    let candidates: (Row & { set: OpenSet })[] = [];
    const words = order ? undefined : this.wordCandidates(plan, opts, limit, limits);
    if (words) {
      ({ total, rankedAmong } = words);
      totalExact = !words.capped;
      partial = words.partial === true;
      candidates = words.rows;
      // One shard's share of the collection's candidates (shards.ts): those within its cut.
      const cut = opts.cut;
      if (cut) candidates = candidates.filter((c) => compareCandidates(c, { rank: cut.last[0], url: cut.last[1], digest: cut.last[2] }) <= 0);
    } else
      for (const s of this.sets) {
        const r = s.search(plan, limit, order, limits);
        total += r.total;
        if (r.capped) totalExact = false;
        if (r.rankedAmong !== undefined) rankedAmong = (rankedAmong ?? 0) + r.rankedAmong;
        if (r.partial) partial = true;
        for (const row of r.rows) candidates.push({ ...row, set: s });
      }
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    // A default hitsPerSite collapses only where there is more than one site to show.
    if (opts.hitsPerSiteDefault && perSite > 0 && (q.site.length > 0 || new Set(candidates.map((c) => c.host)).size <= 1)) perSite = 0;
    // hitsPerSite counts by the dedup field, after the merge.
    const keyOf = dedupKey(opts.dedupField);
    const final = (a: Row, b: Row) => a.rank - b.rank || cmp(a.url, b.url) || cmp(a.dates, b.dates);
    if (order) {
      const field = order.field === 'date' ? (r: Row) => firstDate(r.dates) : (r: Row) => r.url;
      const sign = order.desc ? -1 : 1;
      candidates.sort((a, b) => sign * (cmp(field(a), field(b)) || cmp(a.url, b.url)) || cmp(a.digest, b.digest));
    } else {
      if (ftsWords.length) {
        // Words typed with marks are compared in their exact form with the head of each text.
        if (marked(q.exact).length) for (const c of candidates) (c as { head?: string }).head = c.set.head(c.id);
        const weights = opts.ranking ?? DEFAULT_WEIGHTS;
        const best = rerank(candidates, ftsWords, weights, q.exact, opts.cut?.basis);
        if (words?.near && weights.near > 0) {
          // The page is the first candidates, or (reversed) the last: every one is asked then.
          const k = opts.reverse ? candidates.length : limit + duplicateVersions(candidates);
          const filled = perSite && !opts.reverse ? (settled: Row[]) => showsAtLeast([...settled].sort(final), start + want, perSite, keyOf) : undefined;
          addNearness(candidates, words.near, best * weights.near, k, filled);
        }
      }
      candidates.sort(final);
      if (opts.reverse) candidates.reverse();
    }
    // One hit per version over all sets; the total counts a version once where its copies were
    // among the candidates (exact whenever every match was: up to 100 per set and more).
    const versions = mergeVersions(candidates);
    total -= candidates.length - versions.length;
    const { shown, hidden } = collapse(versions, perSite, keyOf);
    const page = shown.slice(start, start + want);
    const hits: Hit[] = page.map((r) => {
      const snippets = opts.snippets !== false;
      // The text and the language lie at the end of the row: read together, once.
      // The snippet shows the passage that scored (proximity.ts) where the ranking found one.
      const tail = snippets
        ? r.set.snippetAndLang(r.id, q.highlight, r.passage ?? (r.near ? q.must.map((ws) => q.stems[ws.join(' ')] ?? ws) : undefined))
        : r.lang === undefined
          ? r.set.textAndLang(r.id, false)
          : undefined;
      return {
        url: r.url,
        digest: r.digest,
        title: r.title,
        dates: mergeDates(datesOf(r.dates)),
        ...captureFieldsOf(r),
        host: r.host,
        lang: r.lang ?? tail?.lang ?? '',
        score: -r.rank,
        snippet: tail && 'snippet' in tail ? tail.snippet : { text: '', marks: [] },
        set: r.set.set.name,
        doc: r.id,
        moreFromSite: 0,
      };
    });
    markMore(hits, hidden, keyOf);
    const facets = opts.facets ? sumFacets(this.sets.map((s) => s.facets(plan, limits, opts.share))) : undefined;
    return { ...searchResult(query, start, hits, { total, totalExact, rankedAmong, partial, facets, t0 }), generation };
  }

  /** A word query's candidates over every set, ranked as one collection (word-search.ts); undefined for a query without words. */
  private wordCandidates(plan: QueryPlan, opts: SearchOptions, limit: number, limits: RankLimits): WordResult | undefined {
    const plans = this.sets.map((s) => s.wordPlan(plan));
    if (plans.length === 0 || plans.some((p) => p === undefined)) return undefined;
    return searchWords(this.sets, plans as WordPlan[], Math.max(limit * 3, 100), limits, opts.shared);
  }

  /**
   * A backend's share of a word query's statistics, for its shard front (shards.ts): its
   * documents and tokens, each phrase's documents, its matches counted to the cap and one
   * more, and with `keys` the keys of its first matches (the capped pool). Undefined for a
   * query without words.
   */
  private shardStats(user: string | undefined, query: string, cap: number, keys: boolean): LocalStats | undefined {
    this.refresh();
    return this.reading(() => {
      this.scope(user);
      const plan = compileQuery(parseQuery(query));
      const plans = this.sets.map((s) => s.wordPlan(plan));
      if (plans.length === 0 || plans.some((p) => p === undefined)) return undefined;
      return localStats(this.sets, plans as WordPlan[], cap, keys);
    });
  }

  /** A backend's word candidates scored with the collection's statistics (`opts.shared`), as its front needs them to cut and re-rank. */
  private shardCandidates(user: string | undefined, query: string, opts: SearchOptions): ShardCandidate[] {
    this.refresh();
    const r = this.reading(() => {
      this.scope(user);
      // The front's basis is the best text score and the titles' lengths: no proximity asked.
      return this.wordCandidates(compileQuery(parseQuery(query)), opts, 0, { exact: opts.exact === true });
    });
    return (r?.rows ?? []).map((c) => ({ rank: c.rank, url: c.url, digest: c.digest, titleTerms: words(c.title ?? '').length, titled: !!c.title }));
  }

  /**
   * Where the stored copy of document `doc` of set `set` is; `blocked` where the access rules
   * block it for `user` (451), undefined where there is none or they exclude it (404).
   */
  private stored(user: string | undefined, set: string, doc: number): StoredRef | ShownCapture | 'blocked' | undefined {
    this.scope(user);
    const s = this.sets.find((x) => x.set.name === set);
    if (s?.access.withheld(doc) === 1) return 'blocked';
    return s?.ref(doc) ?? s?.shownCapture(doc);
  }

  /** A version's text, title and links where `user` may see it (stored()'s decision: blocked, or absent where excluded). */
  private versionParse(user: string | undefined, set: string, doc: number): VersionParse | 'blocked' | undefined {
    this.scope(user);
    const s = this.sets.find((x) => x.set.name === set);
    const withheld = s?.access.withheld(doc);
    if (withheld === 1) return 'blocked';
    return s && !withheld ? s.versionParse(this.parseData, doc) : undefined;
  }

  /**
   * Up to `max` pages that link to `url` or show it (an image: its inlinks in the LinkDb), of
   * those `user` may see: each named by a version the view shows, so a withheld page is never
   * named, whatever the LinkDb holds.
   */
  private linkedFrom(user: string | undefined, url: string, max: number): { url: string; title: string }[] {
    this.refresh();
    if (this.linkDb?.generation !== this.generation) {
      const at = join(this.dir, 'linkdb');
      this.linkDb = { generation: this.generation, parts: existsSync(at) ? parts(at).map((p) => new RecordFileReader(p)) : [] };
    }
    const from = new Set<string>();
    for (const part of this.linkDb.parts) {
      // The LinkDb's value as invertlinks writes it: { inlinks: [{ from, anchor }] }.
      const v = part.valueOf(url) as { inlinks?: { from: string }[] } | undefined;
      for (const l of v?.inlinks ?? []) from.add(l.from);
    }
    const out: { url: string; title: string }[] = [];
    // One class for every page asked (shownTitle reads nothing that changes it).
    this.scope(user);
    for (const page of from) {
      for (const s of this.sets) {
        const title = s.shownTitle(page);
        if (title === undefined) continue;
        out.push({ url: page, title });
        break;
      }
      if (out.length >= max) break;
    }
    return out;
  }

  /** Every document of every set `user` may see, with its set's name (an export of the whole collection). */
  private *allDocuments(user: string | undefined): Generator<Row & { setName: string }> {
    for (const s of this.sets) {
      // The class is read once, when the set's statement is made (its first batch).
      this.scope(user);
      for (const d of s.documents()) yield { ...d, setName: s.set.name };
    }
  }

  /** Every version a query finds (no ranking, no cap: an export), a thousand rows at a time, with its set's name. */
  private *matchingDocuments(user: string | undefined, query: string): Generator<Row & { setName: string }> {
    const plan = compileQuery(parseQuery(query));
    for (const s of this.sets) {
      this.scope(user);
      const ids = s.matchIds(plan);
      for (let i = 0; i < ids.length; i += 1000) {
        // Between two batches another view may have been used: this one's class again.
        this.scope(user);
        for (const d of s.rowsOf(ids.slice(i, i + 1000))) yield { ...d, setName: s.set.name };
      }
    }
  }

  /**
   * A document's stored text as a JSON string, its bytes (undefined when not there): what a JSON
   * writer copies without decoding it. `row`: the document as allDocuments or matchingDocuments
   * gave it (its segment, URL and digest find the text with no second read of its row).
   */
  private textJson(user: string | undefined, set: string, row: Pick<Row, 'id' | 'segment' | 'url' | 'digest'>): Buffer | undefined {
    this.scope(user);
    const s = this.sets.find((x) => x.set.name === set);
    return s && !s.access.withheld(row.id) ? s.textJson(row.id, row) : undefined;
  }

  /** Site names and the titles of the best pages (by boost) `user` may see, for suggestions. */
  private *suggestionSource(user: string | undefined, titles: number): Generator<{ text: string; kind: 'site' | 'title' }> {
    this.scope(user);
    for (const s of this.sets) for (const host of s.hosts()) yield { text: host, kind: 'site' };
    for (const s of this.sets) for (const title of s.bestTitles(Math.ceil(titles / this.sets.length))) yield { text: title, kind: 'title' };
  }

  close(): void {
    for (const s of this.sets) s.close();
  }
}
