import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class CdxQueryCommand extends NwaxCommand {
  static override summary = 'Look up the captures of a URL, prefix, host or domain in sorted CDX files or ZipNum clusters.';
  static override description = `SOURCE is a ZipNum cluster (its directory or .idx file), a sorted CDX or CDXJ file (searched \
by seeking; a gzipped one is scanned), or a directory of them (merged). The URL is canonicalized to its SURT key first; \
url* means a prefix and *.example.org a domain, as on pywb's CDX server, whose parameters these flags are. Dates may be \
partial: --from 2007 is 20070101000000, --to 2008 is 20081231235959. Filters: field:regex (from the start of the value), \
!field:regex, =field:value, ~field:substring; fields urlkey, timestamp, url, mime, status, digest, length, offset, filename.`;
  static override examples = [
    "<%= config.bin %> cdx-query cluster/ 'example.org/*' --from 2007 --to 2008 --output json",
    '<%= config.bin %> cdx-query all.sorted.cdx example.org --match-type domain --filter status:200 --filter mime:text/html',
    '<%= config.bin %> cdx-query cluster/ http://example.org/ --sort closest --closest 20070615 --limit 3',
    '<%= config.bin %> cdx-query cluster/ example.org/ --collapse timestamp:8 --fl timestamp,digest',
  ];
  static override args = {
    source: Args.string({ description: 'ZipNum cluster, sorted CDX file, or directory of them (comma-separated for several)', required: true }),
    url: Args.string({ description: 'URL, url* (prefix) or *.domain', required: true }),
  };
  static override flags = {
    'match-type': Flags.string({
      description: 'exact, prefix, host or domain (default: exact, or what url* / *.domain say).',
      options: ['exact', 'prefix', 'host', 'domain'],
    }),
    from: Flags.string({ description: 'Earliest capture date, yyyy[MM[dd[HH[mm[ss]]]]].' }),
    to: Flags.string({ description: 'Latest capture date, padded up to the end of its period.' }),
    filter: Flags.string({ description: 'field:regex, !field:regex, =field:value or ~field:substring; repeatable, all must pass.', multiple: true }),
    collapse: Flags.string({ description: 'Drop lines whose field (or its first N characters: timestamp:8) equals the line before.' }),
    limit: Flags.integer({ description: 'At most this many lines (capped by nwax.cdx.max.results).', min: 1 }),
    sort: Flags.string({ description: 'default (key order), reverse, or closest (to --closest).', options: ['default', 'reverse', 'closest'] }),
    closest: Flags.string({ description: 'The date sort=closest orders by.' }),
    output: Flags.string({
      description: 'cdx (lines as stored; CDXJ written as CDX11), cdxj, or json (one object per line).',
      options: ['cdx', 'text', 'cdxj', 'json'],
      default: 'cdx',
    }),
    fl: Flags.string({ description: 'Only these fields, comma-separated (urlkey,timestamp,url,mime,status,digest,length,offset,filename).' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(CdxQueryCommand);
    const conf = await this.configurationFor(flags.define);
    const { parseCdxQuery } = await import('../cdx/cdx-query.js');
    const { openCdxSources } = await import('../cdx/cdx-source.js');
    const { searchCdx } = await import('../cdx/cdx-search.js');
    const { writeOutput } = await import('../util/output.js');
    const max = conf.getNumber('nwax.cdx.max.results');
    const q = parseCdxQuery(
      {
        url: args.url,
        matchType: flags['match-type'],
        from: flags.from,
        to: flags.to,
        filter: flags.filter,
        collapse: flags.collapse,
        limit: flags.limit,
        sort: flags.sort,
        closest: flags.closest,
        output: flags.output,
        fl: flags.fl,
      },
      max,
    );
    const sources = args.source
      .split(',')
      .filter(Boolean)
      .flatMap((s) => openCdxSources(s));
    await writeOutput(undefined, async (out) => {
      for await (const line of searchCdx(sources, q, { maxCollect: max, timeoutMs: 0 })) await out.write(line);
    });
  }
}
