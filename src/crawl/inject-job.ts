/**
 * inject (Nutch's Injector): seed URLs into the CrawlDb. Seed lines are `URL` followed by
 * optional tab-separated metadata (`nutch.score=2.5`, `nutch.fetchInterval=86400`, any
 * `key=value` kept with the entry); URLs are normalized and filtered first. The job merges the
 * seeds with the CrawlDb already there: a URL the db knows keeps its entry (Nutch's default).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { recordPartName, SUCCESS } from '../mapreduce/dataset.js';
import { visible } from '../util/errors.js';
import { join } from 'node:path';
import type { Job } from '../mapreduce/job.js';
import type { Configuration } from '../conf/config.js';
import { lines } from '../mapreduce/line-reader.js';
import { externalSort } from '../mapreduce/external-sort.js';
import { RecordFileWriter } from '../mapreduce/record-file.js';
import { datasetOf, type CrawlDatum } from './crawl-datum.js';
import type { UrlFilters } from './url-filters.js';

type Tagged = { db: CrawlDatum } | { inject: CrawlDatum };

export const injectJob: Job = {
  name: 'inject',
  description: 'Seed URLs (a seeds dataset made by nwax inject) + the CrawlDb -> the CrawlDb with the new seeds as db_unfetched.',
  input: 'records',
  map(key, value, emit, ctx) {
    emit(key, datasetOf(ctx.inputFile) === 'seeds' ? { inject: value } : { db: value });
  },
  reduce(key, values, emit, ctx) {
    let db: CrawlDatum | undefined;
    let seed: CrawlDatum | undefined;
    for (const v of values as Tagged[]) {
      if ('db' in v) db = v.db;
      else seed ??= v.inject;
    }
    if (db && seed) ctx.count('already in the CrawlDb');
    else if (seed) ctx.count('injected');
    emit(key, db ?? seed!);
  },
};

export interface SeedCounts {
  lines: number;
  accepted: number;
  rejected: number;
}

/** Reads seed files into a sorted seeds dataset (`DIR/seeds/part-00000`) for the inject job. */
export async function prepareSeeds(files: string[], out: string, filters: UrlFilters, conf: Configuration, warn: (m: string) => void): Promise<SeedCounts> {
  const c: SeedCounts = { lines: 0, accepted: 0, rejected: 0 };
  const score = conf.getNumber('db.score.injected');
  const interval = conf.getNumber('db.fetch.interval.default');
  async function* seeds(): AsyncGenerator<string[]> {
    for (const [fi, f] of files.entries()) {
      let n = 0;
      const batch: string[] = [];
      for await (const line of lines(f)) {
        n++;
        const t = line.trim();
        if (t === '' || t.startsWith('#')) continue;
        c.lines++;
        const [raw, ...meta] = t.split(/\t|\s+(?=[^\s=]+=)/);
        const url = filters.apply(raw);
        if (!url) {
          c.rejected++;
          warn(`${f}: line ${n}: ${visible(raw.slice(0, 200))}: not an http(s) URL, or rejected by the URL filters; skipped`);
          continue;
        }
        const datum: CrawlDatum = { status: 'db_unfetched', fetchTime: '00000000000000', interval, score, retries: 0 };
        for (const m of meta) {
          const eq = m.indexOf('=');
          if (eq <= 0) continue;
          const k = m.slice(0, eq).trim();
          const v = m.slice(eq + 1).trim();
          if (k === 'nutch.score' && Number.isFinite(Number(v))) datum.score = Number(v);
          else if (k === 'nutch.fetchInterval' && Number.isFinite(Number(v))) datum.interval = Number(v);
          else (datum.metadata ??= {})[k] = v;
        }
        c.accepted++;
        // File and line number in the sort key: of a URL listed twice, the first line wins.
        batch.push(`${url}\t${String(fi).padStart(6, '0')}${String(n).padStart(12, '0')}\t${JSON.stringify(datum)}`);
      }
      if (batch.length) yield batch;
    }
  }
  mkdirSync(join(out, 'seeds'), { recursive: true });
  const w = new RecordFileWriter(join(out, 'seeds', recordPartName(0)));
  let last = '';
  for await (const sorted of externalSort(seeds(), { memory: conf.getBytes('nwax.sort.memory') })) {
    for (const l of sorted) {
      const [url, , json] = l.split('\t');
      if (url === last) continue; // a seed listed twice
      last = url;
      w.appendLine(url, json);
    }
  }
  w.close();
  writeFileSync(join(out, 'seeds', SUCCESS), '');
  return c;
}
