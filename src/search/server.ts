/**
 * The search service (`nwax serve`), on Node's http: `/` the search page, `/search` HTML
 * results, `/api/search` JSON, `/opensearch` RSS (NutchWAX's OpenSearch servlet), 
 * `/opensearch.xml` the description document, `/stored/SET/DOC` the archived bytes of a
 * capture, `/suggest?q=` search-as-you-type, `/cdx` pywb's CDX server API, `/healthz`. Bad parameters are a 400 with a
 * message, never a 500; every response says its content type and charset.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Searcher, type SearchOptions, type SearchResult } from './searcher.js';
import { ShardSearcher } from './shards.js';
import { SearchPool } from './search-pool.js';
import { BadRequest, searchParams } from './params.js';
import { renderError, renderHome, renderResults } from './render-html.js';
import { openSearchDescription, renderRss } from './render-rss.js';
import { renderJson } from './render-text.js';
import { sendStored } from './stored.js';
import { Suggester, type Suggestion } from './suggest.js';
import { request } from 'undici';
import { cdxServer } from './cdx-server.js';

export interface ServeOptions {
  /** The crawl directory searched here; unused with `shards`. */
  dir: string;
  /** Backend `nwax serve` URLs: this server is then a front that merges their results. */
  shards?: string[];
  /** Milliseconds a backend has to answer (nwax.serve.shard.timeout). */
  shardTimeout?: number;
  host: string;
  port: number;
  /** Replay link template (nwax.wayback.prefix). */
  wayback: string;
  hitsPerSite: number;
  /** Search worker threads (0: search on the server's thread). */
  threads?: number;
  /** Titles of the best pages offered as suggestions (bounded). */
  suggestTitles: number;
  /** Milliseconds a query may run before it is stopped with a 503 (nwax.serve.query.timeout; 0: no limit). */
  queryTimeout?: number;
  /**
   * The service's public address for absolute links (OpenSearch description, RSS); empty: the
   * address it listens on. Never taken from the request's Host header (nwax.serve.base.url).
   */
  baseUrl?: string;
  /** CDX sources /cdx answers from (nwax.serve.cdx); /cdx is off without them. */
  cdx?: { sources: string[]; maxResults: number; timeoutMs: number };
  log?: (line: string) => void;
}

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** What the routes need: this machine's indexes, or the backends of a shard front. */
interface Backend {
  search(query: string, opts: SearchOptions): Promise<SearchResult & { failed?: string[] }>;
  health(): Promise<Record<string, unknown>>;
  /** Streams the stored copy; false when there is no such document. */
  stored(set: string, doc: number, res: ServerResponse): Promise<boolean>;
  suggest(q: string): Promise<Suggestion[]>;
  close(): Promise<void>;
}

function localBackend(opts: ServeOptions): Backend {
  // This thread keeps a searcher for the light work (stored copies, health, suggestions);
  // queries run on the pool's threads when there is one.
  const searcher = new Searcher(opts.dir);
  const suggester = new Suggester(searcher, opts.suggestTitles);
  const pool = opts.threads && opts.threads > 0 ? new SearchPool(opts.dir, opts.threads, opts.queryTimeout ?? 0) : undefined;
  return {
    search: async (q, o) => (pool ? pool.search(q, o) : searcher.search(q, o)),
    health: async () => ({ status: 'ok', documents: searcher.documents() }),
    async stored(set, doc, res) {
      const ref = searcher.stored(set, doc);
      if (!ref) return false;
      await sendStored(ref, res);
      return true;
    },
    suggest: async (q) => suggester.suggest(q),
    close: async () => {
      await pool?.close();
      searcher.close();
    },
  };
}

function shardBackend(opts: ServeOptions): Backend {
  const shards = new ShardSearcher(opts.shards!, opts.shardTimeout ?? 5000);
  return {
    search: (q, o) => shards.search(q, o),
    async health() {
      const h = await shards.documents();
      return { status: h.failed.length ? 'partial' : 'ok', documents: h.documents, failedShards: h.failed };
    },
    async stored(set, doc, res) {
      const url = shards.storedUrl(set, doc);
      if (!url) return false;
      const r = await request(url);
      if (r.statusCode === 404) {
        await r.body.dump();
        return false;
      }
      const headers: Record<string, string> = {};
      for (const h of ['content-type', 'content-encoding', 'content-security-policy', 'x-content-type-options', 'x-archive-src']) {
        const v = r.headers[h];
        if (typeof v === 'string') headers[h] = v;
      }
      res.writeHead(r.statusCode, headers);
      for await (const chunk of r.body) if (!res.write(chunk)) await new Promise((ok) => res.once('drain', ok));
      res.end();
      return true;
    },
    async suggest(q) {
      const all = await Promise.allSettled(opts.shards!.map(async (b) => (await (await request(`${b}/suggest?q=${encodeURIComponent(q)}`, { headersTimeout: opts.shardTimeout, bodyTimeout: opts.shardTimeout })).body.json()) as Suggestion[]));
      const seen = new Set<string>();
      return all.flatMap((a) => (a.status === 'fulfilled' ? a.value : [])).filter((x) => !seen.has(`${x.kind} ${x.text}`) && seen.add(`${x.kind} ${x.text}`)).slice(0, 10);
    },
    close: () => shards.close(),
  };
}

/** A service for /cdx alone: without indexes, search says so instead of refusing to start. */
function cdxOnlyWhenNoIndexes(opts: ServeOptions): Backend {
  try {
    return localBackend(opts);
  } catch (err) {
    const why = (err as Error).message;
    return {
      search: async () => {
        throw new BadRequest(`no search here: ${why}; this service answers /cdx`);
      },
      health: async () => ({ status: 'ok', documents: 0, cdx: true }),
      stored: async () => false,
      suggest: async () => [],
      close: async () => {},
    };
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': `${type}; charset=utf-8`, 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const cdx = opts.cdx?.sources.length ? await cdxServer(opts.cdx) : undefined;
  const backend = opts.shards?.length ? shardBackend(opts) : cdx ? cdxOnlyWhenNoIndexes(opts) : localBackend(opts);
  // Long query strings reach the handler (and get a 400 with a message) instead of Node's bare 431.
  const server = createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
    handle(req, res).catch((err: Error) => {
      opts.log?.(`${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal error\n');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Absolute links name the configured public address, or the one listened on: a Host header
    // is the client's to choose, and would point links wherever it says.
    const base = (opts.baseUrl || listening).replace(/\/+$/, '');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://nwax.invalid');
    } catch {
      send(res, 400, 'text/plain', 'bad request URL\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      send(res, 405, 'text/plain', 'only GET\n');
      return;
    }
    const path = url.pathname;
    const want = (ctype: string) => (err: unknown) => {
      const code = (err as { code?: string }).code;
      const status = err instanceof BadRequest || code === 'NWAX_QUERY' ? 400 : code === 'NWAX_TIMEOUT' ? 503 : 500;
      if (status === 500) throw err;
      if (status === 503) res.setHeader('Retry-After', '5');
      const message = (err as Error).message;
      if (ctype === 'text/html') send(res, status, 'text/html', renderError(status, message, url.searchParams.get('query') ?? ''));
      else if (ctype === 'application/json') send(res, status, 'application/json', `${JSON.stringify({ error: message })}\n`);
      else send(res, status, 'text/plain', `${message}\n`);
    };
    switch (path) {
      case '/':
        send(res, 200, 'text/html', renderHome());
        return;
      case '/healthz':
        send(res, 200, 'application/json', `${JSON.stringify(await backend.health())}\n`);
        return;
      case '/opensearch.xml':
        send(res, 200, 'application/opensearchdescription+xml', openSearchDescription(base));
        return;
      case '/search':
      case '/api/search':
      case '/opensearch': {
        const ctype = path === '/search' ? 'text/html' : path === '/api/search' ? 'application/json' : 'application/rss+xml';
        try {
          const p = searchParams(url.searchParams, { hitsPerSite: opts.hitsPerSite });
          // The HTML page shows facets; the APIs count them when asked (facets=1).
          const facets = ctype === 'text/html' || url.searchParams.get('facets') === '1';
          const r = await backend.search(p.query, { start: p.start, hits: p.hitsPerPage, hitsPerSite: p.hitsPerSite, facets, sort: p.sort, reverse: p.reverse, dedupField: p.dedupField });
          const body = ctype === 'text/html' ? renderResults(r, p, opts.wayback) : ctype === 'application/json' ? renderJson(r, opts.wayback) : renderRss(r, p, base, opts.wayback);
          send(res, 200, ctype, body);
        } catch (err) {
          want(ctype)(err);
        }
        return;
      }
      case '/cdx': {
        if (!cdx) {
          send(res, 404, 'text/plain', 'no CDX index is served here (set nwax.serve.cdx)\n');
          return;
        }
        const out = await cdx.answer(url.searchParams);
        send(res, out.status, out.type, out.body);
        return;
      }
      case '/suggest': {
        const q = url.searchParams.get('q') ?? '';
        send(res, 200, 'application/json', `${JSON.stringify(q.length > 200 ? [] : await backend.suggest(q))}\n`);
        return;
      }
      default: {
        const m = /^\/stored\/([^/]+)\/(\d{1,12})$/.exec(path);
        let set: string | undefined;
        try {
          set = m ? decodeURIComponent(m[1]) : undefined;
        } catch {
          send(res, 400, 'text/plain', 'bad percent-encoding in the path\n');
          return;
        }
        try {
          if (set === undefined || !(await backend.stored(set, Number(m![2]), res))) send(res, 404, 'text/plain', 'no such page or document\n');
        } catch (err) {
          if (res.headersSent) throw err;
          send(res, 502, 'text/plain', `the archive could not be read: ${(err as Error).message}\n`);
        }
      }
    }
  }

  let listening = `http://${opts.host}:${opts.port}`;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  listening = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
  return {
    server,
    url: listening,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => void backend.close().then(resolve));
    }),
  };
}
