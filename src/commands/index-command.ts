import { Args } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { jobFlags, runDatasetJob } from './job-options.js';

export default class IndexCommand extends NwaxCommand {
  static override summary = 'Index segments: one full-text index (SQLite FTS5) per partition, a document per version (URL + digest).';
  static override description = `Joins, per URL, every version's parse_data, parse_text, content and capture dates from the \
segments with its CrawlDb entry and the LinkDb inlinks of the URL (anchors are indexed; boost ln(e + inlinks) x score), \
and writes INDEXES/part-NNNNN (written aside, renamed into place at the end). Documents flagged noindex are left out \
and counted. CRAWLDB and LINKDB may be missing (no scores, no anchors): each that is gets a warning.`;
  static override examples = ['<%= config.bin %> index crawl/indexes crawl/crawldb crawl/linkdb crawl/segments/*'];
  static override strict = false;
  static override args = {
    indexes: Args.string({ description: 'The indexes directory to write', required: true }),
    crawldb: Args.string({ description: 'The CrawlDb', required: true }),
    linkdb: Args.string({ description: 'The LinkDb', required: true }),
    segments: Args.string({ description: 'Segment directories', required: true }),
  };
  static override flags = { ...jobFlags };

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(IndexCommand);
    const conf = await this.configurationFor(flags.define);
    const segments = (argv as string[]).slice(3);
    if (flags.engine === 'local') {
      // Either may be missing (a crawl without links), but a mistyped path must not pass unseen:
      // its index would lack every score, anchor or inlink boost.
      const { existsSync } = await import('node:fs');
      if (!existsSync(args.crawldb)) this.sayLine(`${args.crawldb}: no such CrawlDb; indexing without its scores`);
      if (!existsSync(args.linkdb)) this.sayLine(`${args.linkdb}: no such LinkDb; indexing without anchors or inlinks`);
    }
    process.exitCode = await runDatasetJob(
      'index',
      undefined,
      segments,
      ['parse_data', 'parse_text', 'content', 'crawl_fetch'],
      args.indexes,
      conf,
      flags,
      (m) => this.sayLine(m),
      { dbs: [args.crawldb, args.linkdb] },
    );
  }
}
