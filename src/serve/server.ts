/**
 * The search service (`nwax serve`), on Node's http: `/` the search page, `/search` HTML
 * results, `/api/search` JSON, `/opensearch` RSS (NutchWAX's OpenSearch servlet),
 * `/opensearch.xml` the description document, `/stored/SET/DOC` the archived bytes of a
 * capture, `/suggest?q=` search-as-you-type, `/cdx` pywb's CDX server API, `/healthz`. Bad parameters are a 400 with a
 * message, never a 500; every response says its content type and charset.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { RunningServer, ServeOptions } from './serve-options.js';
import { NO_STATE, cdxOnlyWhenNoIndexes, localBackend, shardBackend, type Backend } from './backends.js';
import type { AddressInfo } from 'node:net';
import { shardOptions } from './shard-protocol.js';
import { MAX_SCORED } from '../search/open-set.js';
import { BadRequest, searchParams } from './params.js';
import { renderBlocked, renderError, renderHome, renderResults } from './render-html.js';
import { AccessPolicy } from '../access/policy.js';
import { openSearchDescription, renderRss } from './render-rss.js';
import { renderJson } from './render-text.js';
import { cdxServer } from './cdx-server.js';
import { StreamGate, streamLines } from './stream-lines.js';
import { Metrics, accessLog, routeOf } from './observe.js';

export type { RunningServer, ServeOptions } from './serve-options.js';

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': `${type}; charset=utf-8`, 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  // The access rules, read here once for the routes of this thread (a bad file stops the start).
  const policy = opts.access ? new AccessPolicy(opts.access, opts.log) : undefined;
  const cdx = opts.cdx?.sources.length ? await cdxServer({ pageSize: 10_000, ...opts.cdx, log: opts.log, access: policy }) : undefined;
  const cdxStreams = new StreamGate(opts.cdx?.maxConcurrent ?? 8);
  const indexes = opts.shards?.length ? shardBackend(opts) : cdx ? cdxOnlyWhenNoIndexes(opts, policy) : localBackend(opts, policy);
  // The CDX sources reload with the indexes: on the same timer, SIGHUP and /admin/reload.
  const backend: Backend = cdx
    ? {
        ...indexes,
        reload: async () => {
          cdx.reload();
          return indexes.reload();
        },
      }
    : indexes;
  // The CDX sources and this thread's access rules (its searcher, where there is one, looks too).
  const cdxTimer =
    (cdx || policy) && opts.reloadInterval
      ? setInterval(() => {
          cdx?.reload();
          policy?.reload();
        }, opts.reloadInterval)
      : undefined;
  cdxTimer?.unref();
  // Replay, on its own origin unless asked to share this one.
  const { ReplayService } = opts.replayPort !== undefined && !opts.shards?.length ? await import('../replay/replay-service.js') : { ReplayService: undefined };
  let replayListening = '';
  const replay =
    ReplayService &&
    new ReplayService({
      dir: opts.dir,
      cdx: opts.cdx?.sources ?? [],
      archiveLocations: opts.archiveLocations ?? [],
      base: () => (opts.replayBaseUrl || replayListening).replace(/\/+$/, ''),
      searchBase: () => (opts.baseUrl || listening).replace(/\/+$/, ''),
      log: opts.log,
      access: policy,
    });
  const replayTimer = replay && opts.reloadInterval ? setInterval(() => replay.reload(), opts.reloadInterval) : undefined;
  replayTimer?.unref();
  /** Hits link to the external Wayback when one is configured, else to the embedded replay. */
  const replayTemplate = () =>
    opts.wayback || (replay ? `${(opts.replayBaseUrl || replayListening).replace(/\/+$/, '')}/replay/{collection}/{date}/{url}` : '');
  const serveReplay = (req: IncomingMessage, res: ServerResponse) =>
    replay!.handle(req, res).catch((err: Error) => {
      opts.log?.(`${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal error\n');
      else res.destroy();
    });
  // Long query strings reach the handler (and get a 400 with a message) instead of Node's bare 431.
  const metrics = new Metrics(backend.state, policy);
  const access = opts.accessLog ? accessLog(opts.accessLog) : undefined;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const server = createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
    const t0 = performance.now();
    inFlight++;
    // A client that goes away before its answer stops its query.
    const gone = new AbortController();
    const answered: { generation?: number } = {};
    // Bytes sent for this request (headers included): the socket's count, as it may carry several.
    const sentBefore = req.socket.bytesWritten ?? 0;
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
      inFlight--;
      const path = (req.url ?? '/').split('?')[0];
      const ms = performance.now() - t0;
      const status = res.writableFinished ? res.statusCode : 499;
      metrics.observe(routeOf(path), status, ms / 1000);
      access?.write({
        method: req.method ?? '',
        path: opts.accessLog?.queries ? (req.url ?? '/') : path,
        status,
        bytes: (req.socket.bytesWritten ?? 0) - sentBefore,
        ms: Math.round(ms * 10) / 10,
        ...(answered.generation ? { generation: answered.generation } : {}),
      });
      if (inFlight === 0) drained?.();
    });
    handle(req, res, gone.signal, answered).catch((err: Error) => {
      opts.log?.(`${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal error\n');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal, answered: { generation?: number }): Promise<void> {
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
    const path = url.pathname;
    if (replay && opts.replayPort === -1 && path.startsWith('/replay/')) return serveReplay(req, res);
    if (path === '/admin/reload') {
      // Only from this machine: a reload costs the service work, and says what it serves.
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        send(res, 405, 'text/plain', 'POST to reload\n');
      } else if (!isLoopback(req.socket.remoteAddress)) {
        send(res, 403, 'text/plain', 'reload is allowed from loopback only\n');
      } else {
        replay?.reload();
        const rules = policy?.reload();
        const r = await backend.reload();
        const errors = [...new Set([...r.errors, ...(rules?.errors ?? [])])];
        send(res, 200, 'application/json', `${JSON.stringify({ ...r, errors, ...(policy ? { accessRules: policy.generation } : {}) })}\n`);
      }
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      send(res, 405, 'text/plain', 'only GET\n');
      return;
    }
    // Who asks, for the access rules: a class from a trusted proxy's header, the reading room, or the public.
    const user = policy?.userOf(req.headers, req.socket.remoteAddress);
    const want = (ctype: string) => (err: unknown) => {
      const code = (err as { code?: string }).code;
      if (code === 'NWAX_ABORTED') return; // nobody to answer
      const status = err instanceof BadRequest || code === 'NWAX_QUERY' ? 400 : code === 'NWAX_TIMEOUT' || code === 'NWAX_SHUTDOWN' ? 503 : 500;
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
      case '/readyz': {
        // Ready when index sets are open (a shard front or a /cdx-only service: when it answers).
        const sets = backend.state.sets();
        const ready = backend.state === NO_STATE || sets.length > 0;
        send(res, ready ? 200 : 503, 'application/json', `${JSON.stringify({ ready, generation: backend.state.generation(), sets })}\n`);
        return;
      }
      case '/metrics':
        send(res, 200, metrics.contentType.split(';')[0], await metrics.text());
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
          // NutchWAX's hitsPerSite keeps its meaning when asked for; the default collapses only across sites.
          const hitsPerSiteDefault = !url.searchParams.has('hitsPerSite') && !url.searchParams.has('hitsPerDup');
          const r = await backend.search(
            p.query,
            {
              start: p.start,
              hits: p.hitsPerPage,
              hitsPerSite: p.hitsPerSite,
              hitsPerSiteDefault,
              facets,
              sort: p.sort,
              reverse: p.reverse,
              dedupField: p.dedupField,
              exact: p.exact,
              maxScored: opts.maxScored,
              budgetMs: opts.timeBudget,
              ...(opts.cache === false ? { cache: false } : {}),
              ...shardOptions(url.searchParams),
              ...(user ? { user } : {}),
            },
            signal,
          );
          answered.generation = r.generation;
          const template = replayTemplate();
          const body =
            ctype === 'text/html' ? renderResults(r, p, template) : ctype === 'application/json' ? renderJson(r, template) : renderRss(r, p, base, template);
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
        if (!cdxStreams.enter()) {
          res.setHeader('Retry-After', '1');
          send(res, 503, 'text/plain', `${cdxStreams.limit} CDX answers are streaming; try again shortly (nwax.cdx.max.concurrent)\n`);
          return;
        }
        try {
          const out = await cdx.answer(url.searchParams, user);
          if (out.lines) await streamLines(res, out.type, out.lines, opts.log);
          else send(res, out.status, out.type, out.body ?? '');
        } finally {
          cdxStreams.leave();
        }
        return;
      }
      case '/api/shard/stats':
      case '/api/shard/candidates': {
        const want400 = want('application/json');
        try {
          if (!backend.shard) throw new BadRequest(`${path}: this service is not a shard backend`);
          const query = searchParams(url.searchParams, { hitsPerSite: 0 }).query;
          const body =
            path === '/api/shard/stats'
              ? (backend.shard.stats(
                  query,
                  Number(url.searchParams.get('cap')) || (opts.maxScored ?? MAX_SCORED),
                  url.searchParams.get('keys') === '1',
                  user,
                ) ?? null)
              : backend.shard.candidates(query, {
                  exact: url.searchParams.get('exact') === 'true',
                  ...shardOptions(url.searchParams),
                  ...(user ? { user } : {}),
                });
          send(res, 200, 'application/json', `${JSON.stringify(body)}\n`);
        } catch (err) {
          want400(err);
        }
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
          const sent = set === undefined ? 'none' : await backend.stored(set, Number(m![2]), res, user);
          if (sent === 'blocked') send(res, 451, 'text/html', renderBlocked());
          else if (sent === 'none') send(res, 404, 'text/plain', 'no such page or document\n');
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
  listening = addressOf(addr);
  let replayServer: Server | undefined;
  if (replay && opts.replayPort === -1) replayListening = listening;
  else if (replay) {
    replayServer = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => void serveReplay(req, res));
    await new Promise<void>((resolve, reject) => {
      replayServer!.once('error', reject);
      replayServer!.listen(opts.replayPort, opts.host, () => resolve());
    });
    replayListening = addressOf(replayServer.address() as AddressInfo);
  }
  const closeReplay = () =>
    new Promise<void>((resolve) => {
      clearInterval(replayTimer);
      if (!replayServer) return resolve();
      replayServer.closeAllConnections();
      replayServer.close(() => resolve());
    });
  return {
    server,
    url: listening,
    ...(replay ? { replayUrl: replayListening } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(cdxTimer);
        server.closeAllConnections();
        server.close(
          () =>
            void closeReplay()
              .then(() => backend.close())
              .then(() => access?.flush())
              .then(resolve),
        );
      }),
    reload: async () => {
      const rules = policy?.reload();
      const r = await backend.reload();
      return { ...r, errors: [...new Set([...r.errors, ...(rules?.errors ?? [])])] };
    },
    async shutdown(timeoutMs) {
      // No new connections; idle keep-alive ones closed now, busy ones after their answer.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, timeoutMs).unref();
        });
      }
      // What still runs is stopped: connections dropped, workers (and their SQLite calls) ended.
      server.closeAllConnections();
      clearInterval(cdxTimer);
      await closeReplay();
      await backend.close();
      await closed;
      access?.flush();
    },
  };
}

function addressOf(addr: AddressInfo): string {
  return `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
}

function isLoopback(address: string | undefined): boolean {
  return !!address && (/^127\./.test(address) || address === '::1' || /^::ffff:127\./.test(address));
}
