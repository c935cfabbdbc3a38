import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class ZipnumBuild extends NwaxCommand {
  static override summary = 'Write a sorted CDX as a ZipNum cluster: gzip blocks of lines, a summary index and a location file.';
  static override description = `The cluster is the layout pywb and OpenWayback read: part files of gzip blocks of \
nwax.zipnum.lines lines (default 3000), the summary DIR/NAME.idx (first "urlkey timestamp" of each block, part, offset, \
length, block number) and DIR/NAME.loc (part TAB path). A lookup (nwax cdx-query, /cdx on nwax serve) reads one block \
per hit range instead of searching the whole file. The input must be sorted in byte order (LC_ALL=C sort, nwax sort-cdx) \
and hold CDX11 or CDXJ lines; order is checked as it is written. A large plain input is cut into shards at line starts \
(nwax.zipnum.shards, or one per nwax.zipnum.shard.size) written in parallel; a gzipped input is one shard. The cluster \
is built beside DIR and swapped in whole.`;
  static override examples = [
    '<%= config.bin %> zipnum build all.sorted.cdx cluster/',
    '<%= config.bin %> zipnum build -D nwax.zipnum.lines=1000 --shards 4 all.sorted.cdx /data/cluster',
  ];
  static override args = {
    cdx: Args.string({ description: 'A sorted CDX file (plain or gzipped)', required: true }),
    dir: Args.string({ description: 'The cluster directory to write', required: true }),
  };
  static override flags = {
    shards: Flags.integer({ description: 'Part files (default: property nwax.zipnum.shards; 0 = by nwax.zipnum.shard.size).', min: 0 }),
    name: Flags.string({ description: 'Name of the summary and location files (NAME.idx, NAME.loc).', default: 'cluster' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ZipnumBuild);
    const conf = await this.configurationFor(flags.define);
    const { buildZipnum } = await import('../cdx/zipnum-writer.js');
    const { formatBytes } = await import('../util/progress.js');
    const t0 = Date.now();
    const r = await buildZipnum(args.cdx, args.dir.replace(/\/+$/, '') || '.', {
      linesPerBlock: conf.getNumber('nwax.zipnum.lines'),
      shards: flags.shards ?? conf.getNumber('nwax.zipnum.shards'),
      shardSize: conf.getBytes('nwax.zipnum.shard.size'),
      name: flags.name,
    });
    const secs = (Date.now() - t0) / 1000;
    this.sayLine(
      `${args.dir}: ${r.lines} lines in ${r.blocks} blocks, ${r.shards} part file${r.shards > 1 ? 's' : ''}, ${formatBytes(r.clusterBytes)} from ${formatBytes(r.inputBytes)} (${((r.clusterBytes / Math.max(1, r.inputBytes)) * 100).toFixed(1)}%) in ${secs.toFixed(1)} s`,
    );
  }
}
