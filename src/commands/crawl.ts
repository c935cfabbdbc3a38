import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { jobFlags } from './job-options.js';

export default class Crawl extends NwaxCommand {
  static override summary = 'Crawl the live web from seeds: inject, then generate, fetch, parse, updatedb -depth times, then invertlinks, index and dedup.';
  static override description = `The whole loop of a live crawl, as Nutch's crawl script: SEEDS are injected into DIR/crawldb, \
then -depth rounds of generate (-topN URLs), fetch (WARC files in each segment), parse and updatedb, then invertlinks into \
DIR/linkdb, index into DIR/indexes and dedup by digest, so that nwax search and nwax serve find the crawl (-dir DIR). The WARC \
files are an archive like any other: nwax cdx indexes them, pywb replays them. Resumable: a segment left fetched half way by a \
crash is fetched again, one fetched but not parsed or not in the CrawlDb is finished, and a crawl run again after it \
was stopped runs only the rounds left to reach -depth (the crawl in progress is marked in DIR/crawl.state).`;
  static override examples = [
    '<%= config.bin %> crawl seeds.txt -dir crawl -depth 3 -topN 1000',
    '<%= config.bin %> crawl urls/ -dir crawl -depth 2 -threads 20 -D fetcher.server.delay=1',
  ];
  static override args = { seeds: Args.string({ description: 'Seed file or directory (one URL per line)', required: true }) };
  static override flags = {
    dir: Flags.string({ description: 'The crawl directory (crawldb, linkdb, segments, indexes).', default: 'crawl' }),
    depth: Flags.integer({ description: 'Rounds of generate, fetch, parse, updatedb.', default: 5, min: 1 }),
    topN: Flags.integer({ description: 'URLs per round at most, best scores first.', min: 1 }),
    threads: Flags.integer({ description: 'Fetches in flight (property fetcher.threads.fetch).', min: 1 }),
    reduces: jobFlags.reduces,
    memory: jobFlags.memory,
    force: jobFlags.force,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Crawl);
    const { existsSync, readdirSync, rmSync, writeFileSync } = await import('node:fs');
    const { basename, join } = await import('node:path');
    const defines = [...(flags.define ?? [])];
    if (flags.threads) defines.push(`fetcher.threads.fetch=${flags.threads}`);
    const conf = await this.configurationFor(defines);
    const steps = await import('./crawl-steps.js');
    const say = (m: string) => this.sayLine(m);
    const s = { conf, flags: { engine: 'local', run: false, force: flags.force, reduces: flags.reduces, memory: flags.memory, define: defines }, say };
    const dir = flags.dir;
    const crawldb = join(dir, 'crawldb');
    const segmentsDir = join(dir, 'segments');
    let worst = 0;
    const step = (code: number) => void (worst = Math.max(worst, code));
    const updated = (seg: string) => existsSync(join(seg, '_UPDATED'));
    const finish = async (seg: string) => {
      if (!steps.fetched(seg)) step(await steps.fetch(seg, s));
      if (!steps.parsed(seg)) step(await steps.parse(seg, s));
      const { datasetInputs } = await import('./dataset-inputs.js');
      const { runRegisteredJob } = await import('./job-options.js');
      step(await runRegisteredJob('updatedb', await datasetInputs(crawldb, [seg], ['crawl_fetch', 'crawl_parse']), crawldb, conf, s.flags, say));
      writeFileSync(join(seg, '_UPDATED'), '');
    };
    step(await steps.inject(crawldb, args.seeds, s));
    // A crawl that died: its unfinished segments first.
    const segments = () =>
      existsSync(segmentsDir)
        ? readdirSync(segmentsDir)
            .filter((n) => /^\d{14}$/.test(n))
            .sort()
            .map((n) => join(segmentsDir, n))
        : [];
    for (const seg of segments().filter((g) => !updated(g))) {
      // Stopped while generate wrote its list: the segment holds nothing fetched, and its round
      // runs again.
      if (!existsSync(join(seg, 'crawl_generate'))) {
        say(`${seg}: left by an earlier run before its fetch list was written; removed`);
        rmSync(seg, { recursive: true, force: true });
        continue;
      }
      say(`${seg}: left unfinished by an earlier run; finishing it`);
      await finish(seg);
    }
    // A crawl in progress is marked in the crawl directory until it has indexed: resumed, its
    // rounds are those of the segments generated since it began (the interrupted one, just
    // finished, among them), and only the rounds left to reach -depth run.
    const { beginCrawl, endCrawl } = await import('../crawl/crawl-state.js');
    const started = beginCrawl(dir);
    const done = started.resumed ? segments().filter((g) => basename(g) >= started.since).length : 0;
    if (started.resumed)
      say(`resuming the crawl begun ${started.since}: ${done} of its rounds done, ${Math.max(0, flags.depth - done)} left to reach -depth ${flags.depth}`);
    for (let round = done + 1; round <= flags.depth; round++) {
      const seg = await steps.generate(crawldb, segmentsDir, s, { topN: flags.topN });
      if (!seg) {
        say(`round ${round}: nothing left to fetch`);
        break;
      }
      say(`round ${round} of ${flags.depth}: ${seg}`);
      await finish(seg);
    }
    const all = segments().filter((g) => steps.parsed(g));
    const D = defines.flatMap((d) => ['-D', d]);
    if (all.length === 0) {
      endCrawl(dir);
      say(`${dir}: no segment was fetched and parsed; nothing to index`);
      process.exitCode = Math.max(worst, 3);
      return;
    }
    await this.config.runCommand('invertlinks', [join(dir, 'linkdb'), ...all, ...D]);
    await this.config.runCommand('index', [join(dir, 'indexes'), crawldb, join(dir, 'linkdb'), ...all, ...D]);
    const indexes = existsSync(join(dir, 'indexes'))
      ? readdirSync(join(dir, 'indexes'))
          .filter((n) => /^part-\d{5}$/.test(n))
          .map((n) => join(dir, 'indexes', n))
      : [];
    if (indexes.length) await this.config.runCommand('dedup', ['--by', 'digest', ...indexes]);
    endCrawl(dir);
    say(`${dir}: crawled; search it with nwax search -dir ${dir} QUERY, or nwax serve -dir ${dir}`);
    process.exitCode = worst;
  }
}
