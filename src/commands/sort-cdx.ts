import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { runSortCommand, sortFlags } from './sort-flags.js';

export default class SortCdx extends NwaxCommand {
  static override summary = 'Sort CDX (or any text) files in byte order, as LC_ALL=C sort, in bounded memory.';
  static override description = `Input of any size: sorted runs are spilled to disk past the memory budget and merged. \
--merge merges files that are each sorted already (sort -m); --unique drops repeated lines (sort -u). A \` CDX\` \
legend line is kept at the top. Output identical to LC_ALL=C sort.`;

  static override examples = [
    '<%= config.bin %> sort-cdx --memory 256M big1.cdx big2.cdx > all.sorted.cdx',
    '<%= config.bin %> sort-cdx --merge a.sorted.cdx b.sorted.cdx -o all.cdx',
  ];

  static override strict = false;
  static override args = { files: Args.string({ description: 'Text files (plain or gzipped); - for stdin', required: true }) };
  static override flags = {
    ...sortFlags,
    merge: Flags.boolean({ char: 'm', description: 'The inputs are sorted already: merge them (sort -m).', default: false }),
    unique: Flags.boolean({ char: 'u', description: 'Print each distinct line once (sort -u).', default: false }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(SortCdx);
    await runSortCommand(this, 'sort-cdx', argv as string[], flags);
  }
}
