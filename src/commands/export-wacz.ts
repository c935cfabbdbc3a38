import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class ExportWacz extends NwaxCommand {
  static override summary = 'Write a collection, or the versions a query finds, as a WACZ package that ReplayWeb.page opens.';
  static override description = `The package (WACZ 1.1.1) holds each version's record copied byte for byte from its archive, \
in archive/data.warc.gz: without a query, every capture of the collection (the segments' capture index: what pages \
embed, other dates, redirects, revisits); with one, each version found at every date the class may see it (its \
other captures: the same URL and digest) and the records of what each page embeds (the captures nearest it) so that \
it replays. A sorted CDXJ index of it (indexes/index.cdx, or past nwax.export.index.plain.max lines \
indexes/index.cdx.gz in gzip members with its summary indexes/index.idx, as ReplayWeb.page opens a large package); \
pages/pages.jsonl with each page's URL, capture time and title (HTML and PDF versions: the others are records only), \
and its extracted text while the list stays within what ReplayWeb.page searches (nwax.export.pages.text.max); \
datapackage.json (every resource's SHA-256) and datapackage-digest.json. Written aside and renamed into place when whole.`;
  static override examples = [
    '<%= config.bin %> export-wacz all.wacz -dir crawl',
    "<%= config.bin %> export-wacz linux-usb.wacz -dir crawl 'linux usb site:www.debian.org'",
  ];
  static override strict = false;
  static override args = {
    out: Args.string({ description: 'The WACZ file to write', required: true }),
    query: Args.string({ description: 'A query (several arguments are joined with spaces); none: the whole collection' }),
  };
  static override flags = {
    dir: Flags.string({ description: 'The crawl directory with indexes/, pindexes/ and segments/ (default: property searcher.dir).' }),
    'no-resources': Flags.boolean({ description: "The pages' own records only: not what they embed, nor the collection's other captures.", default: false }),
    user: Flags.string({
      description:
        'The user class the package is for, as the access rules (nwax.access.rules) name it: what they withhold from it is left out (default: the public).',
    }),
  };

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(ExportWacz);
    const conf = await this.configurationFor(flags.define);
    const { exportWacz } = await import('../export/wacz-export.js');
    const { configuredAccess } = await import('../access/policy.js');
    const access = configuredAccess(conf);
    const words = (argv as string[]).slice(1);
    const t0 = Date.now();
    const dir = flags.dir ?? conf.getString('searcher.dir');
    const pagesLevel = conf.getNumber('nwax.export.pages.level');
    if (!Number.isInteger(pagesLevel) || pagesLevel < 0 || pagesLevel > 9) {
      const { InputError } = await import('../util/errors.js');
      throw new InputError(`nwax.export.pages.level: ${pagesLevel} is not a deflate level (0 to 9; 0 stores pages.jsonl)`);
    }
    const indexPlainMax = conf.getNumber('nwax.export.index.plain.max');
    if (!Number.isInteger(indexPlainMax) || indexPlainMax < 0) {
      const { InputError } = await import('../util/errors.js');
      throw new InputError(`nwax.export.index.plain.max: ${indexPlainMax} is not a number of lines (0 or more)`);
    }
    const pagesTextMax = conf.getNumber('nwax.export.pages.text.max');
    if (!Number.isInteger(pagesTextMax) || pagesTextMax < 0) {
      const { InputError } = await import('../util/errors.js');
      throw new InputError(`nwax.export.pages.text.max: ${pagesTextMax} is not a number of bytes (0 or more)`);
    }
    const r = await exportWacz({
      indexPlainMax,
      pagesTextMax,
      dir,
      out: args.out,
      query: words.length ? words.join(' ') : undefined,
      resources: !flags['no-resources'],
      pagesLevel,
      ...(access ? { access } : {}),
      ...(flags.user ? { user: flags.user } : {}),
      software: `nwax ${this.config.version}`,
      say: (m) => this.sayLine(m),
    });
    const skipped = Object.entries(r.skipped);
    const left = skipped.length ? `, ${skipped.reduce((n, [, k]) => n + k, 0)} records left out (${skipped.map(([why, k]) => `${why} ${k}`).join(', ')})` : '';
    // A query's pages bring what they embed; a collection brings every capture it holds.
    const besides = words.length
      ? `${r.captures} captures at the versions' other dates, ${r.resources} embedded resources (${r.missing} not in the archive)`
      : `${r.captures} other captures`;
    this.sayLine(
      `${args.out}: ${r.pages} pages${r.pagesText ? '' : ' (listed without their text)'}${r.versions > r.pages ? ` and ${r.versions - r.pages} other versions` : ''}, ${besides}, ${r.records} records, ${(r.bytes / 1e6).toFixed(1)} MB of WARC${left} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    // As import and cdx: a record skipped is exit 3, the package written with the rest.
    if (skipped.length) process.exitCode = 3;
  }
}
