import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class AddDates extends NwaxCommand {
  static override summary =
    'Build a parallel dates index (of one index part, or of every part of an index): every capture date of every document, without rewriting the main index.';
  static override description = `For every document number of KEY-INDEX (a row for each, so the numbers stay aligned), writes \
the union of its dates in the SOURCE indexes (a main index, or an earlier dates index) and every date that DATES-FILE \
(dedup-cdx or revisits lines: URLKEY sha1:DIGEST DATE [FILE]; - for stdin; or the dataset \`nwax job dates\` made of \
such lines, on a cluster when there are hundreds of millions) gives for canonical(url) + digest. DEST is \
written aside and renamed into place. The incremental path: build a new dates index from the old one plus a new file, \
then put it in the old one's place. The last argument is the dates file; give - for stdin.

A whole index at once: with KEY-INDEX the directory an index job wrote (crawl/indexes, its part-NNNNN files), each \
SOURCE a directory too (an index job's output, or a set of parallel indexes: DIR/part-NNNNN/dates) and DEST the \
parallel set to write (crawl/pindexes), every part gets DEST/part-NNNNN/dates, aligned with it; the dates file is read \
once, and a line that names no document of any part is counted once.`;
  static override examples = [
    '<%= config.bin %> add-dates crawl/indexes crawl/indexes crawl/pindexes all.dup',
    '<%= config.bin %> add-dates crawl/indexes/part-00000 crawl/indexes/part-00000 crawl/pindexes/part-00000/dates all.dup',
    '<%= config.bin %> add-dates crawl/indexes/part-00000 crawl/pindexes/part-00000/dates crawl/pindexes/part-00000/dates.new new.dup',
  ];
  static override strict = false;
  static override args = {
    key: Args.string({ description: 'The key index (a main index)', required: true }),
    rest: Args.string({ description: 'SOURCE... DEST DATES-FILE', required: true }),
  };
  static override flags = {
    canonicalizer: Flags.string({
      description: 'Canonicalizer of the dates file keys (default: detected).',
      options: ['auto', 'surt', 'massaged'],
      default: 'auto',
    }),
  };

  async run(): Promise<void> {
    const { args, argv } = await this.parse(AddDates);
    const { UsageError } = await import('../util/errors.js');
    const rest = (argv as string[]).slice(1);
    if (rest.length < 3) throw new UsageError('add-dates KEY-INDEX SOURCE-INDEX... DEST DATES-FILE|-: too few arguments');
    const datesFile = rest[rest.length - 1];
    const dest = rest[rest.length - 2];
    const sources = rest.slice(0, -2);
    const { flags } = await this.parse(AddDates);
    const { addDates, addDatesToParts } = await import('../index/add-dates.js');
    const { statSync } = await import('node:fs');
    const t0 = Date.now();
    const opts = { canonicalizer: flags.canonicalizer, warn: (m: string) => this.sayLine(m) };
    let whole = false;
    try {
      whole = statSync(args.key).isDirectory();
    } catch {
      // Named below, by the index opened.
    }
    const r = whole
      ? await addDatesToParts(args.key, sources, dest, datesFile, opts)
      : { ...(await addDates(args.key, sources, dest, datesFile, opts)), written: [dest] };
    const where = whole ? `${dest} (${r.written.length} part${r.written.length === 1 ? '' : 's'})` : dest;
    this.sayLine(
      `${where}: ${r.documents} documents, ${r.datesAdded} dates added from ${r.linesRead} lines (${r.unmatched} for no document ${whole ? 'in any part' : 'here'}, ${r.badLines} bad) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    if (r.badLines > 0) process.exitCode = 3;
  }
}
