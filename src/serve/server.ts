/**
 * The search service (`nwax serve`), on Node's http: the wiring of its parts. The access
 * policy, the CDX server, the backend (this machine's indexes, a shard front's backends, or a
 * /cdx-only service) and the replay are opened here, reloaded on one timer, and served by the
 * routes (routes.ts: `/` the search page, `/search` HTML results, `/api/search` JSON,
 * `/opensearch` RSS, `/stored/SET/DOC`, `/suggest`, `/cdx`, `/healthz`, `/metrics`, ...), each
 * request counted and logged (observe.ts); replay listens on its own origin unless asked to
 * share this one.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningServer, ServeOptions } from './serve-options.js';
import { cdxOnlyWhenNoIndexes, localBackend, shardBackend, type Backend } from './backends.js';
import { AccessPolicy } from '../access/policy.js';
import { ShardTrust } from './shard-trust.js';
import { cdxServer } from './cdx-server.js';
import { StreamGate } from './stream-lines.js';
import { Metrics, accessLog, routeOf } from './observe.js';
import { route, send, type Parts } from './routes.js';

export type { RunningServer, ServeOptions } from './serve-options.js';

/** The access policy, the CDX server and the backend, reloaded together (the timer, SIGHUP, /admin/reload). */
async function openParts(opts: ServeOptions) {
  // The access rules, read here once for the routes of this thread (a bad file stops the start).
  const policy = opts.access ? new AccessPolicy(opts.access, opts.log) : undefined;
  const cdx = opts.cdx?.sources.length ? await cdxServer({ pageSize: 10, ...opts.cdx, log: opts.log, access: policy }) : undefined;
  const indexes = opts.shards?.length ? shardBackend(opts, policy) : cdx ? cdxOnlyWhenNoIndexes(opts, policy) : localBackend(opts, policy);
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
  const timer =
    (cdx || policy) && opts.reloadInterval
      ? setInterval(() => {
          cdx?.reload();
          policy?.reload();
        }, opts.reloadInterval)
      : undefined;
  timer?.unref();
  return { policy, cdx, backend, timer };
}

/** Replay, where it is served (not on a shard front), with its own reload timer. */
async function openReplay(opts: ServeOptions, policy: AccessPolicy | undefined, addresses: { search: string; replay: string }) {
  if (opts.replayPort === undefined || opts.shards?.length) return undefined;
  const { ReplayService } = await import('../replay/replay-service.js');
  const replay = new ReplayService({
    dir: opts.dir,
    cdx: opts.cdx?.sources ?? [],
    archiveLocations: opts.archiveLocations ?? [],
    base: () => (opts.replayBaseUrl || addresses.replay).replace(/\/+$/, ''),
    searchBase: () => (opts.baseUrl || addresses.search).replace(/\/+$/, ''),
    log: opts.log,
    access: policy,
  });
  const timer = opts.reloadInterval ? setInterval(() => replay.reload(), opts.reloadInterval) : undefined;
  timer?.unref();
  return { replay, timer };
}

/** A handler's failure: logged, a 500 where nothing was sent yet, else the connection cut. */
function answerFailure(opts: ServeOptions, req: IncomingMessage, res: ServerResponse) {
  return (err: Error) => {
    opts.log?.(`${req.method} ${req.url}: ${err.message}`);
    if (!res.headersSent) send(res, 500, 'text/plain', 'internal error\n');
    else res.destroy();
  };
}

function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(addressOf(server.address() as AddressInfo)));
  });
}

function addressOf(addr: AddressInfo): string {
  return `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
}

/** Requests in flight, and a wait for the last of them to end. */
class InFlight {
  count = 0;
  private drained: (() => void) | undefined;

  enter(): void {
    this.count++;
  }

  leave(): void {
    if (--this.count === 0) this.drained?.();
  }

  /** Resolves when none is in flight, or after `ms`. */
  settled(ms: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.drained = resolve;
      setTimeout(resolve, ms).unref();
    });
  }
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const { policy, cdx, backend, timer } = await openParts(opts);
  const addresses = { search: `http://${opts.host}:${opts.port}`, replay: '' };
  const replayed = await openReplay(opts, policy, addresses);
  const serveReplay = replayed && ((req: IncomingMessage, res: ServerResponse) => replayed.replay.handle(req, res).catch(answerFailure(opts, req, res)));
  const metrics = new Metrics(backend.state, policy);
  const log = opts.accessLog ? accessLog(opts.accessLog) : undefined;
  const parts: Parts = {
    opts,
    backend,
    cdx,
    cdxStreams: new StreamGate(opts.cdx?.maxConcurrent ?? 8),
    packages: new StreamGate(1),
    policy,
    metrics,
    sharedReplay: opts.replayPort === -1 ? serveReplay : undefined,
    reloadReplay: () => replayed?.replay.reload(),
    // Hits link to the external Wayback when one is configured, else to the embedded replay.
    replayTemplate: () => opts.wayback || (replayed ? `${(opts.replayBaseUrl || addresses.replay).replace(/\/+$/, '')}/replay/{collection}/{date}/{url}` : ''),
    // Absolute links name the configured public address, or the one listened on: a Host header
    // is the client's to choose, and would point links wherever it says.
    base: () => (opts.baseUrl || addresses.search).replace(/\/+$/, ''),
    trust: new ShardTrust(opts.shardKey, opts.trustedProxies ?? opts.access?.trustedProxies),
  };
  const inFlight = new InFlight();
  // Long query strings reach the handler (and get a 400 with a message) instead of Node's bare 431.
  const server = createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
    const t0 = performance.now();
    inFlight.enter();
    // A client that goes away before its answer stops its query.
    const gone = new AbortController();
    const answered: { generation?: number } = {};
    // Bytes sent for this request (headers included): the socket's count, as it may carry several.
    const sentBefore = req.socket.bytesWritten ?? 0;
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
      const path = (req.url ?? '/').split('?')[0];
      const ms = performance.now() - t0;
      const status = res.writableFinished ? res.statusCode : 499;
      metrics.observe(routeOf(path), status, ms / 1000);
      log?.write({
        method: req.method ?? '',
        path: opts.accessLog?.queries ? (req.url ?? '/') : path,
        status,
        bytes: (req.socket.bytesWritten ?? 0) - sentBefore,
        ms: Math.round(ms * 10) / 10,
        ...(answered.generation ? { generation: answered.generation } : {}),
      });
      inFlight.leave();
    });
    route(parts, req, res, gone.signal, answered).catch(answerFailure(opts, req, res));
  });
  addresses.search = await listen(server, opts.port, opts.host);
  let replayServer: Server | undefined;
  if (replayed && opts.replayPort === -1) addresses.replay = addresses.search;
  else if (serveReplay) {
    replayServer = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => void serveReplay(req, res));
    addresses.replay = await listen(replayServer, opts.replayPort!, opts.host);
  }
  return running({ server, replayServer, url: addresses.search, replayUrl: replayed ? addresses.replay : undefined, policy, backend, inFlight, log }, [
    timer,
    replayed?.timer,
  ]);
}

/** The running service: closed at once, or shut down after its requests in flight; reloaded on demand. */
function running(
  s: {
    server: Server;
    replayServer: Server | undefined;
    url: string;
    replayUrl: string | undefined;
    policy: AccessPolicy | undefined;
    backend: Backend;
    inFlight: InFlight;
    log: { flush(): void } | undefined;
  },
  timers: (NodeJS.Timeout | undefined)[],
): RunningServer {
  const closeReplay = () =>
    new Promise<void>((resolve) => {
      if (!s.replayServer) return resolve();
      s.replayServer.closeAllConnections();
      s.replayServer.close(() => resolve());
    });
  const stopTimers = () => {
    for (const t of timers) clearInterval(t);
  };
  return {
    server: s.server,
    url: s.url,
    ...(s.replayUrl !== undefined ? { replayUrl: s.replayUrl } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        stopTimers();
        s.server.closeAllConnections();
        s.server.close(
          () =>
            void closeReplay()
              .then(() => s.backend.close())
              .then(() => s.log?.flush())
              .then(resolve),
        );
      }),
    reload: async () => {
      const rules = s.policy?.reload();
      const r = await s.backend.reload();
      return { ...r, errors: [...new Set([...r.errors, ...(rules?.errors ?? [])])] };
    },
    async shutdown(timeoutMs) {
      // No new connections; idle keep-alive ones closed now, busy ones after their answer.
      const closed = new Promise<void>((resolve) => s.server.close(() => resolve()));
      s.server.closeIdleConnections();
      await s.inFlight.settled(timeoutMs);
      // What still runs is stopped: connections dropped, workers (and their SQLite calls) ended.
      s.server.closeAllConnections();
      stopTimers();
      await closeReplay();
      await s.backend.close();
      await closed;
      s.log?.flush();
    },
  };
}
