import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import Parser from 'rss-parser';
import { nwax, nwaxAsync, tempDir } from './helpers.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc, dedupExampleRecords } from '../scripts/make-fixtures.mjs';
import { startServer, type RunningServer } from '../src/search/server.js';

/** The worked example imported and indexed, then served on 127.0.0.1 on a port the OS picks. */
describe('nwax serve', () => {
  const dir = tempDir();
  let srv: RunningServer;
  const get = (path: string) => fetch(`${srv.url}${path}`);

  beforeAll(async () => {
    const warc = join(dir, 'example.warc.gz');
    await writeWarc(warc, dedupExampleRecords());
    nwax(['cdx', '-o', join(dir, 'example.cdx'), warc]);
    writeFileSync(join(dir, 'all.dup'), nwax(['dedup-cdx', join(dir, 'example.cdx')]).stdout);
    writeFileSync(join(dir, 'manifest'), `${warc} october\n`);
    const crawl = join(dir, 'crawl');
    const seg = join(crawl, 'segments', '20071011000000');
    for (const step of [
      ['import', '-e', join(dir, 'all.dup'), join(dir, 'manifest'), seg],
      ['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg],
      ['add-dates', join(crawl, 'indexes', 'part-00000'), join(crawl, 'indexes', 'part-00000'), join(crawl, 'pindexes', 'part-00000', 'dates'), join(dir, 'all.dup')],
    ]) expect((await nwaxAsync(step)).code).toBe(0);
    srv = await startServer({ dir: crawl, host: '127.0.0.1', port: 0, wayback: 'https://wayback.example/{collection}/{date}/{url}', hitsPerSite: 2, suggestTitles: 100 });
    expect(srv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  }, 60_000);
  afterAll(() => srv?.close());

  it('answers JSON, with every capture date of each version', async () => {
    const res = await get('/api/search?query=url:http://example.org/index.html&hitsPerSite=0');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = await res.json() as { total: number; hits: { dates: string[]; replay: { url: string }[] }[] };
    expect(body.total).toBe(5);
    expect(body.hits.map((h) => h.dates.length).sort()).toEqual([1, 1, 2, 2, 4]);
    expect(body.hits[0].replay[0].url).toMatch(/^https:\/\/wayback\.example\/october\/2007\d{10}\/http:\/\/example\.org\/index\.html$/);
    expect(await (await get('/healthz')).json()).toEqual({ status: 'ok', documents: 5 });
  });

  it('writes OpenSearch RSS that an XML parser and an RSS client read', async () => {
    const res = await get('/opensearch?query=url:http://example.org/index.html&hitsPerPage=3&hitsPerSite=0');
    expect(res.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    const xml = await res.text();
    const doc = new XMLParser({ ignoreAttributes: false }).parse(xml) as { rss: { channel: Record<string, unknown> & { item: Record<string, unknown>[] } } };
    const ch = doc.rss.channel;
    expect(ch['opensearch:totalResults']).toBe(5);
    expect(ch['opensearch:startIndex']).toBe(0);
    expect(ch['opensearch:itemsPerPage']).toBe(3);
    expect(ch['nutch:query']).toBe('url:http://example.org/index.html');
    expect(ch['nutch:responseTime']).toBeDefined();
    expect(ch['nutch:urlParams']).toContain('query=url%3Ahttp');
    expect(ch.item).toHaveLength(3);
    for (const item of ch.item) {
      for (const f of ['title', 'link', 'description', 'nutch:site', 'nutch:score', 'nutch:url', 'nutch:digest', 'nutch:date', 'nutch:type']) expect(item[f], f).toBeDefined();
    }
    expect(ch.item.some((i) => Array.isArray(i['nutch:capture']) && (i['nutch:capture'] as unknown[]).length === 4)).toBe(true);
    const feed = await new Parser({ customFields: { feed: ['opensearch:totalResults', 'opensearch:itemsPerPage'] as never[], item: ['nutch:digest'] as never[] } }).parseString(xml);
    expect(Number((feed as unknown as Record<string, string>)['opensearch:totalResults'])).toBe(5);
    expect(feed.items).toHaveLength(3);
    expect(feed.items[0].link).toMatch(/^https:\/\/wayback\.example\//);
    const desc = await (await get('/opensearch.xml')).text();
    const d = new XMLParser({ ignoreAttributes: false }).parse(desc) as { OpenSearchDescription: { ShortName: string; Url: { '@_template': string }[] } };
    expect(d.OpenSearchDescription.ShortName).toBe('nwax');
    expect(d.OpenSearchDescription.Url.map((u) => u['@_template'])).toContain(`${srv.url}/opensearch?query={searchTerms}&start={startIndex?}&hitsPerPage={count?}`);
  });

  it('renders the HTML page escaped, with replay, stored copy, all versions and paging links', async () => {
    const home = await (await get('/')).text();
    expect(home).toMatch(/<label for="q">Search the archive<\/label>/);
    const html = await (await get('/search?query=homepage&hitsPerPage=2&hitsPerSite=0')).text();
    expect(html).toMatch(/<h2>Hits 1-2 of about 5 for <q>homepage<\/q><\/h2>/);
    expect(html).toContain('<mark>homepage</mark>');
    expect(html).toMatch(/<a href="\/stored\/part-00000\/\d+">stored copy<\/a>/);
    expect(html).toContain('all versions of this URL');
    expect(html).toMatch(/<a rel="next" href="\/search\?query=homepage&amp;start=2&amp;hitsPerPage=2&amp;hitsPerSite=0">Next page<\/a>/);
    const xss = await (await get(`/search?query=${encodeURIComponent('<script>alert(1)</script>')}`)).text();
    expect(xss).not.toContain('<script>alert(1)</script>');
    expect(xss).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('serves the archived bytes of a capture, sandboxed, and nothing else', async () => {
    const hit = (await (await get('/api/search?query=welcome')).json() as { hits: { set: string; doc: number }[] }).hits[0];
    const res = await get(`/stored/${hit.set}/${hit.doc}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox;/);
    expect(await res.text()).toContain('<p>Hello, welcome to my page.</p>');
    for (const bad of ['/stored/part-00000/999', '/stored/..%2F..%2Fetc%2Fpasswd/1', '/stored/part-00000/../../etc/passwd', '/nope']) {
      expect((await get(bad)).status, bad).toBe(404);
    }
  });

  it('answers bad parameters with a 400 and a message, never a 500', async () => {
    const cases: [string, RegExp][] = [
      ['/api/search?query=x&start=-1', /start: "-1" is not a whole number/],
      ['/api/search?query=x&hitsPerPage=1000', /hitsPerPage: 1000 is outside 1\.\.100/],
      [`/api/search?query=${'a'.repeat(100_000)}`, /query: 100000 characters, at most 2048/],
      ['/api/search?query=%FF%FE', /not valid UTF-8/],
      ['/api/search?query=%22unbalanced', /unterminated phrase/],
      ['/api/search?query=', /query: empty/],
      ['/api/search?query=x&dtstart=yesterday', /dtstart: "yesterday" is not a date/],
    ];
    for (const [path, message] of cases) {
      const res = await get(path);
      expect(res.status, path.slice(0, 60)).toBe(400);
      expect((await res.json() as { error: string }).error).toMatch(message);
    }
    const html = await get('/search?query=%22open');
    expect(html.status).toBe(400);
    expect(await html.text()).toContain('unterminated phrase');
  });

  it('suggests sites and titles as you type', async () => {
    expect(await (await get('/suggest?q=exam')).json()).toContainEqual({ text: 'example.org', kind: 'site' });
    expect(await (await get('/suggest?q=homep')).json()).toContainEqual({ text: 'My homepage', kind: 'title' });
    expect(await (await get('/suggest?q=')).json()).toEqual([]);
  });
});
