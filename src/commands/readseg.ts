import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Readseg extends NwaxCommand {
  static override summary = "What is in segments (as Nutch's readseg): a list with counts, or the records of one document or all.";
  static override description = `-list prints, per segment, NAME GENERATED FETCHER START FETCHER END FETCHED PARSED as Nutch \
does (an import has no generate step: GENERATED is ?). -dump prints every part's record of each document key ("URL \
sha1:DIGEST"), or of the one KEY given, read by key from the sorted record files.`;

  static override examples = [
    '<%= config.bin %> readseg -list crawl/segments/*',
    "<%= config.bin %> readseg -dump crawl/segments/20071001120000 'http://example.org/ sha1:H4NTVEMXDNGBD6RNMDDZPE7HUY5WUHOS'",
    '<%= config.bin %> readseg -dump crawl/segments/20071001120000 | less',
  ];

  static override strict = false;
  static override args = {
    segment: Args.string({ description: 'Segment directory (-list takes several)', required: true }),
    key: Args.string({ description: '-dump: the document key "URL sha1:DIGEST"' }),
  };

  static override flags = {
    list: Flags.boolean({ description: 'List the segments with their counts.', exclusive: ['dump'] }),
    dump: Flags.boolean({ description: 'Print the records of KEY, or of every document.', exclusive: ['list'] }),
  };

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(Readseg);
    const { listSegments, dumpSegment } = await import('../segment/readseg.js');
    if (flags.list) {
      for (const line of listSegments(argv as string[])) process.stdout.write(`${line}\n`);
      const { missingCaptureIndex } = await import('../segment/segment.js');
      for (const seg of argv as string[]) {
        const why = missingCaptureIndex(seg);
        if (why) this.sayLine(why);
      }
      return;
    }
    if (!flags.dump) {
      const { UsageError } = await import('../util/errors.js');
      throw new UsageError('readseg: give -list or -dump');
    }
    const found = await dumpSegment(args.segment, args.key, (s) => process.stdout.write(s));
    if (args.key && !found) {
      const { InputError } = await import('../util/errors.js');
      throw new InputError(`${args.segment}: no document with key ${JSON.stringify(args.key)}`);
    }
  }
}
