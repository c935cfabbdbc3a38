/**
 * How the service is operated: an access log (one JSON line a request, through pino) and
 * Prometheus metrics (prom-client, in a registry of the server's own so that two services in
 * one process do not mix their counts).
 */
import { openSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino, type Logger } from 'pino';
import { InputError } from '../util/errors.js';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AccessPolicy } from '../access/policy.js';

export interface AccessLogOptions {
  /** `-` for stderr, a file path to append to, empty for no access log (nwax.serve.access.log). */
  destination: string;
  /** Log the query string too (nwax.serve.log.queries); by default the path alone. */
  queries: boolean;
}

export interface AccessEntry {
  method: string;
  /** Path, with the query string when `queries` is set. */
  path: string;
  status: number;
  bytes: number;
  ms: number;
  /** Index generation that answered (search routes). */
  generation?: number;
}

/** The access log, or undefined when it is off. */
export function accessLog(o: AccessLogOptions): { write(e: AccessEntry): void; flush(): void } | undefined {
  if (!o.destination) return undefined;
  // Opened here, so that a path that cannot be written is an error at start, naming it.
  let fd = 2;
  if (o.destination !== '-') {
    // The directory must exist (no recursive mkdir: it loops on some virtual file systems).
    try {
      fd = openSync(o.destination, 'a');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? `no such directory ${dirname(o.destination)}`
          : code === 'EACCES'
            ? 'permission denied'
            : code === 'EISDIR'
              ? 'is a directory'
              : code;
      throw new InputError(`nwax.serve.access.log: cannot write ${o.destination} (${why})`);
    }
  }
  // Asynchronous writes (pino's SonicBoom): a request never waits for the log's disk. A write
  // that fails later (a full disk) is said once on stderr; the service goes on.
  const dest = pino.destination({ dest: fd, sync: false });
  let failed = false;
  dest.on('error', (err: Error) => {
    if (!failed) process.stderr.write(`nwax serve: access log ${o.destination}: ${err.message}; requests are no longer logged\n`);
    failed = true;
  });
  const log: Logger = pino({ base: undefined, messageKey: 'msg', timestamp: pino.stdTimeFunctions.isoTime }, dest);
  return {
    write: (e) => {
      if (!failed) log.info(e);
    },
    flush: () => dest.flushSync(),
  };
}

/** The route a path is counted under (bounded label values: never the raw path). */
export function routeOf(path: string): string {
  if (path.startsWith('/stored/')) return '/stored';
  return [
    '/',
    '/search',
    '/api/search',
    '/opensearch',
    '/opensearch.xml',
    '/suggest',
    '/cdx',
    '/healthz',
    '/readyz',
    '/metrics',
    '/admin/reload',
    '/api/shard/stats',
    '/api/shard/candidates',
  ].includes(path)
    ? path
    : 'other';
}

export interface ServiceState {
  sets(): { name: string; documents: number }[];
  generation(): number;
  lastReload(): number;
  queued(): number;
  timeouts(): number;
  aborted(): number;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter;
  private readonly latency: Histogram;

  constructor(state: ServiceState, access?: AccessPolicy) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'nwax_' });
    this.requests = new Counter({
      name: 'nwax_http_requests_total',
      help: 'HTTP requests answered, by route and status.',
      labelNames: ['route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'nwax_http_request_duration_seconds',
      help: 'Time to answer a request, by route.',
      labelNames: ['route'],
      registers,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
    // Gauges read from the service's state when Prometheus scrapes.
    const read = (name: string, help: string, value: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(value());
        },
      });
    read('nwax_search_queries_stopped_total', 'Queries stopped by the time budget (nwax.serve.query.timeout) since the start.', state.timeouts);
    read(
      'nwax_search_queries_abandoned_total',
      'Queries whose client went away before the answer (stopped if they ran on past a second), since the start.',
      state.aborted,
    );
    read('nwax_search_queue_length', 'Queries waiting or running on the search workers.', state.queued);
    read('nwax_index_generation', 'Rises by one each time the index sets served change.', state.generation);
    read('nwax_index_last_reload_timestamp_seconds', 'When the index sets served last changed.', () => state.lastReload() / 1000);
    if (access) {
      read('nwax_access_rules', 'Access rules in force.', () => access.rules.size);
      read('nwax_access_rules_generation', 'Rises by one each time the access rules in force change.', () => access.generation);
      read('nwax_access_rules_loaded_timestamp_seconds', 'When the access rules in force were loaded.', () => access.loadedAt / 1000);
      read(
        'nwax_access_rules_errors',
        'Lines or files of the access rules that do not parse (the rules loaded before stay in force while there are any).',
        () => access.errors.length,
      );
    }
    new Gauge({
      name: 'nwax_index_documents',
      help: 'Documents (versions: URL + digest) in each index set served.',
      labelNames: ['set'],
      registers,
      collect() {
        this.reset();
        for (const s of state.sets()) this.set({ set: s.name }, s.documents);
      },
    });
  }

  observe(route: string, status: number, seconds: number): void {
    this.requests.inc({ route, status: String(status) });
    this.latency.observe({ route }, seconds);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
