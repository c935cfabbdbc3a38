import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Merge extends NwaxCommand {
  static override summary = 'Merge indexes into one; -p flattens a parallel set (main + dates) into one index with the dates inside.';
  static override description = `Documents keep the order of the inputs and are numbered anew; documents that dedup marked \
deleted are left out. OUT is written aside and renamed into place.`;
  static override examples = [
    '<%= config.bin %> merge crawl/merged crawl/indexes/part-00000 crawl/indexes/part-00001',
    '<%= config.bin %> merge -p crawl/flat crawl/indexes/part-00000 crawl/pindexes/part-00000/dates',
  ];
  static override strict = false;
  static override args = {
    out: Args.string({ description: 'The index to write', required: true }),
    index: Args.string({ description: 'Input indexes (with -p: the main index, then its parallel parts)', required: true }),
  };
  static override flags = {
    parallel: Flags.boolean({ char: 'p', description: 'The inputs are one parallel set: flatten it.', default: false }),
  };

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(Merge);
    const { mergeIndexes } = await import('../index/merge.js');
    const conf = await this.configurationFor(flags.define);
    const t0 = Date.now();
    const r = mergeIndexes(args.out, (argv as string[]).slice(1), flags.parallel, { ftsHashSize: conf.getBytes('nwax.index.fts.hashsize') });
    this.sayLine(
      `${args.out}: ${r.documents} documents${r.leftOut ? ` (${r.leftOut} deleted by dedup left out)` : ''} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
}
