import { Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Serve extends NwaxCommand {
  static override summary = 'Serve search over HTTP: the HTML search page, JSON, OpenSearch RSS, stored copies and suggestions.';
  static override description = `Serves the indexes under -dir (default property searcher.dir) on 127.0.0.1 (--host to listen \
elsewhere). Routes: / (search page), /search?query= (HTML), /api/search (JSON), /opensearch (RSS 2.0 with the opensearch \
and nutch namespaces, as NutchWAX's servlet), /opensearch.xml, /stored/SET/DOC (the archived bytes, sandboxed), \
/suggest?q=, /cdx (pywb's CDX server API over --cdx: url, matchType, from, to, filter, collapse, limit, sort, closest, output, \
fl), /healthz. Search parameters: query, start, hitsPerPage (at most 100), hitsPerSite (or hitsPerDup), dtstart, dtend.`;
  static override examples = ['<%= config.bin %> serve --port 8081', '<%= config.bin %> serve -dir /data/crawl --port 8080', '<%= config.bin %> serve --port 8080 --shards http://a:8081,http://b:8081', '<%= config.bin %> serve --cdx /data/cluster'];
  static override flags = {
    dir: Flags.string({ description: 'The crawl directory with indexes/ and pindexes/ (default: property searcher.dir).' }),
    port: Flags.integer({ description: 'Port (0: any free port, printed).', default: 8081, min: 0, max: 65535 }),
    host: Flags.string({ description: 'Address to listen on.', default: '127.0.0.1' }),
    cdx: Flags.string({ description: 'Answer /cdx (pywb\'s CDX server API) from these ZipNum clusters, sorted CDX files or directories, comma-separated (property nwax.serve.cdx).' }),
    shards: Flags.string({ description: 'Be a front over these nwax serve backends (comma-separated URLs): results merged, hits per site after the merge.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const conf = await this.configurationFor(flags.define);
    const { startServer } = await import('../search/server.js');
    const s = await startServer({
      dir: flags.dir ?? conf.getString('searcher.dir'),
      shards: flags.shards?.split(',').map((u) => u.trim().replace(/\/+$/, '')).filter(Boolean),
      shardTimeout: conf.getNumber('nwax.serve.shard.timeout'),
      host: flags.host,
      port: flags.port,
      wayback: conf.getString('nwax.wayback.prefix'),
      hitsPerSite: conf.getNumber('nwax.serve.hits.per.site'),
      threads: conf.getNumber('nwax.serve.threads') || (await import('node:os')).availableParallelism(),
      suggestTitles: conf.getNumber('nwax.serve.suggest.titles'),
      queryTimeout: conf.getNumber('nwax.serve.query.timeout'),
      baseUrl: conf.getString('nwax.serve.base.url'),
      cdx: {
        sources: (flags.cdx ?? conf.getString('nwax.serve.cdx')).split(',').map((s) => s.trim()).filter(Boolean),
        maxResults: conf.getNumber('nwax.cdx.max.results'),
        timeoutMs: conf.getNumber('nwax.cdx.timeout'),
      },
      log: (l) => this.sayLine(l),
    });
    this.sayLine(`serving ${flags.shards ? `a front over ${flags.shards}` : flags.dir ?? conf.getString('searcher.dir')} at ${s.url}/`);
    const stop = () => void s.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
}
