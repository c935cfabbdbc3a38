import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadStream, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WARCParser } from 'warcio';
import base32Encode from 'base32-encode';
import { BIN, ROOT, breathe, nwax, nwaxAsync, segmentRecords, tempDir } from './helpers.js';
import { startSite } from '../scripts/site-server.mjs';

const DELAY = 0.3;
const CRAWL_CONF = ['-D', `fetcher.server.delay=${DELAY}`, '-D', 'http.timeout=1000', '-D', 'http.content.limit=20000', '-D', 'http.agent.name=nwax-test'];

type Site = Awaited<ReturnType<typeof startSite>>;

function segments(dir: string): string[] {
  const d = join(dir, 'segments');
  return readdirSync(d)
    .filter((n) => /^\d{14}$/.test(n))
    .sort()
    .map((n) => join(d, n));
}

function warcs(segment: string): string[] {
  return readdirSync(join(segment, 'warc')).map((f) => join(segment, 'warc', f));
}

// An encoder that is not nwax's (base32-encode, the one warcio.js uses), for an independent check.
const b32sha1 = (buf: Buffer) => `sha1:${base32Encode(createHash('sha1').update(buf).digest(), 'RFC4648', { padding: false })}`;

interface Rec {
  type: string;
  url?: string;
  headers: Map<string, string>;
  block: Buffer;
}

/** Every record of a WARC file as warcio.js (not nwax) reads it. */
async function warcioRecords(file: string): Promise<Rec[]> {
  const out: Rec[] = [];
  for await (const r of new WARCParser(createReadStream(file), { parseHttp: false })) {
    const block = Buffer.from(await r.readFully(false));
    // warcio.js gives header names in lower case.
    const headers = new Map([...r.warcHeaders.headers].map(([k, v]) => [String(k).toLowerCase(), String(v)] as [string, string]));
    out.push({
      type: r.warcType ?? '',
      url: r.warcTargetURI ?? undefined,
      headers: { get: (n: string) => headers.get(n.toLowerCase()) } as Map<string, string>,
      block,
    });
  }
  return out;
}

describe('the live-web crawl of the test site', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  let site: Site;
  let first: { code: number; stderr: string };

  beforeAll(async () => {
    site = await startSite({ slowMs: 3000 });
    writeFileSync(join(dir, 'seeds.txt'), `${site.url}/A.html\n`);
    first = await nwaxAsync(['crawl', join(dir, 'seeds.txt'), '-dir', crawl, '-depth', '3', ...CRAWL_CONF]);
  }, 120_000);
  afterAll(() => site?.close());

  it('fetches exactly the allowed pages, robots.txt once a round, each request fetcher.server.delay after the last', () => {
    expect(first.code, first.stderr).toBe(0);
    const paths = site.log.map((l) => l.path);
    expect(paths.filter((p) => p === '/robots.txt')).toHaveLength(3);
    expect(new Set(paths)).toEqual(
      new Set([
        '/robots.txt',
        '/A.html',
        '/B.html',
        '/C.html',
        '/C-duplicate.html',
        '/moved-permanently',
        '/E.html',
        '/moved-temporarily',
        '/F.html',
        '/missing.html',
        '/flaky.html',
        '/slow.html',
        '/big.html',
        '/gzip.html',
        '/win1252.html',
      ]),
    );
    expect(paths).not.toContain('/private/secret.html');
    expect(site.log.every((l) => l.ua.startsWith('nwax-test/'))).toBe(true);
    // Within each round (a fetch run starts with robots.txt), no two requests closer than the delay.
    const log = [...site.log].sort((a, b) => a.t - b.t);
    const gaps = log
      .slice(1)
      .filter((l) => l.path !== '/robots.txt')
      .map((l) => l.t - log.filter((x) => x.t <= l.t && x !== l).pop()!.t);
    expect(gaps.length).toBe(log.length - 3);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(DELAY * 1000 - 2);
  });

  it("records Nutch's statuses in crawl_fetch and the CrawlDb", async () => {
    const fetched = new Map<string, { status: string; protocolStatus: string; redirect?: string; digest?: string; detail?: string }>();
    for (const seg of segments(crawl)) for (const [k, v] of segmentRecords(seg, 'crawl_fetch')) fetched.set(k.replace(site.url, ''), v as never);
    const st = (p: string) => `${fetched.get(p)?.status} ${fetched.get(p)?.protocolStatus}`;
    for (const p of ['/A.html', '/B.html', '/C.html', '/C-duplicate.html', '/E.html', '/F.html', '/gzip.html', '/win1252.html', '/big.html'])
      expect(st(p), p).toBe('fetch_success success');
    expect(st('/moved-permanently')).toBe('fetch_redir_perm moved');
    expect(fetched.get('/moved-permanently')!.redirect).toBe(`${site.url}/E.html`);
    expect(st('/moved-temporarily')).toBe('fetch_redir_temp temp_moved');
    expect(st('/missing.html')).toBe('fetch_gone notfound');
    expect(st('/private/secret.html')).toBe('fetch_gone robots_denied');
    expect(st('/flaky.html')).toBe('fetch_retry exception');
    expect(fetched.get('/flaky.html')!.detail).toBe('HTTP 500');
    expect(st('/slow.html')).toBe('fetch_retry exception');
    expect(fetched.get('/slow.html')!.detail).toMatch(/TIMEOUT/);
    // C and C-duplicate: two URLs, one digest.
    expect(fetched.get('/C.html')!.digest).toBe(fetched.get('/C-duplicate.html')!.digest);
    expect(fetched.get('/C.html')!.digest).not.toBe(fetched.get('/A.html')!.digest);
    const stats = (await nwax(['readdb', join(crawl, 'crawldb'), '-stats'])).stdout;
    expect(stats).toMatch(/TOTAL urls:\t15/);
    expect(stats).toMatch(/status db_fetched:\t9/);
    expect(stats).toMatch(/status db_gone:\t2/);
    expect(stats).toMatch(/status db_redir_perm:\t1/);
    expect(stats).toMatch(/status db_unfetched:\t2/);
    const one = await nwax(['readdb', join(crawl, 'crawldb'), '-url', `${site.url}/flaky.html`]);
    expect(JSON.parse(one.stdout.split('\t')[1])).toMatchObject({ status: 'db_unfetched', retries: 1 });
  });

  it('writes WARC files that warcio.js reads, with digests that verify, and that nwax cdx indexes as warcio.js does', async () => {
    const files = segments(crawl).flatMap(warcs);
    expect(files.length).toBe(3);
    expect(files.every((f) => /\.warc\.gz$/.test(f))).toBe(true);
    const byUrl = new Map<string, Rec>();
    for (const f of files) {
      const recs = await warcioRecords(f);
      expect(recs[0].type).toBe('warcinfo');
      const ids = new Map(recs.map((r) => [r.headers.get('WARC-Record-ID'), r]));
      for (const r of recs) {
        if (r.type !== 'warcinfo') expect(r.headers.get('WARC-Block-Digest'), `${r.type} ${r.url}`).toBe(b32sha1(r.block));
        if (r.type === 'response') {
          const payload = r.block.subarray(r.block.indexOf('\r\n\r\n') + 4);
          expect(r.headers.get('WARC-Payload-Digest')).toBe(b32sha1(payload));
          expect(r.headers.get('WARC-IP-Address')).toBe('127.0.0.1');
          byUrl.set(r.url!.replace(site.url, ''), r);
        }
        if (r.type === 'request') expect(ids.get(r.headers.get('WARC-Concurrent-To'))?.type).toBe('response');
      }
      // nwax cdx against warcio.js's own indexer, field by field.
      const mine = (await nwax(['cdx', '-q', '--format', 'cdxj', f])).stdout.split('\n').filter((l) => l && !l.startsWith('!'));
      const theirs = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'warcio', 'dist', 'cli.js'), 'cdx-index', f])
        .stdout.toString()
        .split('\n')
        .filter(Boolean);
      const norm = (l: string) => {
        const [key, ts] = l.split(' ', 2);
        const j = JSON.parse(l.slice(key.length + ts.length + 2)) as Record<string, string>;
        return JSON.stringify([key, ts, j.url, j.mime, j.status, j.digest.replace(/^sha1:/, ''), j.length, j.offset, j.filename]);
      };
      expect(mine.map(norm).sort()).toEqual(theirs.map(norm).sort());
    }
    expect(byUrl.get('/big.html')!.headers.get('WARC-Truncated')).toBe('length');
    expect(byUrl.get('/A.html')!.headers.get('WARC-Truncated')).toBeUndefined();
    expect(byUrl.get('/gzip.html')!.block.toString('latin1')).toMatch(/content-encoding: gzip/i);
    expect(byUrl.get('/moved-permanently')!.block.toString('latin1')).toMatch(/^HTTP\/1\.1 301 Moved Permanently\r\n/);
  });

  it('is searchable: alligator finds A, the duplicate content is one hit, windows-1252 is read right', async () => {
    const s = await nwax(['search', '-dir', crawl, '--json', 'alligator']);
    expect(s.code, s.stderr).toBe(0);
    const hits = JSON.parse(s.stdout).hits as { url: string; title: string }[];
    expect(hits[0].url).toBe(`${site.url}/A.html`);
    const mound = JSON.parse((await nwax(['search', '-dir', crawl, '--json', 'mound'])).stdout).hits as { url: string }[];
    expect(mound).toHaveLength(1);
    expect([`${site.url}/C.html`, `${site.url}/C-duplicate.html`]).toContain(mound[0].url);
    const creme = JSON.parse((await nwax(['search', '-dir', crawl, '--json', 'crème'])).stdout).hits as { title: string }[];
    expect(creme[0].title).toBe('Crème brûlée');
    const caiman = JSON.parse((await nwax(['search', '-dir', crawl, '--json', 'caiman'])).stdout).hits as { url: string }[];
    expect(caiman[0].url).toBe(`${site.url}/gzip.html`);
    // The long page was cut at http.content.limit: its last words are not indexed.
    expect(JSON.parse((await nwax(['search', '-dir', crawl, '--json', 'zebrafish'])).stdout).hits).toHaveLength(0);
    expect(JSON.parse((await nwax(['search', '-dir', crawl, '--json', 'title:long'])).stdout).hits).toHaveLength(1);
    await breathe();
  });

  it('recrawls after the interval: unchanged pages become revisit records, the 500 recovers', async () => {
    const later = new Date(Date.now() + 31 * 24 * 3600 * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
    const before = site.log.length;
    const g = await nwaxAsync(['generate', join(crawl, 'crawldb'), join(crawl, 'segments'), '-D', `generate.curtime=${later}`, ...CRAWL_CONF]);
    expect(g.code, g.stderr).toBe(0);
    const seg = g.stdout.trim();
    const f = await nwaxAsync(['fetch', seg, '--parse', ...CRAWL_CONF]);
    expect(f.code, f.stderr).toBe(0);
    const u = await nwaxAsync(['updatedb', join(crawl, 'crawldb'), seg]);
    expect(u.code, u.stderr).toBe(0);
    // robots.txt again (a new fetch), then the due pages; gone ones (404, robots) are not asked.
    const again = site.log.slice(before).map((l) => l.path);
    expect(again).not.toContain('/missing.html');
    expect(again).not.toContain('/private/secret.html');
    const recs = (await Promise.all(warcs(seg).map(warcioRecords))).flat();
    const revisits = recs
      .filter((r) => r.type === 'revisit')
      .map((r) => r.url!.replace(site.url, ''))
      .sort();
    // (The long page was truncated: a cut payload is fetched again, not declared identical.)
    expect(revisits).toEqual(['/A.html', '/B.html', '/C-duplicate.html', '/C.html', '/E.html', '/F.html', '/gzip.html', '/win1252.html']);
    // Each refers to the response of the first crawl: its URL and its WARC-Date.
    const firstResponses = new Map<string, string>();
    for (const old of segments(crawl).filter((x) => x !== seg)) {
      for (const r of (await Promise.all(warcs(old).map(warcioRecords))).flat())
        if (r.type === 'response') firstResponses.set(r.url!, r.headers.get('WARC-Date')!);
    }
    for (const r of recs.filter((x) => x.type === 'revisit')) {
      expect(r.headers.get('WARC-Profile')).toMatch(/identical-payload-digest/);
      expect(r.headers.get('WARC-Refers-To-Target-URI')).toBe(r.url);
      expect(r.headers.get('WARC-Refers-To-Date'), r.url).toBe(firstResponses.get(r.url!));
    }
    expect(recs.find((r) => r.type === 'response' && r.url?.endsWith('/flaky.html'))).toBeDefined();
    const stats = (await nwax(['readdb', join(crawl, 'crawldb'), '-stats'])).stdout;
    expect(stats).toMatch(/status db_notmodified:\t8/);
    // A second recrawl: the revisits still refer to the first response, not to the revisit between.
    const later2 = new Date(Date.now() + 62 * 24 * 3600 * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
    const seg2 = (await nwaxAsync(['generate', join(crawl, 'crawldb'), join(crawl, 'segments'), '-D', `generate.curtime=${later2}`])).stdout.trim();
    expect((await nwaxAsync(['fetch', seg2, ...CRAWL_CONF])).code).toBe(0);
    const again2 = (await Promise.all(warcs(seg2).map(warcioRecords))).flat().filter((r) => r.type === 'revisit' && r.url?.endsWith('/A.html'));
    expect(again2).toHaveLength(1);
    expect(again2[0].headers.get('WARC-Refers-To-Date')).toBe(firstResponses.get(`${site.url}/A.html`));
  });
});

describe('crawl steps: seeds, fetch lists, resuming', () => {
  const dir = tempDir();
  let site: Site;
  beforeAll(async () => {
    site = await startSite({ slowMs: 3000 });
  });
  afterAll(() => site?.close());

  it('injects seeds with metadata, names bad lines, and caps fetch lists by topN and per host', async () => {
    const db = join(dir, 'db');
    writeFileSync(
      join(dir, 'seeds'),
      [
        `${site.url}/A.html\tnutch.score=2.5\tnutch.fetchInterval=3600\tsource=test`,
        'not a url',
        'ftp://example.org/file',
        `${site.url}/B.html`,
        `${site.url}/image.png`,
        'http://127.0.0.2:9/other.html',
        `${site.url}/A.html`,
      ].join('\n'),
    );
    const r = await nwaxAsync(['inject', db, join(dir, 'seeds')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/seeds: line 2: not a url: not an http\(s\) URL, or rejected by the URL filters/);
    expect(r.stderr).toMatch(/seeds: line 3: ftp:\/\/example\.org\/file/);
    expect(r.stderr).toMatch(/seeds: line 5: .*image\.png/);
    expect(r.stderr).toMatch(/7 seed URLs, 4 accepted, 3 rejected/);
    const a = JSON.parse((await nwax(['readdb', db, '-url', `${site.url}/A.html`])).stdout.split('\t')[1]);
    expect(a).toMatchObject({ status: 'db_unfetched', score: 2.5, interval: 3600, metadata: { source: 'test' } });
    // Injecting again keeps what the db holds.
    writeFileSync(join(dir, 'seeds2'), `${site.url}/A.html\tnutch.score=9\n`);
    expect((await nwaxAsync(['inject', db, join(dir, 'seeds2')])).code).toBe(0);
    expect(JSON.parse((await nwax(['readdb', db, '-url', `${site.url}/A.html`])).stdout.split('\t')[1]).score).toBe(2.5);
    const top = await nwaxAsync(['generate', db, join(dir, 'segs'), '-topN', '1']);
    expect(top.code, top.stderr).toBe(0);
    const list = segmentRecords(top.stdout.trim(), 'crawl_generate');
    expect([...list.keys()]).toEqual([`${site.url}/A.html`]); // the best score
    await new Promise((r) => setTimeout(r, 1000));
    const perHost = await nwaxAsync(['generate', db, join(dir, 'segs'), '-D', 'generate.max.count=1']);
    const hosts = [...segmentRecords(perHost.stdout.trim(), 'crawl_generate').keys()].map((u) => new URL(u).host);
    expect(hosts.sort()).toEqual(['127.0.0.1:' + new URL(site.url).port, '127.0.0.2:9'].sort());
    const none = await nwax(['readdb', db, '-url', `${site.url}/nowhere.html`]);
    expect(none.code).toBe(1);
  });

  it('finishes a segment whose fetch was killed half way', async () => {
    const crawl = join(dir, 'resumed');
    writeFileSync(join(dir, 'seed-b'), ['B.html', 'C.html', 'slow.html', 'E.html'].map((p) => `${site.url}/${p}\n`).join(''));
    expect((await nwaxAsync(['inject', join(crawl, 'crawldb'), join(dir, 'seed-b')])).code).toBe(0);
    const g = await nwaxAsync(['generate', join(crawl, 'crawldb'), join(crawl, 'segments')]);
    const seg = g.stdout.trim();
    // Kill the fetcher after its first page, while it waits to ask for the next.
    const before = site.log.length;
    const child = spawn(process.execPath, [BIN, 'fetch', seg, '-D', 'fetcher.server.delay=0.5', '-D', 'http.timeout=1000'], { stdio: 'ignore' });
    while (site.log.length < before + 3) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(existsSync(join(seg, 'crawl_fetch', '_SUCCESS'))).toBe(false);
    expect(readdirSync(join(seg, 'warc')).some((f) => f.endsWith('.open'))).toBe(true);
    writeFileSync(join(dir, 'no-seeds'), `${site.url}/B.html\n`);
    const r = await nwaxAsync(['crawl', join(dir, 'no-seeds'), '-dir', crawl, '-depth', '1', ...CRAWL_CONF]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`${seg.replace(/[/.]/g, '\\$&')}: left unfinished by an earlier run; finishing it`));
    expect(existsSync(join(seg, 'crawl_fetch', '_SUCCESS'))).toBe(true);
    expect(readdirSync(join(seg, 'warc')).every((f) => f.endsWith('.warc.gz'))).toBe(true);
    expect([...segmentRecords(seg, 'crawl_fetch').keys()]).toEqual(['B.html', 'C.html', 'E.html', 'slow.html'].map((p) => `${site.url}/${p}`));
    expect(JSON.parse((await nwax(['search', '-dir', crawl, '--json', 'habitat'])).stdout).hits[0].url).toBe(`${site.url}/B.html`);
  });

  it('honours a robots.txt Crawl-delay longer than fetcher.server.delay, and defers a host whose robots.txt fails', async () => {
    const slow = await startSite({ robots: { body: 'User-agent: *\nCrawl-delay: 0.6\n' } });
    const down = await startSite({ host: '127.0.0.2', robots: { status: 503, body: 'down' } });
    try {
      const db = join(dir, 'robots-db');
      writeFileSync(join(dir, 'robots-seeds'), ['A.html', 'B.html', 'C.html'].flatMap((p) => [`${slow.url}/${p}`, `${down.url}/${p}`]).join('\n'));
      expect((await nwaxAsync(['inject', db, join(dir, 'robots-seeds')])).code).toBe(0);
      const seg = (await nwaxAsync(['generate', db, join(dir, 'robots-segs')])).stdout.trim();
      const f = await nwaxAsync(['fetch', seg, '-D', 'fetcher.server.delay=0.1']);
      expect(f.code, f.stderr).toBe(0);
      expect(f.stderr).toMatch(/127\.0\.0\.2:\d+: robots\.txt answered HTTP 503; its URLs are retried in a later round/);
      const times = slow.log.map((l) => l.t);
      expect(slow.log.map((l) => l.path)).toEqual(['/robots.txt', '/A.html', '/B.html', '/C.html']);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(598);
      expect(down.log.map((l) => l.path)).toEqual(['/robots.txt']);
      const fetched = segmentRecords(seg, 'crawl_fetch');
      expect(fetched.get(`${down.url}/B.html`)).toMatchObject({ status: 'fetch_retry', protocolStatus: 'robots_deferred' });
      expect(fetched.get(`${slow.url}/B.html`)).toMatchObject({ status: 'fetch_success' });
      // Past fetcher.max.crawl.delay the host is not fetched this round.
      const before = slow.log.length;
      const seg2 = (await nwaxAsync(['generate', db, join(dir, 'robots-segs2')])).stdout.trim();
      const f2 = await nwaxAsync(['fetch', seg2, '-D', 'fetcher.max.crawl.delay=0.5']);
      expect(f2.code, f2.stderr).toBe(0);
      expect(slow.log.slice(before).map((l) => l.path)).toEqual(['/robots.txt']);
      expect(segmentRecords(seg2, 'crawl_fetch').get(`${slow.url}/A.html`)).toMatchObject({ status: 'fetch_retry', protocolStatus: 'would_block' });
    } finally {
      await slow.close();
      await down.close();
    }
  });

  it('says what is wrong with bad input, without a stack', async () => {
    const f = await nwax(['fetch', join(dir, 'not-a-segment')]);
    expect(f.code).toBe(1);
    expect(f.stderr).toMatch(/not-a-segment: no crawl_generate \(not a segment made by nwax generate\)/);
    const g = await nwax(['generate', join(dir, 'no-db'), join(dir, 'segs')]);
    expect(g.stderr).toMatch(/no-db: no CrawlDb \(run nwax inject first\)/);
    const i = await nwax(['inject', join(dir, 'db3'), join(dir, 'missing-seeds')]);
    expect(i.stderr).toMatch(/missing-seeds: no such seed file or directory/);
    const c = await nwax(['fetch', join(dir, 'x'), '-D', 'fetcher.queue.mode=byMoon']);
    expect(c.code).not.toBe(0);
    for (const r of [f, g, i, c]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a stopped crawl run again', () => {
  const dir = tempDir();
  let server: Server;
  let base = '';
  beforeAll(async () => {
    // A chain of pages, each linking to the next: one new page a round, so the rounds run are counted by the pages fetched.
    server = createServer((req, res) => {
      const m = /^\/p(\d+)\.html$/.exec(req.url ?? '');
      if (!m) {
        res.writeHead(404).end();
        return;
      }
      const n = Number(m[1]);
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end(`<html><title>page ${n}</title><body>chain page ${n} <a href="p${n + 1}.html">next</a></body></html>`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('finishes the interrupted round, then runs only the rounds left to reach -depth, and a new crawl after it runs -depth more', async () => {
    const crawl = join(dir, 'chain');
    writeFileSync(join(dir, 'seed'), `${base}/p0.html\n`);
    const args = ['crawl', join(dir, 'seed'), '-dir', crawl, '-depth', '3', ...CRAWL_CONF, '-D', 'fetcher.server.delay=0'];
    // Stopped once its second round's segment stands.
    const child = spawn(process.execPath, [BIN, ...args], { stdio: 'ignore' });
    const ended = new Promise((r) => child.once('exit', r));
    while (!(existsSync(join(crawl, 'segments')) && segments(crawl).filter((g) => existsSync(join(g, 'crawl_generate'))).length >= 2))
      await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL');
    await ended;
    expect(segments(crawl)).toHaveLength(2);
    const again = await nwaxAsync(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming the crawl begun \d{14}: 2 of its rounds done, 1 left to reach -depth 3/);
    const fetchedPages = () =>
      segments(crawl)
        .flatMap((g) => [...segmentRecords(g, 'crawl_fetch').keys()])
        .sort();
    expect(segments(crawl)).toHaveLength(3);
    expect(fetchedPages()).toEqual([0, 1, 2].map((n) => `${base}/p${n}.html`));
    expect(existsSync(join(crawl, 'crawl.state'))).toBe(false);
    // Done and indexed: the next crawl is a new one, -depth rounds of its own.
    await new Promise((r) => setTimeout(r, 1000));
    const next = await nwaxAsync(['crawl', join(dir, 'seed'), '-dir', crawl, '-depth', '2', ...CRAWL_CONF, '-D', 'fetcher.server.delay=0']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toMatch(/resuming/);
    expect(segments(crawl)).toHaveLength(5);
    expect(fetchedPages()).toEqual([0, 1, 2, 3, 4].map((n) => `${base}/p${n}.html`));
  }, 120_000);

  it('removes a segment stopped before generate wrote its fetch list, and runs its round again', async () => {
    const crawl = join(dir, 'cut-generate');
    // What a kill leaves while generate writes crawl_generate aside: the segment's folder alone.
    const left = join(crawl, 'segments', '20200101000000');
    mkdirSync(join(left, '.crawl_generate.tmp-1'), { recursive: true });
    const r = await nwaxAsync(['crawl', join(dir, 'seed'), '-dir', crawl, '-depth', '1', ...CRAWL_CONF, '-D', 'fetcher.server.delay=0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${left}: left by an earlier run before its fetch list was written; removed`);
    expect(existsSync(left)).toBe(false);
    expect(segments(crawl)).toHaveLength(1);
    expect([...segmentRecords(segments(crawl)[0], 'crawl_fetch').keys()]).toEqual([`${base}/p0.html`]);
  }, 60_000);
});
