import { Args } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { jobFlags } from './job-options.js';

export default class Parse extends NwaxCommand {
  static override summary = 'Parse a fetched segment: its WARC files into content, parse_data, parse_text and crawl_parse.';
  static override description = `The WARC files the fetcher wrote are read as import reads archives (HTML, text, PDF; \
charsets; outlinks with anchors; robots meta), and written into the segment: content, parse_data and parse_text keyed by \
version ("URL sha1:DIGEST", what nwax index joins) and crawl_parse keyed by URL (the outlinks updatedb and invertlinks read).`;
  static override examples = ['<%= config.bin %> parse crawl/segments/20261122083000'];
  static override args = { segment: Args.string({ description: 'A fetched segment', required: true }) };
  static override flags = { ...jobFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Parse);
    const conf = await this.configurationFor(flags.define);
    const { parse } = await import('./crawl-steps.js');
    process.exitCode = await parse(args.segment, { conf, flags, say: (m) => this.sayLine(m) });
  }
}
