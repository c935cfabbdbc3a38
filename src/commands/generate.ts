import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { jobFlags } from './job-options.js';

export default class Generate extends NwaxCommand {
  static override summary = "Generate a fetch list: the due URLs of the CrawlDb into a new segment (Nutch's generate).";
  static override description = `Due URLs (fetch time passed, not gone; now is generate.curtime or the clock) pass the URL \
filters, best score first, at most generate.max.count per host or domain (generate.count.mode), at most -topN in all, into \
SEGMENTS/<yyyyMMddHHmmss>/crawl_generate, partitioned by host so that a host is in one fetch list. Prints nothing and exits 0 \
when no URL is due (the segment path is printed on stdout otherwise).`;
  static override examples = [
    '<%= config.bin %> generate crawl/crawldb crawl/segments -topN 1000',
    '<%= config.bin %> generate crawl/crawldb crawl/segments -D generate.max.count=50',
  ];
  static override args = {
    crawldb: Args.string({ description: 'The CrawlDb directory', required: true }),
    segments: Args.string({ description: 'The directory new segments go in', required: true }),
  };
  static override flags = {
    topN: Flags.integer({ description: 'At most N URLs, best scores first (property generate.topN).', min: 0 }),
    numFetchers: Flags.integer({ description: 'Fetch lists (parts of crawl_generate), a host in one of them.', min: 1, default: 1 }),
    ...jobFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Generate);
    const conf = await this.configurationFor(flags.define);
    const { generate } = await import('./crawl-steps.js');
    const seg = await generate(args.crawldb, args.segments, { conf, flags, say: (m) => this.sayLine(m) }, { topN: flags.topN, numFetchers: flags.numFetchers });
    if (seg) process.stdout.write(`${seg}\n`);
  }
}
