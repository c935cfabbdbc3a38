import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Dumpindex extends NwaxCommand {
  static override summary = 'Print what indexes hold: the document count (-c), the fields (-l), one field (-f), or every document.';
  static override description = `Several indexes are read as one parallel set, joined by document number (a main index and its \
dates index, say); they must agree on the document count. Each document prints as "NUMBER TAB field=value ..." (the \
text field is left out unless asked for with -f text).`;
  static override examples = [
    '<%= config.bin %> dumpindex -c crawl/pindexes/p0/main crawl/pindexes/p0/dates',
    '<%= config.bin %> dumpindex -f dates crawl/indexes/part-00000 crawl/pindexes/part-00000/dates',
    '<%= config.bin %> dumpindex -l crawl/indexes/part-00000',
  ];
  static override strict = false;
  static override args = { index: Args.string({ description: 'Index files (a parallel set)', required: true }) };
  static override flags = {
    count: Flags.boolean({ char: 'c', description: 'Print the number of documents.', default: false }),
    list: Flags.boolean({ char: 'l', description: 'List the fields.', default: false }),
    field: Flags.string({ char: 'f', description: 'Print this field of every document.' }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Dumpindex);
    const { dumpIndexes } = await import('../index/dumpindex.js');
    for (const line of dumpIndexes(argv as string[], { count: flags.count, list: flags.list, field: flags.field })) process.stdout.write(`${line}\n`);
  }
}
