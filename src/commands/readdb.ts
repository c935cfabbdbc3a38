import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Readdb extends NwaxCommand {
  static override summary = "Read a CrawlDb: statistics, every entry, or one URL (Nutch's readdb).";
  static override description = `-stats prints the number of URLs by status (db_unfetched, db_fetched, db_gone, db_redir_temp, \
db_redir_perm, db_notmodified), by retries, and the scores; -dump prints every entry as "URL TAB JSON" (to -o FILE, written \
aside and renamed); -url URL prints one entry, or exits 1 when the CrawlDb does not hold it.`;
  static override examples = [
    '<%= config.bin %> readdb crawl/crawldb -stats',
    '<%= config.bin %> readdb crawl/crawldb -dump -o crawldb.txt',
    '<%= config.bin %> readdb crawl/crawldb -url http://127.0.0.1:8000/A.html',
  ];
  static override args = { crawldb: Args.string({ description: 'The CrawlDb directory', required: true }) };
  static override flags = {
    stats: Flags.boolean({ description: 'Counts by status and retries, and scores.', exclusive: ['dump', 'url'] }),
    dump: Flags.boolean({ description: 'Every entry as URL TAB JSON.', exclusive: ['stats', 'url'] }),
    url: Flags.string({ description: 'The entry of one URL.', exclusive: ['stats', 'dump'] }),
    output: Flags.string({ char: 'o', description: 'With -dump: write to this file instead of stdout.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Readdb);
    const r = await import('../crawl/readdb.js');
    const { UsageError } = await import('../util/errors.js');
    if (flags.stats) process.stdout.write(`${r.stats(args.crawldb).join('\n')}\n`);
    else if (flags.url) {
      const d = r.lookup(args.crawldb, flags.url);
      if (!d) {
        this.sayLine(`${flags.url}: not in ${args.crawldb}`);
        process.exitCode = 1;
      } else process.stdout.write(`${flags.url}\t${JSON.stringify(d)}\n`);
    } else if (flags.dump) {
      const { writeOutput } = await import('../util/output.js');
      await writeOutput(flags.output, async (out) => {
        for (const [k, v] of r.entries(args.crawldb)) await out.write(`${k}\t${JSON.stringify(v)}`);
      });
    } else throw new UsageError('say what to read: -stats, -dump or -url URL');
  }
}
