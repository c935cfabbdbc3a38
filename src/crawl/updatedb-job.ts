/**
 * updatedb (Nutch's CrawlDb update): the CrawlDb and segments' crawl_fetch and crawl_parse in,
 * a new CrawlDb out. Merge rules as Nutch's CrawlDbReducer: a fetch status wins over a link,
 * which wins over the entry already in the db; the newest fetch counts; a retry past
 * `db.fetch.retry.max` makes the URL gone; a fetched URL is next due after
 * `db.fetch.interval.default`. Outlinks add new URLs (`db.update.additions.allowed`) in a live
 * crawl, whose keys are URLs; an import's keys are versions (`URL sha1:DIGEST`), and links
 * point to URLs, so an import's outlinks go to the LinkDb (invertlinks), not here.
 */
import type { Job, TaskContext } from '../mapreduce/job.js';
import { UrlFilters } from './url-filters.js';
import { defaultConfDir } from '../conf/config.js';
import { addSeconds, datasetOf, STATUS_AFTER_FETCH, type CrawlDatum, type FetchStatus } from './crawl-datum.js';

interface FetchValue {
  status: FetchStatus;
  date: string;
  dates?: string[];
  digest?: string;
  /** A redirect's target (live crawl): a new URL like an outlink. */
  redirect?: string;
}

let filters: UrlFilters | undefined;

/** Outlinks and redirect targets that may enter a live crawl's CrawlDb (filters, external links). */
function admit(url: string, from: string, ctx: TaskContext): string | undefined {
  filters ??= UrlFilters.fromConf(ctx.conf, process.env.NWAX_CONF_DIR ?? defaultConfDir());
  const u = filters.apply(url);
  if (!u) {
    ctx.count('links rejected by URL filters');
    return undefined;
  }
  if (ctx.conf.getBoolean('db.ignore.external.links')) {
    try {
      if (new URL(u).hostname !== new URL(from).hostname) {
        ctx.count('external links ignored');
        return undefined;
      }
    } catch {
      return undefined;
    }
  }
  return u;
}

type Tagged = { db: CrawlDatum } | { fetch: FetchValue } | { link: { score: number } };

export const updatedbJob: Job = {
  name: 'updatedb',
  description: 'CrawlDb + segments (crawl_fetch, crawl_parse) -> the updated CrawlDb (Nutch merge rules).',
  input: 'records',
  map(key, value, emit, ctx) {
    const from = datasetOf(ctx.inputFile);
    if (from === 'crawl_fetch') {
      const f = value as FetchValue;
      const digest = key.includes(' ') ? key.slice(key.lastIndexOf(' ') + 1) : f.digest;
      emit(key, { fetch: { status: f.status, date: f.date, ...(digest ? { digest } : {}) } });
      if (f.redirect && !key.includes(' ') && ctx.conf.getBoolean('db.update.additions.allowed')) {
        const target = admit(f.redirect, key, ctx);
        if (target) emit(target, { link: { score: 0 } });
      }
    } else if (from === 'crawl_parse') {
      if (key.includes(' ') || !ctx.conf.getBoolean('db.update.additions.allowed')) return;
      for (const l of (value as { outlinks?: { url: string }[] }).outlinks ?? []) {
        const target = admit(l.url, key, ctx);
        if (target) emit(target, { link: { score: 0 } });
      }
    } else {
      emit(key, { db: value as CrawlDatum });
    }
  },
  reduce(key, values, emit, ctx) {
    const interval = ctx.conf.getNumber('db.fetch.interval.default');
    let old: CrawlDatum | undefined;
    let fetch: FetchValue | undefined;
    let linked = false;
    for (const v of values as Tagged[]) {
      if ('db' in v) old = v.db;
      else if ('fetch' in v) {
        if (!fetch || v.fetch.date > fetch.date) fetch = v.fetch;
      } else linked = true;
    }
    let datum: CrawlDatum;
    if (fetch) {
      const status = STATUS_AFTER_FETCH[fetch.status] ?? 'db_unfetched';
      const retries = fetch.status === 'fetch_retry' ? (old?.retries ?? 0) + 1 : 0;
      const gone = retries > ctx.conf.getNumber('db.fetch.retry.max');
      // The URL's own interval (a seed's nutch.fetchInterval) before the default.
      const every = old?.interval ?? interval;
      const digest = fetch.digest && status === 'db_fetched' ? fetch.digest : old?.digest;
      // When the content was first seen: what a later revisit record refers to.
      const digestDate = digest && digest === old?.digest ? (old.digestDate ?? old.fetched) : digest === fetch.digest ? fetch.date : undefined;
      datum = {
        status: gone ? 'db_gone' : status,
        fetchTime: addSeconds(fetch.date, fetch.status === 'fetch_retry' && !gone ? 24 * 3600 : every),
        interval: every,
        score: old?.score ?? 1,
        ...(digest ? { digest } : {}),
        ...(digestDate ? { digestDate } : {}),
        retries,
        fetched: fetch.date,
      };
      ctx.count(`status ${datum.status}`);
    } else if (old) {
      datum = old;
    } else if (linked) {
      datum = { status: 'db_unfetched', fetchTime: '00000000000000', interval, score: 0, retries: 0 };
      ctx.count('new URLs from links');
    } else return;
    emit(key, datum);
  },
  encoding: {
    // An import's crawl_parse (keys `URL DIGEST`): map takes nothing from it, so its records
    // are passed over from their bytes, never decoded or parsed (their outlinks were most of
    // the job's input and half of its map's time). A damaged one is reported by invertlinks,
    // which reads them, not here.
    mapRecordBytes(line, start, tab, _end, _emit, ctx) {
      if (datasetOf(ctx.inputFile) !== 'crawl_parse') return false;
      // A space in the key, looked for inside the key only (a URL key has none: not on through the chunk).
      return line.subarray(start, tab).includes(0x20);
    },
  },
};
