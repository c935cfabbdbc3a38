/** What `nwax serve` is started with (every option a configuration property: commands/serve.ts), and what a running one offers. */
import type { Server } from 'node:http';
import type { AccessLogOptions } from './observe.js';
import type { AccessSettings } from '../access/policy.js';

export interface ServeOptions {
  /** The crawl directory searched here; unused with `shards`. */
  dir: string;
  /** Backend `nwax serve` URLs: this server is then a front that merges their results. */
  shards?: string[];
  /** Milliseconds a backend has to answer (nwax.serve.shard.timeout). */
  shardTimeout?: number;
  /**
   * Who may ask the shard protocol (/api/shard/*) and name a user class: a request with this
   * secret (nwax.serve.shard.key; a front sends it), or from these addresses
   * (nwax.access.trusted.proxies; loopback where absent).
   */
  shardKey?: string;
  trustedProxies?: string[];
  host: string;
  port: number;
  /** Replay link template (nwax.wayback.prefix); empty: the embedded replay below. */
  wayback: string;
  /**
   * Embedded replay (nwax.replay.port): served on its own port, so that archived scripts never
   * run in the search site's origin (0: any free port), or -1: under /replay on the search port.
   * Off when undefined, and on a shard front.
   */
  replayPort?: number;
  /** The replay origin's public address (nwax.replay.base.url); empty: the address it listens on. */
  replayBaseUrl?: string;
  /** Where archives named by the CDX sources are, for replay (nwax.archive.locations). */
  archiveLocations?: string[];
  hitsPerSite: number;
  /** Search worker threads (0: search on the server's thread). */
  threads?: number;
  /** Titles of the best pages offered as suggestions (bounded). */
  suggestTitles: number;
  /** Rows of a CSV export at most (nwax.export.csv.max.rows; default 100,000). */
  csvMaxRows?: number;
  /** Versions at most of a package made by /export/wacz (nwax.export.wacz.max.versions; default 10,000). */
  waczMaxVersions?: number;
  /** Milliseconds a query may run before it is stopped with a 503 (nwax.serve.query.timeout; 0: no limit). */
  queryTimeout?: number;
  /** Keep the latest answers per search worker (nwax.search.cache, default true). */
  cache?: boolean;
  /** Matches ranked exactly over the collection before the ranking is capped (nwax.search.max.scored). */
  maxScored?: number;
  /** Milliseconds a query may spend finding candidates before it answers with what it has (nwax.search.time.budget). */
  timeBudget?: number;
  /** Milliseconds the text diff of /compare may take before it shows the runs left replaced whole (nwax.serve.compare.budget; default 60). */
  compareBudget?: number;
  /** The square an image's thumbnail fits in, in pixels (nwax.serve.thumbnail.size; default 200). */
  thumbnailSize?: number;
  /** An image's payload decoded for a thumbnail at most, in bytes (nwax.serve.thumbnail.bytes; default 16 MiB). */
  thumbnailBytes?: number;
  /**
   * The service's public address for absolute links (OpenSearch description, RSS); empty: the
   * address it listens on. Never taken from the request's Host header (nwax.serve.base.url).
   */
  baseUrl?: string;
  /** Milliseconds between looks for new, replaced and removed index sets (nwax.serve.reload.interval; 0: only on SIGHUP or POST /admin/reload). */
  reloadInterval?: number;
  /** Access log (nwax.serve.access.log, nwax.serve.log.queries); off when absent. */
  accessLog?: AccessLogOptions;
  /**
   * CDX sources /cdx answers from (nwax.serve.cdx); /cdx is off without them. Lines per answer
   * (nwax.cdx.max.results), blocks per page when none is asked (nwax.cdx.page.size), bytes of a
   * flat file's block (nwax.cdx.flat.block.size), answers streamed at once (nwax.cdx.max.concurrent).
   */
  cdx?: { sources: string[]; maxResults: number; timeoutMs: number; pageSize?: number; flatBlockBytes?: number; maxConcurrent?: number };
  /** The access rules applied on every route (nwax.access.*); none when absent. */
  access?: AccessSettings;
  log?: (line: string) => void;
}

export interface RunningServer {
  server: Server;
  url: string;
  /** The replay origin (its own port, or the search one), when replay is served. */
  replayUrl?: string;
  /** Closes at once: connections dropped, workers ended. */
  close(): Promise<void>;
  /** Looks for new, replaced and removed index sets now (SIGHUP, POST /admin/reload). */
  reload(): Promise<{ generation: number; errors: string[] }>;
  /**
   * Stops accepting, lets the requests in flight finish for up to `timeoutMs`, then stops
   * what still runs (the search workers are ended) and closes.
   */
  shutdown(timeoutMs: number): Promise<void>;
}
