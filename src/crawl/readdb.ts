/**
 * readdb (Nutch's CrawlDbReader): statistics of a CrawlDb (URLs by status, scores, fetch
 * times), every entry as JSON lines, or one URL's entry (found in its partition's part with
 * one block read).
 */
import { existsSync } from 'node:fs';
import { parts } from '../mapreduce/dataset.js';
import { RecordFileReader } from '../mapreduce/record-file.js';
import { hashPartition } from '../mapreduce/partition.js';
import type { CrawlDatum } from './crawl-datum.js';
import { InputError } from '../util/errors.js';

function partsOf(crawldb: string): string[] {
  if (!existsSync(crawldb)) throw new InputError(`${crawldb}: no such CrawlDb`);
  return parts(crawldb);
}

export function* entries(crawldb: string): Generator<[string, CrawlDatum]> {
  for (const p of partsOf(crawldb)) for (const r of new RecordFileReader(p).entries()) yield [r.key, r.value as CrawlDatum];
}

export function stats(crawldb: string): string[] {
  let total = 0;
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  const byStatus: Record<string, number> = {};
  const retries: Record<string, number> = {};
  for (const [, d] of entries(crawldb)) {
    total++;
    byStatus[d.status] = (byStatus[d.status] ?? 0) + 1;
    if (d.retries) retries[d.retries] = (retries[d.retries] ?? 0) + 1;
    min = Math.min(min, d.score);
    max = Math.max(max, d.score);
    sum += d.score;
  }
  const out = [`CrawlDb statistics: ${crawldb}`, `TOTAL urls:\t${total}`];
  for (const [k, v] of Object.entries(retries).sort()) out.push(`retry ${k}:\t${v}`);
  if (total) out.push(`min score:\t${min.toFixed(3)}`, `avg score:\t${(sum / total).toFixed(3)}`, `max score:\t${max.toFixed(3)}`);
  for (const [k, v] of Object.entries(byStatus).sort()) out.push(`status ${k}:\t${v}`);
  return out;
}

export function lookup(crawldb: string, url: string): CrawlDatum | undefined {
  const ps = partsOf(crawldb);
  const p = ps[hashPartition(url, ps.length)];
  return p ? (new RecordFileReader(p).get(url)[0] as CrawlDatum | undefined) : undefined;
}
