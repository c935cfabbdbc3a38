import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Search extends NwaxCommand {
  static override summary = 'Search the indexes: one hit per version of a page, with every date it was captured.';
  static override description = `Words are all required; "phrases"; -word or -"phrase" excludes. Fields: site:example.org (with \
or without www., subdomains too), type:text/html or type:text or type:pdf, collection:NAME, url:URL (all versions of one \
URL), title:word, date:2007 or date:200710 or date:20071005 or date:2007-2008 (the end of a range reaches the end of its \
period; a version matches when any of its capture dates is in range). A comma means any of: collection:a,b. \
The indexes are those under -dir (default property searcher.dir): every pindexes/<name> set (main + dates) and indexes/part-N.`;
  static override examples = [
    "<%= config.bin %> search 'alligator -crocodile site:example.org type:text/html date:2007-2008'",
    '<%= config.bin %> search --json --hits 20 --hits-per-site 2 \'"freshwater environments"\'',
    "<%= config.bin %> search 'url:http://example.org/index.html'",
  ];
  static override strict = false;
  static override args = { query: Args.string({ description: 'The query (several arguments are joined with spaces)', required: true }) };
  static override flags = {
    dir: Flags.string({ description: 'The crawl directory with indexes/ and pindexes/ (default: property searcher.dir).' }),
    json: Flags.boolean({ description: 'Print the results as JSON.', default: false }),
    hits: Flags.integer({ description: 'Hits per page.', default: 10, min: 1 }),
    start: Flags.integer({ description: 'Index of the first hit shown (paging).', default: 0, min: 0 }),
    exact: Flags.boolean({
      description: 'Rank every match exactly (default: past nwax.search.max.scored matches in the collection, the likeliest are ranked).',
      default: false,
    }),
    user: Flags.string({
      description: 'The user class the access rules (nwax.access.rules) answer for, as a trusted proxy names it (default: the public).',
    }),
    'hits-per-site': Flags.integer({
      description: 'At most N hits per host, after merging all partitions; 0 = no limit (default: property searcher.hits.per.site).',
      min: 0,
    }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Search);
    const conf = await this.configurationFor(flags.define);
    const { Searcher } = await import('../search/searcher.js');
    const { renderJson, renderText } = await import('../serve/render-text.js');
    const { configuredAccess } = await import('../access/policy.js');
    const searcher = new Searcher(flags.dir ?? conf.getString('searcher.dir'), undefined, configuredAccess(conf));
    try {
      const r = searcher.view(flags.user).search((argv as string[]).join(' '), {
        start: flags.start,
        hits: flags.hits,
        hitsPerSite: flags['hits-per-site'] ?? conf.getNumber('searcher.hits.per.site'),
        hitsPerSiteDefault: flags['hits-per-site'] === undefined,
        exact: flags.exact,
        maxScored: conf.getNumber('nwax.search.max.scored'),
        budgetMs: conf.getNumber('nwax.search.time.budget'),
      });
      // An external Wayback when one is configured, else the replay of `nwax serve`.
      const template =
        conf.getString('nwax.wayback.prefix') ||
        `${(conf.getString('nwax.replay.base.url') || `http://127.0.0.1:${conf.getNumber('nwax.replay.port')}`).replace(/\/+$/, '')}/replay/{collection}/{date}/{url}`;
      process.stdout.write(flags.json ? renderJson(r, template) : renderText(r, template, process.stdout.isTTY === true));
    } finally {
      searcher.close();
    }
  }
}
