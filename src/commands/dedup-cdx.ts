import { Args } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { runSortCommand, sortFlags } from './sort-flags.js';

export default class DedupCdx extends NwaxCommand {
  static override summary = 'Print the duplicate captures of CDX files: every capture of a URL+digest after the first.';
  static override description = `Lines are \`URLKEY sha1:DIGEST DATE FILE\`, sorted and unique, for every capture of a \
URLKEY+digest after the first in byte order (the first is the one \`import\` keeps). Reads CDX11, CDX9 and CDXJ, plain \
or gzipped; header lines are ignored. Sorts in bounded memory (--memory), spilling to disk.`;

  static override examples = ['<%= config.bin %> dedup-cdx all.cdx > all.dup', '<%= config.bin %> dedup-cdx --memory 1G crawl-*.cdx.gz -o all.dup'];
  static override strict = false;
  static override args = { files: Args.string({ description: 'CDX files; - for stdin', required: true }) };
  static override flags = sortFlags;

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(DedupCdx);
    await runSortCommand(this, 'dedup-cdx', argv as string[], flags);
  }
}
