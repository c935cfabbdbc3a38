import { Args } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { jobFlags, runDatasetJob } from './job-options.js';

export default class Invertlinks extends NwaxCommand {
  static override summary = "Invert the links of segments into the LinkDb (Nutch's invertlinks): URL -> inlinks (from URL, anchor text).";
  static override description = `Reads LINKDB (when it exists) and each segment's crawl_parse (outlinks with anchor text), and \
writes the new LinkDb in its place. Links point to URLs, so every version of a page gets the inlinks of its URL at index \
time. db.ignore.internal.links drops links within a host; db.max.anchor.length and db.max.inlinks bound what is kept.`;
  static override examples = ['<%= config.bin %> invertlinks crawl/linkdb crawl/segments/*'];
  static override strict = false;
  static override args = {
    linkdb: Args.string({ description: 'The LinkDb directory', required: true }),
    segments: Args.string({ description: 'Segment directories', required: true }),
  };
  static override flags = { ...jobFlags };

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(Invertlinks);
    const conf = await this.configurationFor(flags.define);
    process.exitCode = await runDatasetJob('invertlinks', args.linkdb, (argv as string[]).slice(1), ['crawl_parse'], args.linkdb, conf, flags, (m) =>
      this.sayLine(m),
    );
  }
}
