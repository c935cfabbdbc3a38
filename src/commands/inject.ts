import { Args } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { jobFlags } from './job-options.js';

export default class Inject extends NwaxCommand {
  static override summary = "Inject seed URLs into a CrawlDb (Nutch's inject).";
  static override description = `SEEDS is a file, or a directory of files, of one URL per line, optionally followed by \
tab-separated metadata: nutch.score=N, nutch.fetchInterval=SECONDS, or any key=value kept with the entry. URLs are normalized \
(conf/regex-normalize.json) and filtered (conf/regex-urlfilter.txt); rejected lines are named. New URLs enter as db_unfetched \
with score db.score.injected; URLs the CrawlDb already holds keep their entry.`;
  static override examples = ['<%= config.bin %> inject crawl/crawldb seeds.txt', '<%= config.bin %> inject crawl/crawldb urls/'];
  static override args = {
    crawldb: Args.string({ description: 'The CrawlDb directory (created when missing)', required: true }),
    seeds: Args.string({ description: 'Seed file or directory', required: true }),
  };
  static override flags = { ...jobFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Inject);
    const conf = await this.configurationFor(flags.define);
    const { inject } = await import('./crawl-steps.js');
    process.exitCode = await inject(args.crawldb, args.seeds, { conf, flags, say: (m) => this.sayLine(m) });
  }
}
