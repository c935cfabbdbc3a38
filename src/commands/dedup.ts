import { Args } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Dedup extends NwaxCommand {
  static override summary = 'Remove versions indexed twice across indexes: keep one per URL + digest, with every date of all of them.';
  static override description = `The copy kept is the one captured first; the others are marked deleted (document numbers stay \
aligned with parallel indexes; merge leaves deleted documents out). Run it after indexing several imports that may \
hold the same captures.`;
  static override examples = ['<%= config.bin %> dedup crawl/indexes/part-00000 other/indexes/part-00000'];
  static override strict = false;
  static override args = { index: Args.string({ description: 'Main indexes', required: true }) };

  async run(): Promise<void> {
    const { argv } = await this.parse(Dedup);
    const { dedupIndexes } = await import('../index/dedup.js');
    const r = dedupIndexes(argv as string[]);
    this.sayLine(`${r.groups} versions indexed more than once; ${r.deleted} copies marked deleted`);
  }
}
