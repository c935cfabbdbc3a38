/**
 * The fetcher (Nutch's Fetcher): a segment's fetch list (crawl_generate) fetched politely
 * (fetch-queues.ts), robots.txt obeyed (robots.ts), every response written to the segment's
 * WARC files (request + response, or revisit when the payload's digest is the one the CrawlDb
 * holds for the URL), and each URL's outcome written to crawl_fetch keyed by URL with Nutch's
 * statuses: fetch_success, fetch_redir_temp / fetch_redir_perm (the target recorded, and
 * followed up to http.redirect.max), fetch_gone (404, 410, 401, 403, robots_denied),
 * fetch_retry (5xx, timeouts, refused connections, robots.txt unreachable),
 * fetch_notmodified (304, or an unchanged payload).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import type { Configuration } from '../conf/config.js';
import { base32 } from '../archive/digest.js';
import { WarcWriter } from '../archive/warc-writer.js';
import { RecordFileReader, RecordFileWriter } from '../mapreduce/record-file.js';
import { parts, recordPartName, writeDataset } from '../mapreduce/dataset.js';
import type { CrawlDatum, FetchStatus } from '../crawl/crawl-datum.js';
import type { UrlFilters } from '../crawl/url-filters.js';
import { FetchQueues } from './fetch-queues.js';
import { RobotsCache } from './robots.js';
import { addressOf, httpGet } from './http-fetch.js';
import { NwaxError } from '../util/errors.js';
import { date14ToIso, dateTo14 } from '../archive/dates.js';
import { hostOf } from '../crawl/generate-job.js';

/** What crawl_fetch holds for a URL (updatedb's input; the index reads digest and date). */
export interface FetchRecord {
  status: FetchStatus;
  /** 14 digits, UTC. */
  date: string;
  /** sha1:BASE32 of the payload (2xx, and unchanged ones). */
  digest?: string;
  httpStatus?: number;
  /** Nutch's protocol status: success, moved, temp_moved, notfound, gone, access_denied, robots_denied, robots_deferred, exception, not_modified, would_block. */
  protocolStatus: string;
  detail?: string;
  redirect?: string;
  score?: number;
}

interface Item {
  url: string;
  queueId: string;
  datum: CrawlDatum;
  redirects: number;
}

export interface FetchSummary {
  urls: number;
  counts: Record<string, number>;
  warcs: string[];
  bytes: number;
  seconds: number;
}

/** The User-Agent Nutch builds: name/version (description; url; email). */
export function userAgent(conf: Configuration): string {
  const comment = ['http.agent.description', 'http.agent.url', 'http.agent.email']
    .map((p) => conf.getString(p))
    .filter(Boolean)
    .join('; ');
  const v = conf.getString('http.agent.version');
  return `${conf.getString('http.agent.name')}${v ? `/${v}` : ''}${comment ? ` (${comment})` : ''}`;
}

async function queueIdOf(url: string, mode: string): Promise<string> {
  const u = new URL(url);
  if (mode === 'byIP') return (await addressOf(u.hostname)) ?? u.hostname;
  if (mode === 'byDomain') return hostOf(url, 'domain');
  return u.hostname;
}

function statusOf(http: number): [FetchStatus, string] {
  if (http >= 200 && http < 300) return ['fetch_success', 'success'];
  if (http === 301 || http === 308) return ['fetch_redir_perm', 'moved'];
  if (http === 302 || http === 303 || http === 307) return ['fetch_redir_temp', 'temp_moved'];
  if (http === 304) return ['fetch_notmodified', 'not_modified'];
  if (http === 404) return ['fetch_gone', 'notfound'];
  if (http === 410) return ['fetch_gone', 'gone'];
  if (http === 401 || http === 403) return ['fetch_gone', 'access_denied'];
  if (http >= 400 && http < 500) return ['fetch_gone', 'gone'];
  return ['fetch_retry', 'exception'];
}

/** The fetch list of a segment, from its crawl_generate parts. */
export function readFetchList(segment: string): { url: string; datum: CrawlDatum }[] {
  const dir = join(segment, 'crawl_generate');
  if (!existsSync(dir)) throw new NwaxError('NWAX_INPUT', `${segment}: no crawl_generate (not a segment made by nwax generate)`);
  const out: { url: string; datum: CrawlDatum }[] = [];
  for (const p of parts(dir)) for (const r of new RecordFileReader(p).entries()) out.push({ url: r.key, datum: r.value as CrawlDatum });
  return out;
}

export async function fetchSegment(segment: string, conf: Configuration, filters: UrlFilters, log: (m: string) => void): Promise<FetchSummary> {
  const started = Date.now();
  const list = readFetchList(segment);
  const agent = userAgent(conf);
  const timeout = conf.getNumber('http.timeout');
  const contentLimit = conf.getNumber('http.content.limit');
  if (!(contentLimit > 0))
    throw new NwaxError(
      'NWAX_CONF',
      `http.content.limit must be a positive number of bytes (the fetcher holds a record up to it in memory), got ${contentLimit}`,
    );
  const threadsPerQueue = Math.max(1, conf.getNumber('fetcher.threads.per.queue'));
  const dispatcher = new Agent({ connections: threadsPerQueue, keepAliveTimeout: 10_000, connect: { timeout } });
  const robots = new RobotsCache({
    agents: [
      conf.getString('http.agent.name'),
      ...conf
        .getString('http.robots.agents')
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    ],
    userAgent: agent,
    timeout,
    dispatcher,
  });
  const maxCrawlDelay = conf.getNumber('fetcher.max.crawl.delay');
  const redirectMax = conf.getNumber('http.redirect.max');
  const mode = conf.getString('fetcher.queue.mode');
  if (!['byHost', 'byIP', 'byDomain'].includes(mode)) throw new NwaxError('NWAX_CONF', `fetcher.queue.mode must be byHost, byIP or byDomain, got ${mode}`);
  const queues = new FetchQueues<Item>(threadsPerQueue, conf.getNumber('fetcher.server.delay') * 1000, conf.getNumber('fetcher.server.min.delay') * 1000);
  const warcDir = join(segment, 'warc');
  // A fetch that died half way is fetched again from the start: its WARC files go.
  rmSync(warcDir, { recursive: true, force: true });
  mkdirSync(warcDir, { recursive: true });
  const writer = new WarcWriter(warcDir, conf.getString('warc.file.prefix'), conf.getBytes('warc.file.max.size'), {
    software: 'nwax (https://www.npmjs.com/package/nwax)',
    format: 'WARC File Format 1.1',
    'http-header-user-agent': agent,
    robots: 'obey',
    'fetcher.server.delay': String(conf.getNumber('fetcher.server.delay')),
    'fetcher.threads.per.queue': String(threadsPerQueue),
    'http.content.limit': String(contentLimit),
    isPartOf: segment.split('/').filter(Boolean).pop() ?? '',
  });
  const results = new Map<string, FetchRecord>();
  const counts: Record<string, number> = {};
  const count = (k: string) => void (counts[k] = (counts[k] ?? 0) + 1);
  let bytes = 0;
  const seen = new Set<string>();
  for (const { url, datum } of list) {
    seen.add(url);
    queues.add({ url, datum, redirects: 0, queueId: await queueIdOf(url, mode) });
  }
  const record = (url: string, r: FetchRecord) => {
    results.set(url, r);
    count(r.protocolStatus);
  };

  /** Fetches one URL; `release` frees its queue slot as soon as the server is done with us. */
  async function fetchOne(item: Item, release: () => void): Promise<void> {
    const verdict = await robots.check(item.url);
    if (!verdict.allowed) {
      const now = dateTo14(new Date());
      if (verdict.reason === 'robots_deferred') {
        // The host is not fetched this round at all.
        for (const it of [item, ...queues.drain(item.queueId)])
          record(it.url, { status: 'fetch_retry', date: now, protocolStatus: 'robots_deferred', detail: verdict.detail });
        log(`${new URL(item.url).host}: ${verdict.detail}; its URLs are retried in a later round`);
        return;
      }
      record(item.url, { status: 'fetch_gone', date: now, protocolStatus: 'robots_denied', detail: verdict.detail });
      return;
    }
    if (verdict.crawlDelay !== undefined) {
      if (verdict.crawlDelay > maxCrawlDelay) {
        const now = dateTo14(new Date());
        for (const it of [item, ...queues.drain(item.queueId)])
          record(it.url, {
            status: 'fetch_retry',
            date: now,
            protocolStatus: 'would_block',
            detail: `Crawl-delay ${verdict.crawlDelay} s is over fetcher.max.crawl.delay`,
          });
        return;
      }
      queues.setCrawlDelay(item.queueId, verdict.crawlDelay);
    }
    // robots.txt was just asked of this host: the page waits its turn like any request.
    if (verdict.fetchedNow) await new Promise((r) => setTimeout(r, queues.delayFor(item.queueId)));
    let res;
    try {
      res = await httpGet(item.url, { userAgent: agent, accept: conf.getString('http.accept'), timeout, contentLimit, dispatcher });
      // The politeness delay runs from here: writing the WARC is our time, not the server's.
      release();
    } catch (err) {
      const e = err as { code?: string; message: string; cause?: { code?: string } };
      record(item.url, { status: 'fetch_retry', date: dateTo14(new Date()), protocolStatus: 'exception', detail: e.code ?? e.cause?.code ?? e.message });
      return;
    }
    const date = dateTo14(res.date);
    const [status, protocolStatus] = statusOf(res.status);
    const digest = `sha1:${base32(createHash('sha1').update(res.payload).digest())}`;
    const firstSeen = item.datum.digestDate ?? item.datum.fetched;
    const unchanged = status === 'fetch_success' && !res.truncated && item.datum.digest === digest && firstSeen;
    await writer.write({
      url: item.url,
      date: res.date,
      ip: res.ip,
      requestLine: res.requestLine,
      requestHeaders: res.requestHeaders,
      statusLine: res.statusLine,
      responseHeaders: res.headers,
      payload: res.payload,
      truncated: res.truncated,
      ...(unchanged ? { revisitOf: { url: item.url, date: date14ToIso(firstSeen), digest } } : {}),
    });
    bytes += res.payload.length;
    const out: FetchRecord = unchanged
      ? { status: 'fetch_notmodified', date, digest, httpStatus: res.status, protocolStatus: 'not_modified', detail: 'payload unchanged (revisit record)' }
      : {
          status,
          date,
          httpStatus: res.status,
          protocolStatus,
          ...(status === 'fetch_success' ? { digest } : {}),
          ...(res.truncated ? { detail: 'truncated at http.content.limit' } : {}),
        };
    if (status === 'fetch_redir_perm' || status === 'fetch_redir_temp') {
      const location = res.headers.find(([n]) => n === 'location')?.[1];
      const target = location ? filters.apply(location, item.url) : undefined;
      if (target) {
        out.redirect = target;
        if (item.redirects < redirectMax && !seen.has(target)) {
          seen.add(target);
          queues.add({
            url: target,
            datum: { ...item.datum, digest: undefined, fetched: undefined, digestDate: undefined },
            redirects: item.redirects + 1,
            queueId: await queueIdOf(target, mode),
          });
        }
      }
    }
    if (res.status >= 500) out.detail = `HTTP ${res.status}`;
    record(item.url, out);
  }

  const threads = Math.max(1, conf.getNumber('fetcher.threads.fetch'));
  const tty = process.stderr.isTTY === true;
  const timer = tty
    ? setInterval(
        () =>
          process.stderr.write(
            `\rfetch: ${results.size} URLs, ${(bytes / 1e6).toFixed(1)} MB, ${(results.size / ((Date.now() - started) / 1000)).toFixed(1)} pages/s, ${queues.pending} queued   `,
          ),
        500,
      )
    : undefined;
  try {
    await Promise.all(
      Array.from({ length: threads }, async () => {
        for (let item = await queues.take(); item; item = await queues.take()) {
          let released = false;
          const release = () => {
            if (!released) queues.finish(item!);
            released = true;
          };
          try {
            await fetchOne(item, release);
          } finally {
            release();
          }
        }
      }),
    );
  } finally {
    if (timer) {
      clearInterval(timer);
      process.stderr.write('\r\x1b[K');
    }
    await writer.close();
    await dispatcher.close();
  }
  // crawl_fetch, keyed by URL in byte order, written aside and put in place.
  await writeDataset(
    join(segment, 'crawl_fetch'),
    async (tmp) => {
      const w = new RecordFileWriter(join(tmp, recordPartName(0)));
      for (const url of [...results.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) w.append(url, results.get(url));
      w.close();
    },
    { force: true },
  );
  return {
    urls: results.size,
    counts,
    warcs: readdirSync(warcDir)
      .filter((f) => f.endsWith('.warc.gz'))
      .map((f) => join(warcDir, f)),
    bytes,
    seconds: (Date.now() - started) / 1000,
  };
}
