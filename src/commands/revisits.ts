import { Args } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { runSortCommand, sortFlags } from './sort-flags.js';

export default class Revisits extends NwaxCommand {
  static override summary = 'Print the revisit captures of CDX files (mime warc/revisit, or file - as 2008 Wayback CDX wrote them).';
  static override description = `Lines are \`URLKEY sha1:DIGEST DATE\`, sorted and unique: the dates on which a version was \
seen again without being stored again. Append them to the dedup-cdx output for \`import -e\` and \`add-dates\`. Reads \
CDX11, CDX9 and CDXJ, plain or gzipped. Sorts in bounded memory (--memory), spilling to disk.`;

  static override examples = ['<%= config.bin %> revisits all.cdx >> all.dup'];
  static override strict = false;
  static override args = { files: Args.string({ description: 'CDX files; - for stdin', required: true }) };
  static override flags = sortFlags;

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Revisits);
    await runSortCommand(this, 'revisits', argv as string[], flags);
  }
}
