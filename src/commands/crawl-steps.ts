/**
 * The steps of a live crawl as calls (they run registered jobs, so they live with the commands), each what its command does (inject, generate,
 * fetch, parse, updatedb, invertlinks, index, dedup), so that `nwax crawl` is a loop over them
 * and every step can also be run alone, as in Nutch.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import type { Configuration } from '../conf/config.js';
import { defaultConfDir } from '../conf/config.js';
import { parts, recordPartName, SUCCESS, writeDataset } from '../mapreduce/dataset.js';
import { RecordFileReader, RecordFileWriter } from '../mapreduce/record-file.js';
import { hashPartition } from '../mapreduce/partition.js';
import type { JobFlagValues } from './job-options.js';
import { runRegisteredJob } from './job-options.js';
import { UrlFilters } from '../crawl/url-filters.js';
import { generateTime, hostOf } from '../crawl/generate-job.js';
import type { CrawlDatum } from '../crawl/crawl-datum.js';
import { segmentName } from '../segment/segment.js';
import { InputError, NwaxError } from '../util/errors.js';
import { makeTempDir } from '../util/litter.js';

export interface StepContext {
  conf: Configuration;
  flags: JobFlagValues;
  say: (m: string) => void;
}

export function urlFilters(conf: Configuration): UrlFilters {
  return UrlFilters.fromConf(conf, process.env.NWAX_CONF_DIR ?? defaultConfDir());
}

function tmpNear(path: string, what: string): string {
  return makeTempDir(dirname(resolve(path)), `.${what}-`);
}

/** Seeds (a file, or a directory of files) into the CrawlDb. Returns the exit status. */
export async function inject(crawldb: string, seeds: string, s: StepContext): Promise<number> {
  const { prepareSeeds } = await import('../crawl/inject-job.js');
  let files: string[];
  try {
    files = statSync(seeds).isDirectory()
      ? readdirSync(seeds)
          .filter((f) => !f.startsWith('.'))
          .sort()
          .map((f) => join(seeds, f))
      : [seeds];
  } catch {
    throw new InputError(`${seeds}: no such seed file or directory`);
  }
  // The seeds are prepared in the temp dir: a crawl whose seeds are all bad leaves no directory behind.
  const tmp = makeTempDir(s.conf.getString('nwax.sort.tmpdir') || tmpdir(), 'nwax-inject-');
  try {
    let warned = 0;
    const c = await prepareSeeds(files, tmp, urlFilters(s.conf), s.conf, (m) => void (++warned <= 20 && s.say(m)));
    s.say(`${seeds}: ${c.lines} seed URLs, ${c.accepted} accepted, ${c.rejected} rejected`);
    if (c.lines === 0) throw new InputError(`${seeds}: lists no seed URL (one URL per line)`);
    if (c.accepted === 0) throw new InputError(`${seeds}: no seed URL passed the URL filters (conf/regex-urlfilter.txt)`);
    const inputs = [...(existsSync(crawldb) ? parts(crawldb) : []), ...parts(join(tmp, 'seeds'))];
    const code = await runRegisteredJob('inject', inputs, crawldb, s.conf, s.flags, s.say);
    return c.rejected > 0 ? Math.max(code, 3) : code;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** A fetch list: the due URLs into a new segment's crawl_generate. Returns the segment, or undefined when nothing is due. */
export async function generate(
  crawldb: string,
  segmentsDir: string,
  s: StepContext,
  o: { topN?: number; numFetchers?: number; segment?: string } = {},
): Promise<string | undefined> {
  if (!existsSync(crawldb)) throw new InputError(`${crawldb}: no CrawlDb (run nwax inject first)`);
  const tmp = tmpNear(segmentsDir, 'generate');
  try {
    const defines = [...(s.flags.define ?? [])];
    if (o.topN !== undefined) defines.push(`generate.topN=${o.topN}`);
    // Now is fixed for the whole job, so that every map task sees the same due URLs.
    defines.push(`generate.curtime=${generateTime(s.conf.getString('generate.curtime'))}`);
    await runRegisteredJob('generate', parts(crawldb), join(tmp, 'selected'), s.conf, { ...s.flags, define: defines, reduces: 1 }, s.say);
    const n = Math.max(1, o.numFetchers ?? 1);
    const lists: { url: string; datum: CrawlDatum }[][] = Array.from({ length: n }, () => []);
    for (const p of parts(join(tmp, 'selected'))) {
      for (const r of new RecordFileReader(p).entries()) {
        const v = r.value as { url: string; datum: CrawlDatum };
        lists[hashPartition(hostOf(v.url), n)].push(v);
      }
    }
    const total = lists.reduce((a, l) => a + l.length, 0);
    if (total === 0) {
      s.say(`${crawldb}: no URL is due; no segment generated`);
      return undefined;
    }
    let segment = o.segment ?? join(segmentsDir, segmentName());
    // Two rounds in one second would share a name: the later one waits for its own.
    while (!o.segment && existsSync(segment)) {
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      segment = join(segmentsDir, segmentName());
    }
    await writeDataset(join(segment, 'crawl_generate'), async (dir) => {
      lists.forEach((list, i) => {
        list.sort((a, b) => Buffer.compare(Buffer.from(a.url), Buffer.from(b.url)));
        const w = new RecordFileWriter(join(dir, recordPartName(i)));
        for (const v of list) w.append(v.url, v.datum);
        w.close();
      });
    });
    s.say(`${segment}: ${total} URLs to fetch in ${n} fetch list${n > 1 ? 's' : ''}`);
    return segment;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Fetches a segment's list into its WARC files and crawl_fetch; parses it too with fetcher.parse. */
export async function fetch(segment: string, s: StepContext): Promise<number> {
  const { fetchSegment } = await import('../fetcher/fetcher.js');
  const { formatCounts } = await import('../util/progress.js');
  const r = await fetchSegment(segment, s.conf, urlFilters(s.conf), s.say);
  s.say(
    `${segment}: fetched ${r.urls} URLs in ${r.seconds.toFixed(1)} s (${(r.urls / Math.max(r.seconds, 0.001)).toFixed(1)} pages/s), ${(r.bytes / 1e6).toFixed(1)} MB into ${r.warcs.length} WARC file${r.warcs.length === 1 ? '' : 's'}; ${formatCounts(r.counts)}`,
  );
  if (s.conf.getBoolean('fetcher.parse')) return parse(segment, s);
  return 0;
}

/** Whether a segment's fetch finished (crawl_fetch written): else it is fetched again. */
export function fetched(segment: string): boolean {
  return existsSync(join(segment, 'crawl_fetch', SUCCESS));
}

export function parsed(segment: string): boolean {
  return existsSync(join(segment, 'parse_data', SUCCESS)) && existsSync(join(segment, 'crawl_parse', SUCCESS));
}

/** Parses the WARC files of a fetched segment into its content, parse_data, parse_text and crawl_parse. */
export async function parse(segment: string, s: StepContext): Promise<number> {
  if (!fetched(segment)) throw new NwaxError('NWAX_INPUT', `${segment}: not fetched (no crawl_fetch); run nwax fetch first`);
  const warcDir = join(segment, 'warc');
  const warcs = existsSync(warcDir)
    ? readdirSync(warcDir)
        .filter((f) => f.endsWith('.warc.gz'))
        .sort()
    : [];
  const tmp = tmpNear(join(segment, 'x'), 'parse');
  try {
    const manifest = join(tmp, 'manifest');
    writeFileSync(manifest, warcs.map((f) => `${resolve(warcDir, f)}\n`).join(''));
    const out = join(tmp, 'out');
    const names = ['content', 'parse_data', 'parse_text', 'crawl_parse'];
    let code = 0;
    if (warcs.length) code = await runRegisteredJob('parse', [manifest], out, s.conf, s.flags, s.say);
    else {
      // Nothing was fetched (every URL denied, say): empty datasets, so the segment is complete.
      for (const n of names) {
        mkdirSync(join(out, n), { recursive: true });
        writeFileSync(join(out, n, SUCCESS), '');
      }
    }
    for (const n of names) {
      const target = join(segment, n);
      rmSync(`${target}.old`, { recursive: true, force: true });
      if (existsSync(target)) renameSync(target, `${target}.old`);
      renameSync(join(out, n), target);
      rmSync(`${target}.old`, { recursive: true, force: true });
    }
    return code;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
