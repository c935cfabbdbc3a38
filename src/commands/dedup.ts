import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Dedup extends NwaxCommand {
  static override summary = 'Remove versions indexed twice across indexes: keep one per URL + digest, with every date of all of them.';
  static override description = `The copy kept is the one captured first; the others are marked deleted (document numbers stay \
aligned with parallel indexes; merge leaves deleted documents out). Run it after indexing several imports that may \
hold the same captures. With --by digest (a live crawl), documents of different URLs with the same content keep one: \
the highest boost, then the shortest URL (Nutch's dedup).`;
  static override examples = ['<%= config.bin %> dedup crawl/indexes/part-00000 other/indexes/part-00000'];
  static override strict = false;
  static override args = { index: Args.string({ description: 'Main indexes', required: true }) };
  static override flags = {
    by: Flags.string({
      description: 'What makes two documents duplicates: the same URL and digest (versions indexed twice), or the same digest under any URL.',
      options: ['url-digest', 'digest'],
      default: 'url-digest',
    }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Dedup);
    const { dedupByDigest, dedupIndexes } = await import('../index/dedup.js');
    if (flags.by === 'digest') {
      const r = dedupByDigest(argv as string[]);
      this.sayLine(`${r.groups} contents indexed under more than one URL; ${r.deleted} copies marked deleted`);
      return;
    }
    const r = dedupIndexes(argv as string[]);
    this.sayLine(`${r.groups} versions indexed more than once; ${r.deleted} copies marked deleted`);
  }
}
