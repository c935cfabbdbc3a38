/**
 * What the service's routes search (server.ts): this machine's indexes (a searcher on this
 * thread for the light work, a pool of search workers for queries, reloaded on an interval),
 * the backends of a shard front (shards.ts), or nothing but a note where a /cdx service has no
 * indexes.
 */
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { Searcher } from '../search/searcher.js';
import type { Hit, LocalStats, ReloadResult, Row, SearchOptions, SearchResult, ShardCandidate, ShownCapture, VersionParse } from '../search/types.js';
import { ShardSearcher, type ShardResult } from './shards.js';
import { SearchPool } from './search-pool.js';
import { BadRequest } from './params.js';
import { sendStored } from './stored.js';
import { Thumbnails, type Thumbnail } from './thumbnail.js';
import { storedFromBackend } from './stored-from-backend.js';
import { Suggester, type Suggestion } from './suggest.js';
import type { ServiceState } from './observe.js';
import type { ServeOptions } from './serve-options.js';
import type { AccessPolicy } from '../access/policy.js';

/**
 * What the routes need: this machine's indexes, or the backends of a shard front. A route reads
 * the collection only through a view bound to the user class of its request (`view`); what the
 * backend answers otherwise (health, readiness, suggestions) is the public's.
 */
export interface Backend {
  view(user: string | undefined): BackendView;
  /** Looks for new, replaced and removed index sets; a shard front has none (its backends reload). */
  reload(): Promise<{ generation: number; errors: string[] }>;
  /** The sets served, with the documents the public may see in each. */
  state: ServiceState;
  /** Status and the documents the public may see. */
  health(): Promise<Record<string, unknown>>;
  /** Suggestions from what the public may see. */
  suggest(q: string): Promise<Suggestion[]>;
  close(): Promise<void>;
}

/** The collection as one user class may see it, for the routes (search/collection-view.ts behind it). */
export interface BackendView {
  search(query: string, opts: SearchOptions, signal?: AbortSignal): Promise<SearchResult & { failed?: string[] }>;
  /**
   * Streams the stored copy (`sent`); `none` when there is no such document (or the rules
   * exclude it), `blocked` when they block it; the capture to show instead where the rules
   * withhold the version's own record and show a later capture (the route sends it to replay).
   */
  stored(set: string, doc: number, res: ServerResponse): Promise<'sent' | 'none' | 'blocked' | ShownCapture>;
  /** A version's text, title and links, for /compare (`blocked`, or undefined where excluded or absent); none on a front. */
  versionParse?(set: string, doc: number): VersionParse | 'blocked' | undefined;
  /**
   * A capture's thumbnail (thumbnail.ts), or the placeholder of an image that has none; undefined
   * where thumbnails cannot be made here (the route sends the stored copy); otherwise as stored().
   * None on a front, whose route sends the stored copy, which its own rules decide on.
   */
  thumbnail?(set: string, doc: number): Promise<Thumbnail | undefined | 'none' | 'blocked' | ShownCapture>;
  /** Pages this class may see that link to `url` or show it (an image's pages); none on a front. */
  linkedFrom?(url: string, max: number): { url: string; title: string }[];
  /** Every version a query finds that the class may see, unranked (a CSV export); none on a front. */
  matching?(query: string): Iterable<Row>;
  /** A backend's side of the shard protocol (shard-protocol.ts); none on a front. */
  shard?: {
    stats(query: string, cap: number, keys: boolean): LocalStats | undefined;
    candidates(query: string, opts: SearchOptions): ShardCandidate[];
  };
}

export function localBackend(opts: ServeOptions, access?: AccessPolicy): Backend {
  // This thread keeps a searcher for the light work (stored copies, health, suggestions);
  // queries run on the pool's threads when there is one.
  const searcher = new Searcher(opts.dir, opts.log, access);
  const pub = searcher.view();
  // One cache of thumbnails for every class: it is asked only for captures the asker's view shows.
  const thumbnails = new Thumbnails(opts.thumbnailSize ?? 200, opts.thumbnailBytes ?? 16 * 1024 * 1024);
  let suggester = new Suggester(pub, opts.suggestTitles);
  const pool = opts.threads && opts.threads > 0 ? new SearchPool(opts.dir, opts.threads, opts.queryTimeout ?? 0, opts.access) : undefined;
  const reload = async (force: boolean) => {
    const here: ReloadResult = searcher.refresh(force);
    // Suggestions are made again from what is served now (a takedown's title goes with it).
    if (here.changed) suggester = new Suggester(pub, opts.suggestTitles);
    // The workers look for new sets themselves on their next query, for new rules when told:
    // told now when something changed.
    const workers = pool && (force || here.changed) ? await pool.reload() : [];
    const errors = [...new Set([...here.errors, ...workers.flatMap((w) => w.errors)])];
    return { generation: Math.max(here.generation, ...workers.map((w) => w.generation)), errors };
  };
  const timer = opts.reloadInterval
    ? setInterval(() => void reload(false).catch((err: Error) => opts.log?.(`reload: ${err.message}`)), opts.reloadInterval)
    : undefined;
  timer?.unref();
  return {
    view(user) {
      const view = searcher.view(user);
      return {
        search: async (q, o, signal) => (pool ? pool.search(user, q, o, signal) : view.search(q, o)),
        async stored(set, doc, res) {
          const ref = view.stored(set, doc);
          if (!ref || ref === 'blocked') return ref ? 'blocked' : 'none';
          if ('shown' in ref) return ref;
          await sendStored(ref, res);
          return 'sent';
        },
        matching: (q) => view.matchingDocuments(q),
        versionParse: (set, doc) => view.versionParse(set, doc),
        async thumbnail(set, doc) {
          const ref = view.stored(set, doc);
          if (!ref || ref === 'blocked') return ref ? 'blocked' : 'none';
          if ('shown' in ref) return ref;
          return thumbnails.of(ref);
        },
        linkedFrom: (url, max) => view.linkedFrom(url, max),
        shard: { stats: (q, cap, keys) => view.shardStats(q, cap, keys), candidates: (q, o) => view.shardCandidates(q, o) },
      };
    },
    reload: () => reload(true),
    state: {
      sets: () => pub.setCounts(),
      generation: () => searcher.generation,
      lastReload: () => searcher.lastReload,
      queued: () => pool?.queued ?? 0,
      timeouts: () => pool?.timeouts ?? 0,
      aborted: () => pool?.aborted ?? 0,
    },
    health: async () => ({ status: 'ok', documents: pub.documents() }),
    suggest: async (q) => suggester.suggest(q),
    close: async () => {
      clearInterval(timer);
      await pool?.close();
      searcher.close();
    },
  };
}

export const NO_STATE: ServiceState = { sets: () => [], generation: () => 0, lastReload: () => 0, queued: () => 0, timeouts: () => 0, aborted: () => 0 };

/** Backends already said to answer under other rules (said once each). */
const saidOtherRules = new Set<string>();

/**
 * A front's own rules over what its backends answer, whatever rules they apply (none, other,
 * older): each hit keeps the dates the class may see, loses the record fields of a withheld
 * first capture, and goes where it has none left; the total loses those that went. Totals and
 * facets beyond the page are the backends': where a backend answered under rules other than the
 * front's (its digest differs, or it names none), they may count what the front withholds, so
 * the answer has no facets and its total is what the front has seen (not exact), and the
 * backend is named in the log. A query of words takes no hit from such a backend at all (it is
 * named among the backends that failed): it may have matched a page by the anchor text a page
 * the front withholds gave it, which no hit shows (anchor-sources.ts).
 */
function enforced(r: ShardResult, policy: AccessPolicy, user: string | undefined, log?: (m: string) => void): ShardResult {
  const other = r.rulesOf.filter((b) => b.access !== policy.fingerprint);
  for (const b of other)
    if (!saidOtherRules.has(b.backend)) {
      saidOtherRules.add(b.backend);
      log?.(
        `shard ${b.backend} answers under other access rules (${b.access ?? 'unsaid'}, this front's ${policy.fingerprint}): its totals and facets are not shown, nor its hits for words`,
      );
    }
  const untrusted = new Set(r.byWords ? other.map((b) => `${b.shard}~`) : []);
  const hits: Hit[] = [];
  for (const h of r.hits) {
    if (untrusted.size && untrusted.has(h.set.slice(0, h.set.indexOf('~') + 1))) continue;
    const dates = h.dates.filter((d) => policy.decide(h.url, d, user).access === 'allow');
    if (dates.length === 0) continue;
    const own = dates[0] === h.dates[0];
    hits.push({ ...h, dates, ...(own ? {} : { file: null, location: null, offset: null, clen: null }) } as unknown as Hit);
  }
  const total = Math.max(hits.length, r.total - (r.hits.length - hits.length));
  if (other.length === 0) return { ...r, hits, total };
  const failed = r.byWords ? [...r.failed, ...other.map((b) => `${b.backend} (answers under other access rules)`)] : r.failed;
  return { ...r, hits, failed, total: r.start + hits.length, totalExact: false, facets: undefined };
}

export function shardBackend(opts: ServeOptions, policy?: AccessPolicy): Backend {
  const shards = new ShardSearcher(opts.shards!, opts.shardTimeout ?? 5000, opts.access?.userHeader, opts.shardKey);
  return {
    view: (user) => ({
      search: async (q, o) => {
        const r = await shards.search(user, q, o);
        return policy?.active ? enforced(r, policy, user, opts.log) : r;
      },
      stored: (set, doc, res) => storedFromBackend(shards, set, doc, res, user, policy),
    }),
    reload: async () => ({ generation: 0, errors: [] }),
    state: NO_STATE,
    async health() {
      const h = await shards.documents();
      return { status: h.failed.length ? 'partial' : 'ok', documents: h.documents, failedShards: h.failed };
    },
    async suggest(q) {
      // Suggestions are the public's (each backend builds them so).
      const all = await Promise.allSettled(
        opts.shards!.map(
          async (b) =>
            (await (
              await request(`${b}/suggest?q=${encodeURIComponent(q)}`, {
                headersTimeout: opts.shardTimeout,
                bodyTimeout: opts.shardTimeout,
                headers: shards.userHeaders(undefined),
              })
            ).body.json()) as Suggestion[],
        ),
      );
      const seen = new Set<string>();
      return all
        .flatMap((a) => (a.status === 'fulfilled' ? a.value : []))
        .filter((x) => !seen.has(`${x.kind} ${x.text}`) && seen.add(`${x.kind} ${x.text}`))
        .slice(0, 10);
    },
    close: () => shards.close(),
  };
}

/** A service for /cdx alone: without indexes, search says so instead of refusing to start. */
export function cdxOnlyWhenNoIndexes(opts: ServeOptions, access?: AccessPolicy): Backend {
  try {
    return localBackend(opts, access);
  } catch (err) {
    const why = (err as Error).message;
    return {
      view: () => ({
        search: async () => {
          throw new BadRequest(`no search here: ${why}; this service answers /cdx`);
        },
        stored: async () => 'none' as const,
      }),
      reload: async () => ({ generation: 0, errors: [] }),
      state: NO_STATE,
      health: async () => ({ status: 'ok', documents: 0, cdx: true }),
      suggest: async () => [],
      close: async () => {},
    };
  }
}
