/**
 * The shard front (`nwax serve --shards URL,...`): a query goes to every backend `nwax serve`
 * at once (undici, a timeout per backend), their hits are merged by score, hits per site are
 * applied *after* the merge (a site never shows more than N hits however many shards hold it),
 * totals summed; a backend that does not answer is named in the result (partial results, not
 * an error page). A hit's set is prefixed with its shard's number, so `/stored` on the front
 * reaches the backend that holds the document.
 */
import { Agent, request } from 'undici';
import { SHARD_KEY_HEADER } from './shard-trust.js';
import type { Facets, Hit, LocalStats, SearchOptions, SearchResult, ShardCandidate, SharedStats } from '../search/types.js';
import { parseQuery } from '../search/query.js';
import { compareCandidates } from '../search/word-search.js';
import { rerankBasis } from '../search/ranking.js';
import { MAX_SCORED } from '../search/types.js';
import { collapse, dedupKey, markMore, mergeVersions, searchResult, sumFacets } from '../search/collapse.js';

export interface ShardResult extends SearchResult {
  /** Backends that did not answer (URL and why). */
  failed: string[];
  /** Each answering backend's URL, its number (a hit's set is prefixed `N~`) and the digest of the access rules it answered under. */
  rulesOf: { backend: string; shard: number; access: string | undefined }[];
  /** Whether the query asks the text index for words (to find, or to leave out): the anchors of a page are among them. */
  byWords: boolean;
}

interface BackendJson {
  /** The digest of the access rules the backend answered under ('none': none; absent: an nwax before it said). */
  access?: string;
  total: number;
  totalExact?: boolean;
  rankedAmong?: number;
  timeBudgetExceeded?: boolean;
  facets?: Facets;
  hits: (Hit & { replay?: unknown })[];
}

export class ShardSearcher {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 16 });

  /** `userHeader`: the header that names a request's user class to the backends (nwax.access.user.header; they trust this front's address). */
  /** `key`: the shard key a backend asks of its front (nwax.serve.shard.key), sent with every request. */
  constructor(
    readonly backends: string[],
    private readonly timeout: number,
    private readonly userHeader = 'x-pywb-acl-user',
    private readonly key = '',
  ) {}

  /** The headers of a request to a backend: the shard key, and the user class where there is one. */
  userHeaders(user: string | undefined): Record<string, string> {
    return { ...(this.key ? { [SHARD_KEY_HEADER]: this.key } : {}), ...(user ? { [this.userHeader]: user } : {}) };
  }

  /** A backend's JSON answer to a GET; its 400 is the query's error (the front reports it). */
  private async get<T>(backend: string, path: string, params: URLSearchParams, user?: string): Promise<T> {
    const res = await request(`${backend}${path}?${params}`, {
      dispatcher: this.agent,
      headersTimeout: this.timeout,
      bodyTimeout: this.timeout,
      headers: this.userHeaders(user),
    });
    if (res.statusCode === 400) {
      const body = (await res.body.json()) as { error: string };
      throw Object.assign(new Error(body.error), { code: 'NWAX_QUERY' });
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`HTTP ${res.statusCode}`);
    }
    return (await res.body.json()) as T;
  }

  /**
   * The collection's statistics for a word query, and its candidates' cut and basis, from the
   * backends that answer (dfs_query_then_fetch: shard-protocol.ts), so that each backend
   * scores, caps and re-ranks its share as one index holding every shard would. Returns the
   * backends still answering; `fail` is told of the others.
   */
  private async collection(
    backends: number[],
    user: string | undefined,
    query: string,
    opts: SearchOptions,
    candidates: number,
    fail: (backend: number, reason: unknown) => void,
  ): Promise<{ live: number[]; shared?: SharedStats; cut?: SearchOptions['cut'] }> {
    const cap = Math.max(1, opts.maxScored ?? MAX_SCORED);
    // Each step asks the backends still answering; one that fails a step is left out of the rest.
    let live = backends;
    const step = async <T>(ask: (b: number) => Promise<T>): Promise<T[]> => {
      const settled = await Promise.allSettled(live.map(ask));
      settled.forEach((a, k) => a.status === 'rejected' && fail(live[k], a.reason));
      const ok = settled.flatMap((a, k) => (a.status === 'fulfilled' ? [{ b: live[k], v: a.value }] : []));
      live = ok.map((x) => x.b);
      return ok.map((x) => x.v);
    };
    const statsOf = (keys: boolean) => (b: number) =>
      this.get<LocalStats | null>(this.backends[b], '/api/shard/stats', new URLSearchParams({ query, cap: String(cap), ...(keys ? { keys: '1' } : {}) }), user);
    const local = (await step(statsOf(false))).filter((x): x is LocalStats => x !== null);
    if (local.length === 0) return { live };
    const hits: Record<string, number> = {};
    for (const l of local) for (const [text, n] of Object.entries(l.hits)) hits[text] = (hits[text] ?? 0) + n;
    const sum = (f: (l: LocalStats) => number) => local.reduce((n, l) => n + f(l), 0);
    const shared: SharedStats = { rows: sum((l) => l.rows), tokens: sum((l) => l.tokens), hits, counted: sum((l) => l.counted), cap, candidates };
    if (shared.counted > cap && !opts.exact && live.length > 1) {
      // Capped: the pool is the collection's first `cap` matches in key order (and its tier's).
      const keyed = (await step(statsOf(true))).filter((x): x is LocalStats => x !== null);
      const upTo = (lists: string[][]) => {
        const all = lists.flat().sort();
        return all.length >= cap ? all[cap - 1] : undefined;
      };
      shared.headUpTo = upTo(keyed.map((k) => k.head ?? []));
      shared.tierUpTo = upTo(keyed.map((k) => k.tier ?? []));
    }
    const params = new URLSearchParams({ query, shared: JSON.stringify(shared), ...(opts.exact ? { exact: 'true' } : {}) });
    const all = (await step((b) => this.get<ShardCandidate[]>(this.backends[b], '/api/shard/candidates', params, user))).flat();
    all.sort(compareCandidates);
    all.length = Math.min(all.length, candidates);
    if (all.length === 0) return { live, shared };
    const last = all[all.length - 1];
    return { live, shared, cut: { last: [last.rank, last.url, last.digest], basis: rerankBasis(all) } };
  }

  private async ask(backend: string, user: string | undefined, query: string, hits: number, opts: SearchOptions): Promise<BackendJson> {
    const params = new URLSearchParams({
      query,
      start: '0',
      hitsPerPage: String(hits),
      hitsPerSite: '0',
      ...(opts.facets ? { facets: '1' } : {}),
      ...(opts.share ? { share: '1' } : {}),
      ...(opts.sort && opts.sort !== 'score' ? { sort: opts.sort } : {}),
      ...(opts.reverse ? { reverse: 'true' } : {}),
      ...(opts.exact ? { exact: 'true' } : {}),
      ...(opts.shared ? { shared: JSON.stringify(opts.shared) } : {}),
      ...(opts.cut ? { cut: JSON.stringify(opts.cut) } : {}),
    });
    return this.get<BackendJson>(backend, '/api/search', params, user);
  }

  /** A query over the backends, each answering from user class `user`'s view (its header names the class). */
  async search(user: string | undefined, query: string, opts: SearchOptions = {}): Promise<ShardResult> {
    const t0 = performance.now();
    const q = parseQuery(query); // syntax errors are the front's to report, before any backend is asked
    const start = Math.max(0, opts.start ?? 0);
    const want = Math.max(1, opts.hits ?? 10);
    let perSite = Math.max(0, opts.hitsPerSite ?? 0);
    const need = Math.min(100, (start + want) * (perSite ? 5 : 1));
    const failed: string[] = [];
    const fail = (i: number, reason: unknown) => {
      const err = reason as Error & { code?: string };
      if (err.code === 'NWAX_QUERY') throw err;
      failed.push(`${this.backends[i]} (${err.code ?? err.message})`);
    };
    // A word query ranked by score: the backends that answer their statistics are the collection.
    let live = this.backends.map((_, i) => i);
    let collection: Pick<SearchOptions, 'shared' | 'cut'> = {};
    const words = q.must.length + q.title.length > 0 && opts.sort !== 'date' && opts.sort !== 'url';
    if (words) {
      // The candidates the searcher takes for this page (searcher.ts).
      const candidates = Math.max(Math.min(5000, (start + want) * (perSite ? 10 : 1)) * 3, 100);
      const { live: still, ...shared } = await this.collection(live, user, query, opts, candidates, fail);
      live = still;
      collection = shared;
    }
    const asked = { ...opts, ...collection };
    const settled = await Promise.allSettled(live.map((i) => this.ask(this.backends[i], user, query, need, asked)));
    let total = 0;
    let totalExact = true;
    let rankedAmong: number | undefined;
    let partial = false;
    const all: Hit[] = [];
    const rulesOf: ShardResult['rulesOf'] = [];
    // With the collection's statistics each backend's total is the collection's, less the
    // versions it merged among its own candidates.
    const whole = collection.shared ? Math.min(collection.shared.counted, collection.shared.cap) : undefined;
    if (whole !== undefined) total = whole;
    // (Backends left out while the statistics were gathered are named in `failed` already.)
    settled.forEach((a, k) => {
      const i = live[k];
      if (a.status === 'rejected') {
        fail(i, a.reason);
        return;
      }
      total += whole !== undefined ? a.value.total - whole : a.value.total;
      if (a.value.totalExact === false) totalExact = false;
      if (a.value.rankedAmong !== undefined) rankedAmong = (rankedAmong ?? 0) + a.value.rankedAmong;
      if (a.value.timeBudgetExceeded) partial = true;
      rulesOf.push({ backend: this.backends[i], shard: i, access: a.value.access });
      for (const h of a.value.hits) {
        const { replay: _replay, ...hit } = h;
        all.push({ ...hit, set: `${i}~${hit.set}`, moreFromSite: 0 });
      }
    });
    // The backends' order, kept across them: by score, or by the field asked for.
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const sign = opts.reverse ? -1 : 1;
    if (opts.sort === 'date' || opts.sort === 'url') {
      const field = opts.sort === 'date' ? (h: Hit) => h.dates[0] ?? '' : (h: Hit) => h.url;
      all.sort((a, b) => sign * (cmp(field(a), field(b)) || cmp(a.url, b.url)) || cmp(a.digest, b.digest));
    } else {
      all.sort((a, b) => sign * (b.score - a.score || cmp(a.url, b.url) || cmp(a.digest, b.digest)));
    }
    // A default hitsPerSite collapses only where there is more than one site to show.
    if (opts.hitsPerSiteDefault && perSite > 0 && (q.site.length > 0 || new Set(all.map((h) => h.host)).size <= 1)) perSite = 0;
    const keyOf = dedupKey(opts.dedupField);
    const versions = mergeVersions(all);
    total -= all.length - versions.length;
    const { shown, hidden } = collapse(versions, perSite, keyOf);
    const hits = shown.slice(start, start + want);
    markMore(hits, hidden, keyOf);
    const facets = opts.facets ? sumFacets(settled.map((a) => (a.status === 'fulfilled' ? a.value.facets : undefined))) : undefined;
    const byWords = q.must.length + q.title.length + q.not.length > 0;
    return { ...searchResult(query, start, hits, { total, totalExact, rankedAmong, partial, facets, t0 }), failed, rulesOf, byWords };
  }

  /** The backend URL of a front-side stored reference `SHARD~SET/DOC`. */
  storedUrl(set: string, doc: number): string | undefined {
    const m = /^(\d+)~(.+)$/.exec(set);
    const backend = m ? this.backends[Number(m[1])] : undefined;
    return backend ? `${backend}/stored/${encodeURIComponent(m![2])}/${doc}` : undefined;
  }

  async documents(): Promise<{ documents: number; failed: string[] }> {
    let documents = 0;
    const failed: string[] = [];
    await Promise.all(
      this.backends.map(async (b) => {
        try {
          const res = await request(`${b}/healthz`, {
            dispatcher: this.agent,
            headersTimeout: this.timeout,
            bodyTimeout: this.timeout,
            headers: this.userHeaders(undefined),
          });
          documents += ((await res.body.json()) as { documents: number }).documents;
        } catch (err) {
          failed.push(`${b} (${(err as { code?: string }).code ?? (err as Error).message})`);
        }
      }),
    );
    return { documents, failed };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
