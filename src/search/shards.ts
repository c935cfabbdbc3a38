/**
 * The shard front (`nwax serve --shards URL,...`): a query goes to every backend `nwax serve`
 * at once (undici, a timeout per backend), their hits are merged by score, hits per site are
 * applied *after* the merge (a site never shows more than N hits however many shards hold it),
 * totals summed; a backend that does not answer is named in the result (partial results, not
 * an error page). A hit's set is prefixed with its shard's number, so `/stored` on the front
 * reaches the backend that holds the document.
 */
import { Agent, request } from 'undici';
import type { Facets, Hit, SearchOptions, SearchResult } from './searcher.js';
import { parseQuery } from './query.js';
import { collapse, dedupKey, markMore, mergeVersions, sumFacets } from './collapse.js';

export interface ShardResult extends SearchResult {
  /** Backends that did not answer (URL and why). */
  failed: string[];
}

interface BackendJson {
  total: number;
  totalExact?: boolean;
  rankedAmong?: number;
  timeBudgetExceeded?: boolean;
  facets?: Facets;
  hits: (Hit & { replay?: unknown })[];
}

export class ShardSearcher {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 16 });

  constructor(
    readonly backends: string[],
    private readonly timeout: number,
  ) {}

  private async ask(backend: string, query: string, hits: number, opts: SearchOptions): Promise<BackendJson> {
    const params = new URLSearchParams({
      query,
      start: '0',
      hitsPerPage: String(hits),
      hitsPerSite: '0',
      ...(opts.facets ? { facets: '1' } : {}),
      ...(opts.sort && opts.sort !== 'score' ? { sort: opts.sort } : {}),
      ...(opts.reverse ? { reverse: 'true' } : {}),
      ...(opts.exact ? { exact: 'true' } : {}),
    });
    const res = await request(`${backend}/api/search?${params}`, { dispatcher: this.agent, headersTimeout: this.timeout, bodyTimeout: this.timeout });
    if (res.statusCode === 400) {
      const body = (await res.body.json()) as { error: string };
      throw Object.assign(new Error(body.error), { code: 'NWAX_QUERY' });
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`HTTP ${res.statusCode}`);
    }
    return (await res.body.json()) as BackendJson;
  }

  async search(query: string, opts: SearchOptions = {}): Promise<ShardResult> {
    const t0 = performance.now();
    parseQuery(query); // syntax errors are the front's to report, before any backend is asked
    const start = Math.max(0, opts.start ?? 0);
    const want = Math.max(1, opts.hits ?? 10);
    let perSite = Math.max(0, opts.hitsPerSite ?? 0);
    const need = Math.min(100, (start + want) * (perSite ? 5 : 1));
    const answers = await Promise.allSettled(this.backends.map((b) => this.ask(b, query, need, opts)));
    const failed: string[] = [];
    let total = 0;
    let totalExact = true;
    let rankedAmong: number | undefined;
    let partial = false;
    const all: Hit[] = [];
    answers.forEach((a, i) => {
      if (a.status === 'rejected') {
        const err = a.reason as Error & { code?: string };
        if (err.code === 'NWAX_QUERY') throw err;
        failed.push(`${this.backends[i]} (${err.code ?? err.message})`);
        return;
      }
      total += a.value.total;
      if (a.value.totalExact === false) totalExact = false;
      if (a.value.rankedAmong !== undefined) rankedAmong = (rankedAmong ?? 0) + a.value.rankedAmong;
      if (a.value.timeBudgetExceeded) partial = true;
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
    if (opts.hitsPerSiteDefault && perSite > 0 && (parseQuery(query).site.length > 0 || new Set(all.map((h) => h.host)).size <= 1)) perSite = 0;
    const keyOf = dedupKey(opts.dedupField);
    const versions = mergeVersions(all);
    total -= all.length - versions.length;
    const { shown, hidden } = collapse(versions, perSite, keyOf);
    const hits = shown.slice(start, start + want);
    markMore(hits, hidden, keyOf);
    const facets = opts.facets ? sumFacets(answers.map((a) => (a.status === 'fulfilled' ? a.value.facets : undefined))) : undefined;
    return {
      query,
      total,
      ...(totalExact ? {} : { totalExact }),
      ...(rankedAmong !== undefined ? { rankedAmong } : {}),
      ...(partial ? { partial } : {}),
      start,
      hits,
      ...(facets ? { facets } : {}),
      elapsedMs: performance.now() - t0,
      failed,
    };
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
          const res = await request(`${b}/healthz`, { dispatcher: this.agent, headersTimeout: this.timeout, bodyTimeout: this.timeout });
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
