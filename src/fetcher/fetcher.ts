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

/** The fetcher's properties, read and checked once. */
interface FetchSettings {
  agent: string;
  accept: string;
  timeout: number;
  contentLimit: number;
  threads: number;
  threadsPerQueue: number;
  maxCrawlDelay: number;
  redirectMax: number;
  mode: string;
}

function fetchSettings(conf: Configuration): FetchSettings {
  const contentLimit = conf.getNumber('http.content.limit');
  if (!(contentLimit > 0))
    throw new NwaxError(
      'NWAX_CONF',
      `http.content.limit must be a positive number of bytes (the fetcher holds a record up to it in memory), got ${contentLimit}`,
    );
  const mode = conf.getString('fetcher.queue.mode');
  if (!['byHost', 'byIP', 'byDomain'].includes(mode)) throw new NwaxError('NWAX_CONF', `fetcher.queue.mode must be byHost, byIP or byDomain, got ${mode}`);
  return {
    agent: userAgent(conf),
    accept: conf.getString('http.accept'),
    timeout: conf.getNumber('http.timeout'),
    contentLimit,
    threads: Math.max(1, conf.getNumber('fetcher.threads.fetch')),
    threadsPerQueue: Math.max(1, conf.getNumber('fetcher.threads.per.queue')),
    maxCrawlDelay: conf.getNumber('fetcher.max.crawl.delay'),
    redirectMax: conf.getNumber('http.redirect.max'),
    mode,
  };
}

/** The segment's WARC writer, in a fresh `warc/` (a fetch that died half way is fetched again from the start). */
function openWarcs(segment: string, conf: Configuration, s: FetchSettings): { warcDir: string; writer: WarcWriter } {
  const warcDir = join(segment, 'warc');
  rmSync(warcDir, { recursive: true, force: true });
  mkdirSync(warcDir, { recursive: true });
  const writer = new WarcWriter(warcDir, conf.getString('warc.file.prefix'), conf.getBytes('warc.file.max.size'), {
    software: 'nwax (https://www.npmjs.com/package/nwax)',
    format: 'WARC File Format 1.1',
    'http-header-user-agent': s.agent,
    robots: 'obey',
    'fetcher.server.delay': String(conf.getNumber('fetcher.server.delay')),
    'fetcher.threads.per.queue': String(s.threadsPerQueue),
    'http.content.limit': String(s.contentLimit),
    isPartOf: segment.split('/').filter(Boolean).pop() ?? '',
  });
  return { warcDir, writer };
}

/** One round of fetching: the queues, robots.txt, the WARC writer, and each URL's outcome. */
class SegmentFetcher {
  readonly results = new Map<string, FetchRecord>();
  readonly counts: Record<string, number> = {};
  bytes = 0;
  /** URLs listed or queued (a redirect to one of them is not fetched twice). */
  private readonly seen = new Set<string>();

  constructor(
    private readonly s: FetchSettings,
    private readonly queues: FetchQueues<Item>,
    private readonly robots: RobotsCache,
    private readonly writer: WarcWriter,
    private readonly dispatcher: Agent,
    private readonly filters: UrlFilters,
    private readonly log: (m: string) => void,
  ) {}

  async add(url: string, datum: CrawlDatum, redirects = 0): Promise<void> {
    this.seen.add(url);
    this.queues.add({ url, datum, redirects, queueId: await queueIdOf(url, this.s.mode) });
  }

  private record(url: string, r: FetchRecord): void {
    this.results.set(url, r);
    this.counts[r.protocolStatus] = (this.counts[r.protocolStatus] ?? 0) + 1;
  }

  /** `item` and the rest of its queue recorded for a later round. */
  private deferQueue(item: Item, protocolStatus: string, detail: string): void {
    const now = dateTo14(new Date());
    for (const it of [item, ...this.queues.drain(item.queueId)]) this.record(it.url, { status: 'fetch_retry', date: now, protocolStatus, detail });
  }

  /** robots.txt's word on `item`: false where it is not fetched (recorded), else true once its turn has come. */
  private async robotsAllow(item: Item): Promise<boolean> {
    const verdict = await this.robots.check(item.url);
    if (!verdict.allowed) {
      if (verdict.reason === 'robots_deferred') {
        // The host is not fetched this round at all.
        this.deferQueue(item, 'robots_deferred', verdict.detail);
        this.log(`${new URL(item.url).host}: ${verdict.detail}; its URLs are retried in a later round`);
      } else this.record(item.url, { status: 'fetch_gone', date: dateTo14(new Date()), protocolStatus: 'robots_denied', detail: verdict.detail });
      return false;
    }
    if (verdict.crawlDelay !== undefined) {
      if (verdict.crawlDelay > this.s.maxCrawlDelay) {
        this.deferQueue(item, 'would_block', `Crawl-delay ${verdict.crawlDelay} s is over fetcher.max.crawl.delay`);
        return false;
      }
      this.queues.setCrawlDelay(item.queueId, verdict.crawlDelay);
    }
    // robots.txt was just asked of this host: the page waits its turn like any request.
    if (verdict.fetchedNow) await new Promise((r) => setTimeout(r, this.queues.delayFor(item.queueId)));
    return true;
  }

  /** Fetches one URL; `release` frees its queue slot as soon as the server is done with us. */
  async fetchOne(item: Item, release: () => void): Promise<void> {
    if (!(await this.robotsAllow(item))) return;
    let res: Awaited<ReturnType<typeof httpGet>>;
    try {
      const { agent: userAgent, accept, timeout, contentLimit } = this.s;
      res = await httpGet(item.url, { userAgent, accept, timeout, contentLimit, dispatcher: this.dispatcher });
      // The politeness delay runs from here: writing the WARC is our time, not the server's.
      release();
    } catch (err) {
      const e = err as { code?: string; message: string; cause?: { code?: string } };
      this.record(item.url, { status: 'fetch_retry', date: dateTo14(new Date()), protocolStatus: 'exception', detail: e.code ?? e.cause?.code ?? e.message });
      return;
    }
    const out = await this.archive(item, res);
    const redirect = out.status === 'fetch_redir_perm' || out.status === 'fetch_redir_temp' ? res.headers.find(([n]) => n === 'location')?.[1] : undefined;
    const target = redirect ? this.filters.apply(redirect, item.url) : undefined;
    if (target) {
      out.redirect = target;
      if (item.redirects < this.s.redirectMax && !this.seen.has(target))
        await this.add(target, { ...item.datum, digest: undefined, fetched: undefined, digestDate: undefined }, item.redirects + 1);
    }
    if (res.status >= 500) out.detail = `HTTP ${res.status}`;
    this.record(item.url, out);
  }

  /** The response written to the WARC (a revisit where the payload is the one the CrawlDb holds), and its outcome. */
  private async archive(item: Item, res: Awaited<ReturnType<typeof httpGet>>): Promise<FetchRecord> {
    const date = dateTo14(res.date);
    const [status, protocolStatus] = statusOf(res.status);
    const digest = `sha1:${base32(createHash('sha1').update(res.payload).digest())}`;
    const firstSeen = item.datum.digestDate ?? item.datum.fetched;
    const unchanged = status === 'fetch_success' && !res.truncated && item.datum.digest === digest && firstSeen;
    await this.writer.write({
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
    this.bytes += res.payload.length;
    return unchanged
      ? { status: 'fetch_notmodified', date, digest, httpStatus: res.status, protocolStatus: 'not_modified', detail: 'payload unchanged (revisit record)' }
      : {
          status,
          date,
          httpStatus: res.status,
          protocolStatus,
          ...(status === 'fetch_success' ? { digest } : {}),
          ...(res.truncated ? { detail: 'truncated at http.content.limit' } : {}),
        };
  }

  /** `threads` fetchers taking from the queues until they are empty. */
  async run(threads: number): Promise<void> {
    await Promise.all(
      Array.from({ length: threads }, async () => {
        for (let item = await this.queues.take(); item; item = await this.queues.take()) {
          let released = false;
          const release = () => {
            if (!released) this.queues.finish(item!);
            released = true;
          };
          try {
            await this.fetchOne(item, release);
          } finally {
            release();
          }
        }
      }),
    );
  }
}

/** crawl_fetch, keyed by URL in byte order, written aside and put in place. */
async function writeCrawlFetch(segment: string, results: Map<string, FetchRecord>): Promise<void> {
  await writeDataset(
    join(segment, 'crawl_fetch'),
    async (tmp) => {
      const w = new RecordFileWriter(join(tmp, recordPartName(0)));
      for (const url of [...results.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) w.append(url, results.get(url));
      w.close();
    },
    { force: true },
  );
}

export async function fetchSegment(segment: string, conf: Configuration, filters: UrlFilters, log: (m: string) => void): Promise<FetchSummary> {
  const started = Date.now();
  const list = readFetchList(segment);
  const s = fetchSettings(conf);
  const dispatcher = new Agent({ connections: s.threadsPerQueue, keepAliveTimeout: 10_000, connect: { timeout: s.timeout } });
  const robotAgents = conf
    .getString('http.robots.agents')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const robots = new RobotsCache({ agents: [conf.getString('http.agent.name'), ...robotAgents], userAgent: s.agent, timeout: s.timeout, dispatcher });
  const queues = new FetchQueues<Item>(s.threadsPerQueue, conf.getNumber('fetcher.server.delay') * 1000, conf.getNumber('fetcher.server.min.delay') * 1000);
  const { warcDir, writer } = openWarcs(segment, conf, s);
  const fetcher = new SegmentFetcher(s, queues, robots, writer, dispatcher, filters, log);
  for (const { url, datum } of list) await fetcher.add(url, datum);
  const tty = process.stderr.isTTY === true;
  const rate = () => (fetcher.results.size / ((Date.now() - started) / 1000)).toFixed(1);
  const timer = tty
    ? setInterval(
        () =>
          process.stderr.write(`\rfetch: ${fetcher.results.size} URLs, ${(fetcher.bytes / 1e6).toFixed(1)} MB, ${rate()} pages/s, ${queues.pending} queued   `),
        500,
      )
    : undefined;
  try {
    await fetcher.run(s.threads);
  } finally {
    if (timer) {
      clearInterval(timer);
      process.stderr.write('\r\x1b[K');
    }
    await writer.close();
    await dispatcher.close();
  }
  await writeCrawlFetch(segment, fetcher.results);
  return {
    urls: fetcher.results.size,
    counts: fetcher.counts,
    warcs: readdirSync(warcDir)
      .filter((f) => f.endsWith('.warc.gz'))
      .map((f) => join(warcDir, f)),
    bytes: fetcher.bytes,
    seconds: (Date.now() - started) / 1000,
  };
}
