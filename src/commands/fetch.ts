import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Fetch extends NwaxCommand {
  static override summary = "Fetch a segment's fetch list into WARC files (Nutch's fetch, writing an archive).";
  static override description = `Fetches politely: a queue per host (fetcher.queue.mode), fetcher.threads.per.queue fetches \
at once per queue, fetcher.server.delay seconds between them (a longer robots.txt Crawl-delay wins, up to \
fetcher.max.crawl.delay), fetcher.threads.fetch in all; robots.txt obeyed for http.agent.name. Every response is written to \
SEGMENT/warc/*.warc.gz with its request (warcinfo first; revisit records when the payload is the one the CrawlDb holds; \
WARC-Truncated past http.content.limit), files rolled at warc.file.max.size. Each URL's outcome goes to SEGMENT/crawl_fetch \
with Nutch's statuses. Redirects are recorded and followed up to http.redirect.max. A fetch that died half way is fetched \
again from the start.`;
  static override examples = [
    '<%= config.bin %> fetch crawl/segments/20261122083000',
    '<%= config.bin %> fetch -threads 50 -D fetcher.server.delay=1 crawl/segments/20261122083000',
  ];
  static override args = { segment: Args.string({ description: 'The segment (made by nwax generate)', required: true }) };
  static override flags = {
    threads: Flags.integer({ description: 'Fetches in flight in all (property fetcher.threads.fetch).', min: 1 }),
    parse: Flags.boolean({ description: 'Parse the segment when fetched (property fetcher.parse).', allowNo: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Fetch);
    const defines = [...(flags.define ?? [])];
    if (flags.threads) defines.push(`fetcher.threads.fetch=${flags.threads}`);
    if (flags.parse !== undefined) defines.push(`fetcher.parse=${flags.parse}`);
    const conf = await this.configurationFor(defines);
    const { fetch } = await import('./crawl-steps.js');
    process.exitCode = await fetch(args.segment, { conf, flags: { engine: 'local', run: false, force: false, define: defines }, say: (m) => this.sayLine(m) });
  }
}
