import { Args } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { jobFlags, runDatasetJob } from './job-options.js';

export default class Updatedb extends NwaxCommand {
  static override summary = "Update the CrawlDb from segments (Nutch's updatedb): fetch statuses, dates, digests; new URLs from a live crawl's links.";
  static override description = `Reads CRAWLDB (when it exists) and each segment's crawl_fetch and crawl_parse, and writes the \
new CrawlDb in its place (aside, then renamed; the old one is kept until the new one is complete). A fetch status wins over a \
link, which wins over what the db held; a URL that failed more than db.fetch.retry.max times is db_gone; a fetched URL is \
due again after db.fetch.interval.default seconds. An import's CrawlDb is keyed by "URL sha1:DIGEST".`;
  static override examples = ['<%= config.bin %> updatedb crawl/crawldb crawl/segments/*'];
  static override strict = false;
  static override args = {
    crawldb: Args.string({ description: 'The CrawlDb directory', required: true }),
    segments: Args.string({ description: 'Segment directories', required: true }),
  };
  static override flags = { ...jobFlags };

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(Updatedb);
    const conf = await this.configurationFor(flags.define);
    process.exitCode = await runDatasetJob(
      'updatedb',
      args.crawldb,
      (argv as string[]).slice(1),
      ['crawl_fetch', 'crawl_parse'],
      args.crawldb,
      conf,
      flags,
      (m) => this.sayLine(m),
    );
  }
}
