import { Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { parseByteSize } from '../conf/config.js';

export default class Serve extends NwaxCommand {
  static override summary = 'Serve search over HTTP: the HTML search page, JSON, OpenSearch RSS, stored copies and suggestions.';
  static override description = `Serves the indexes under -dir (default property searcher.dir) on 127.0.0.1 (--host to listen \
elsewhere). Routes: / (search page), /search?query= (HTML), /api/search (JSON), /opensearch (RSS 2.0 with the opensearch \
and nutch namespaces, as NutchWAX's servlet), /opensearch.xml, /stored/SET/DOC (the archived bytes, sandboxed), \
the replay on its own port (--replay-port, default 8082): /replay/COLLECTION/TIMESTAMP/URL (framed, with a banner), \
TIMESTAMPmp_ (the rewritten capture), TIMESTAMPid_ (as archived), /replay/COLLECTION/*/URL (every capture), \
/replay/COLLECTION/timemap/link|json/URL and /replay/COLLECTION/URL (Memento TimeMap and TimeGate); \
/suggest?q=, /cdx (pywb's CDX server API over --cdx: url, matchType, from, to, filter, collapse, limit, sort, closest, output, \
fl), /healthz (alive), /readyz (indexes open), /metrics (Prometheus), POST /admin/reload (loopback only). Search parameters: \
query, start, hitsPerPage (at most 100), hitsPerSite (or hitsPerDup), dtstart, dtend, exact=true (rank every match). New, replaced and removed index sets are \
served without a restart (looked for every nwax.serve.reload.interval ms, and on SIGHUP). SIGTERM lets requests in flight \
finish (nwax.serve.shutdown.timeout), then exits 0. One JSON access-log line per request (nwax.serve.access.log). \
Access rules (pywb .aclj files, nwax.access.rules; see nwax acl) hold on every route: a blocked capture is a 451, an excluded one a 404, \
and neither is in any search answer, suggestion, /cdx line or TimeMap; a changed rules file applies at the next reload.`;
  static override examples = [
    '<%= config.bin %> serve --port 8081',
    '<%= config.bin %> serve -dir /data/crawl --port 8080',
    '<%= config.bin %> serve --port 8080 --shards http://a:8081,http://b:8081',
    '<%= config.bin %> serve --cdx /data/cluster',
  ];
  static override flags = {
    dir: Flags.string({ description: 'The crawl directory with indexes/ and pindexes/ (default: property searcher.dir).' }),
    port: Flags.integer({ description: 'Port (0: any free port, printed).', default: 8081, min: 0, max: 65535 }),
    host: Flags.string({ description: 'Address to listen on.', default: '127.0.0.1' }),
    cdx: Flags.string({
      description:
        "Answer /cdx (pywb's CDX server API) from these ZipNum clusters, sorted CDX files or directories, comma-separated (property nwax.serve.cdx).",
    }),
    'replay-port': Flags.integer({
      description: 'Port of the replay origin (property nwax.replay.port; 0: any free port, -1: under /replay on --port).',
      min: -1,
      max: 65535,
    }),
    shards: Flags.string({ description: 'Be a front over these nwax serve backends (comma-separated URLs): results merged, hits per site after the merge.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const conf = await this.configurationFor(flags.define);
    const { UsageError } = await import('../util/errors.js');
    for (const name of ['nwax.serve.query.timeout', 'nwax.serve.reload.interval', 'nwax.serve.shutdown.timeout', 'nwax.search.time.budget']) {
      const v = conf.getNumber(name);
      if (!Number.isInteger(v) || v < 0) throw new UsageError(`${name} must be a whole number of milliseconds >= 0, got ${v}`);
    }
    const base = conf.getString('nwax.serve.base.url');
    if (base && !/^https?:\/\/[^/\s]+(\/\S*)?$/i.test(base)) throw new UsageError(`nwax.serve.base.url must be an http(s) URL, got ${JSON.stringify(base)}`);
    const { startServer } = await import('../serve/server.js');
    const { configuredAccess } = await import('../access/policy.js');
    const access = configuredAccess(conf);
    const s = await startServer({
      dir: flags.dir ?? conf.getString('searcher.dir'),
      shards: flags.shards
        ?.split(',')
        .map((u) => u.trim().replace(/\/+$/, ''))
        .filter(Boolean),
      shardTimeout: conf.getNumber('nwax.serve.shard.timeout'),
      shardKey: conf.getString('nwax.serve.shard.key'),
      trustedProxies: conf
        .getString('nwax.access.trusted.proxies')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      host: flags.host,
      port: flags.port,
      wayback: conf.getString('nwax.wayback.prefix'),
      // A search on any free port (--port 0, as tests ask) has its replay on any free port too.
      replayPort: flags['replay-port'] ?? (flags.port === 0 ? 0 : conf.getNumber('nwax.replay.port')),
      replayBaseUrl: conf.getString('nwax.replay.base.url'),
      archiveLocations: conf
        .getString('nwax.archive.locations')
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
      hitsPerSite: conf.getNumber('nwax.serve.hits.per.site'),
      threads: conf.getNumber('nwax.serve.threads') || (await import('node:os')).availableParallelism(),
      suggestTitles: conf.getNumber('nwax.serve.suggest.titles'),
      csvMaxRows: conf.getNumber('nwax.export.csv.max.rows'),
      waczMaxVersions: conf.getNumber('nwax.export.wacz.max.versions'),
      queryTimeout: conf.getNumber('nwax.serve.query.timeout'),
      maxScored: conf.getNumber('nwax.search.max.scored'),
      cache: conf.getBoolean('nwax.search.cache'),
      timeBudget: conf.getNumber('nwax.search.time.budget'),
      compareBudget: conf.getNumber('nwax.serve.compare.budget'),
      thumbnailSize: conf.getNumber('nwax.serve.thumbnail.size'),
      thumbnailBytes: parseByteSize(conf.getString('nwax.serve.thumbnail.bytes'), 'nwax.serve.thumbnail.bytes'),
      baseUrl: conf.getString('nwax.serve.base.url'),
      reloadInterval: conf.getNumber('nwax.serve.reload.interval'),
      ...(access ? { access } : {}),
      accessLog: { destination: conf.getString('nwax.serve.access.log'), queries: conf.getBoolean('nwax.serve.log.queries') },
      cdx: {
        sources: (flags.cdx ?? conf.getString('nwax.serve.cdx'))
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        maxResults: conf.getNumber('nwax.cdx.max.results'),
        timeoutMs: conf.getNumber('nwax.cdx.timeout'),
        pageSize: conf.getInteger('nwax.cdx.page.size', 1, 1_000_000),
        flatBlockBytes: conf.getBytes('nwax.cdx.flat.block.size', 1),
        maxConcurrent: conf.getNumber('nwax.cdx.max.concurrent'),
      },
      log: (l) => this.sayLine(l),
    });
    // SIGTERM/SIGINT: stop accepting, let requests in flight finish (nwax.serve.shutdown.timeout),
    // stop what still runs, exit 0. A second signal exits at once. SIGHUP reloads the indexes.
    const timeout = conf.getNumber('nwax.serve.shutdown.timeout');
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        this.sayLine(`${signal} again: exiting now`);
        process.exit(1);
      }
      stopping = true;
      this.sayLine(`${signal}: finishing the requests in flight (at most ${timeout} ms), then exiting`);
      void s.shutdown(timeout).then(() => process.exit(0));
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on(
      'SIGHUP',
      () =>
        void s.reload().then(
          (r) => this.sayLine(`SIGHUP: index generation ${r.generation}${r.errors.length ? `; ${r.errors.join('; ')}` : ''}`),
          (err: Error) => this.sayLine(`SIGHUP: reload failed: ${err.message}`),
        ),
    );
    // Said once the signals are handled: whoever waits for this line may send them.
    this.sayLine(
      `serving ${flags.shards ? `a front over ${flags.shards}` : (flags.dir ?? conf.getString('searcher.dir'))} at ${s.url}/${s.replayUrl ? `, replay at ${s.replayUrl}/replay/` : ''}`,
    );
  }
}
