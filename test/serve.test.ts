import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import Parser from 'rss-parser';
import { nwaxAsync, serveCli, tempDir } from './helpers.js';
import { pipeline, workedExample } from './example-pipeline.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { startServer, type RunningServer } from '../src/serve/server.js';

/** The worked example imported and indexed, then served on 127.0.0.1 on a port the OS picks. */
describe('nwax serve', () => {
  const dir = tempDir();
  let srv: { url: string; close(): Promise<void> };
  const get = (path: string) => fetch(`${srv.url}${path}`);

  beforeAll(async () => {
    const { manifest, dups } = await workedExample(dir);
    const crawl = join(dir, 'crawl');
    await pipeline(crawl, manifest, { exclusions: dups, dates: dups });
    // The real command, with its search threads: on a port the OS picks, on loopback.
    srv = await serveCli([
      '-dir',
      crawl,
      '--port',
      '0',
      '-D',
      'nwax.wayback.prefix=https://wayback.example/{collection}/{date}/{url}',
      '-D',
      'nwax.serve.threads=2',
    ]);
    expect(srv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  }, 60_000);
  afterAll(() => srv?.close());

  it('answers JSON, with every capture date of each version', async () => {
    const res = await get('/api/search?query=url:http://example.org/index.html&hitsPerSite=0');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await res.text();
    const body = JSON.parse(text) as { total: number; hits: { dates: string[]; file: string; replay: { url: string }[] }[] };
    expect(body.total).toBe(5);
    // Each archive by its file name, never where it lies on the server.
    expect(body.hits.map((h) => h.file)).toEqual(Array(5).fill('example.warc.gz'));
    expect(body.hits.every((h) => !('location' in h))).toBe(true);
    expect(text).not.toContain(dir);
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
      for (const f of ['title', 'link', 'description', 'nutch:site', 'nutch:score', 'nutch:url', 'nutch:digest', 'nutch:date', 'nutch:type'])
        expect(item[f], f).toBeDefined();
    }
    expect(ch.item.some((i) => Array.isArray(i['nutch:capture']) && (i['nutch:capture'] as unknown[]).length === 4)).toBe(true);
    const feed = await new Parser({
      customFields: { feed: ['opensearch:totalResults', 'opensearch:itemsPerPage'] as never[], item: ['nutch:digest'] as never[] },
    }).parseString(xml);
    expect(Number((feed as unknown as Record<string, string>)['opensearch:totalResults'])).toBe(5);
    expect(feed.items).toHaveLength(3);
    expect(feed.items[0].link).toMatch(/^https:\/\/wayback\.example\//);
    const desc = await (await get('/opensearch.xml')).text();
    const d = new XMLParser({ ignoreAttributes: false }).parse(desc) as { OpenSearchDescription: { ShortName: string; Url: { '@_template': string }[] } };
    expect(d.OpenSearchDescription.ShortName).toBe('nwax');
    expect(d.OpenSearchDescription.Url.map((u) => u['@_template'])).toContain(
      `${srv.url}/opensearch?query={searchTerms}&start={startIndex?}&hitsPerPage={count?}`,
    );
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
    const hit = ((await (await get('/api/search?query=welcome')).json()) as { hits: { set: string; doc: number }[] }).hits[0];
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
      expect(((await res.json()) as { error: string }).error).toMatch(message);
    }
    const html = await get('/search?query=%22open');
    expect(html.status).toBe(400);
    expect(await html.text()).toContain('unterminated phrase');
  });

  it('keeps serving while add-dates swaps in a new dates index, and then serves its dates', async () => {
    const crawl = join(dir, 'crawl');
    const main = join(crawl, 'indexes', 'part-00000');
    const dates = join(crawl, 'pindexes', 'part-00000', 'dates');
    const datesOf = async () =>
      ((await (await get('/api/search?query=url:http://example.org/index.html&hitsPerSite=0')).json()) as { hits: { dates: string[] }[] }).hits.flatMap(
        (h) => h.dates,
      ).length;
    expect(await datesOf()).toBe(10);
    // A new dates index without the duplicates' dates (built from main alone), renamed into place.
    const swap = nwaxAsync(['add-dates', main, main, dates, '-']);
    const during: number[] = [];
    for (let i = 0; i < 20; i++) during.push((await get('/api/search?query=welcome')).status);
    expect((await swap).code).toBe(0);
    expect(during.every((s) => s === 200)).toBe(true);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await datesOf()).toBe(5);
  });

  it('orders by date (reverse for newest first) and collapses by the dedup field', async () => {
    type R = { hits: { url: string; dates: string[] }[] };
    const byDate = (await (await get('/api/search?query=url:http://example.org/index.html&hitsPerSite=0&sort=date')).json()) as R;
    const firsts = byDate.hits.map((h) => h.dates[0]);
    expect(firsts).toEqual([...firsts].sort());
    const newest = (await (await get('/api/search?query=url:http://example.org/index.html&hitsPerSite=0&sort=date&reverse=true')).json()) as R;
    expect(newest.hits.map((h) => h.dates[0])).toEqual([...firsts].reverse());
    const onePerUrl = (await (await get('/api/search?query=homepage&hitsPerSite=1&dedupField=url')).json()) as {
      hits: { url: string; moreFromSite: number }[];
    };
    expect(onePerUrl.hits).toHaveLength(1);
    expect(onePerUrl.hits[0].moreFromSite).toBe(4);
    expect((await get('/api/search?query=x&sort=size')).status).toBe(400);
  });

  it('suggests sites and titles as you type', async () => {
    expect(await (await get('/suggest?q=exam')).json()).toContainEqual({ text: 'example.org', kind: 'site' });
    expect(await (await get('/suggest?q=homep')).json()).toContainEqual({ text: 'My homepage', kind: 'title' });
    expect(await (await get('/suggest?q=')).json()).toEqual([]);
  });
});

describe('a shard front over three backends', () => {
  const dir = tempDir();
  const backends: RunningServer[] = [];
  let front: RunningServer;
  const page = (title: string, body: string) => `<html><head><title>${title}</title></head><body><p>${body}</p></body></html>`;
  let n = 0;
  const rec = (url: string, body: string) => ({
    type: 'response',
    url,
    date: '20080101000000',
    body,
    id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    headers: { 'Content-Type': 'text/html', 'Content-Length': String(Buffer.byteLength(body)) },
  });

  beforeAll(async () => {
    const shards = [
      [
        rec('http://example.org/a1', page('A1', 'alligator one')),
        rec('http://example.org/a2', page('A2', 'alligator two')),
        rec('http://zoo.example.net/', page('Zoo', 'alligator zoo')),
      ],
      [
        rec('http://example.org/b1', page('B1', 'alligator three')),
        rec('http://www.example.org/b2', page('B2', 'alligator four')),
        rec('http://example.org/b3', page('B3', 'alligator five')),
      ],
      [rec('http://other.net/c1', page('C1', 'alligator six')), rec('http://other.net/c2', page('C2', 'crocodile only'))],
    ];
    for (const [i, records] of shards.entries()) {
      const warc = join(dir, `s${i}.warc.gz`);
      await writeWarc(warc, records);
      writeFileSync(join(dir, `m${i}`), `${warc} shard${i}\n`);
      const crawl = join(dir, `crawl${i}`);
      const seg = join(crawl, 'segments', '20080102000000');
      expect((await nwaxAsync(['import', join(dir, `m${i}`), seg])).code).toBe(0);
      expect((await nwaxAsync(['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg])).code).toBe(0);
      backends.push(await startServer({ dir: crawl, host: '127.0.0.1', port: 0, wayback: 'http://wb/{date}/{url}', hitsPerSite: 2, suggestTitles: 10 }));
    }
    front = await startServer({
      dir: '',
      shards: backends.map((b) => b.url),
      shardTimeout: 2000,
      host: '127.0.0.1',
      port: 0,
      wayback: 'http://wb/{date}/{url}',
      hitsPerSite: 2,
      suggestTitles: 10,
    });
  }, 90_000);
  afterAll(async () => {
    await front?.close();
    for (const b of backends) await b.close();
  });

  it('merges the shards, sums totals, and shows no site more than hitsPerSite times after the merge', async () => {
    const r = (await (await fetch(`${front.url}/api/search?query=alligator&hitsPerSite=2&hitsPerPage=20`)).json()) as {
      total: number;
      partial: boolean;
      hits: { host: string; url: string; set: string; doc: number; moreFromSite: number }[];
    };
    expect(r.total).toBe(7);
    expect(r.partial).toBe(false);
    const hosts = r.hits.map((h) => h.host);
    // example.org has five pages on two shards: two are shown, three counted as more.
    expect(hosts.filter((h) => h === 'example.org')).toHaveLength(2);
    expect(r.hits.find((h) => h.host === 'example.org' && h.moreFromSite)?.moreFromSite).toBe(3);
    expect(new Set(hosts)).toEqual(new Set(['example.org', 'zoo.example.net', 'other.net']));
    const all = (await (await fetch(`${front.url}/api/search?query=alligator&hitsPerSite=0&hitsPerPage=20&facets=1`)).json()) as {
      hits: { set: string; doc: number }[];
      facets: Record<string, [string, number][]>;
    };
    expect(all.hits).toHaveLength(7);
    // Facets counted on every shard and summed by the front.
    expect(all.facets.site).toEqual([
      ['example.org', 5],
      ['other.net', 1],
      ['zoo.example.net', 1],
    ]);
    expect(all.facets.type).toEqual([['text/html', 7]]);
    expect(all.facets.year).toEqual([['2008', 7]]);
    const narrowed = await (await fetch(`${front.url}/search?query=alligator`)).text();
    expect(narrowed).toMatch(
      /<nav aria-label="Narrow the results" class="facets"><section><h3>Site<\/h3><ul><li><a href="\/search\?query=alligator\+site%3Aexample\.org&amp;[^"]*">example\.org<\/a> \(5\)<\/li>/,
    );
    // The stored copy through the front reaches the backend that holds it.
    const stored = await fetch(`${front.url}/stored/${encodeURIComponent(all.hits[0].set)}/${all.hits[0].doc}`);
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(await stored.text()).toMatch(/alligator/);
    expect((await fetch(`${front.url}/api/search?query=%22open`)).status).toBe(400);
  });

  it('answers with partial results naming the shard that is down', async () => {
    const down = backends[2];
    await down.close();
    const res = await fetch(`${front.url}/api/search?query=alligator&hitsPerSite=0&hitsPerPage=20`);
    expect(res.status).toBe(200);
    const r = (await res.json()) as { total: number; partial: boolean; failedShards: string[] };
    expect(r.total).toBe(6);
    expect(r.partial).toBe(true);
    expect(r.failedShards).toHaveLength(1);
    expect(r.failedShards[0]).toContain(down.url);
    const html = await (await fetch(`${front.url}/search?query=alligator`)).text();
    expect(html).toContain('Partial results: 1 shard did not answer');
    expect(await (await fetch(`${front.url}/healthz`)).json()).toMatchObject({ status: 'partial', documents: 6 });
  });

  it('answers the shard protocol only to a front with the shard key or from a trusted address', async () => {
    // A backend that trusts no address of this machine: only the key opens its shard protocol.
    const guarded = await startServer({
      dir: join(dir, 'crawl0'),
      host: '127.0.0.1',
      port: 0,
      wayback: 'http://wb/{date}/{url}',
      hitsPerSite: 2,
      suggestTitles: 10,
      shardKey: 'k3y-of-the-shards',
      trustedProxies: ['10.9.9.9/32'],
    });
    const fronts: RunningServer[] = [];
    try {
      const stats = (key?: string) => fetch(`${guarded.url}/api/shard/stats?query=alligator&keys=1`, key ? { headers: { 'X-Nwax-Shard-Key': key } } : {});
      for (const key of [undefined, 'wrong', 'k3y-of-the-shard', 'k3y-of-the-shards-']) {
        const res = await stats(key);
        expect(res.status, String(key)).toBe(403);
        expect(await res.text()).not.toMatch(/counted|rows|hits"/);
      }
      expect((await fetch(`${guarded.url}/api/shard/candidates?query=alligator`)).status).toBe(403);
      const ok = await stats('k3y-of-the-shards');
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { counted: number }).counted).toBe(3);
      // Its public search is open as ever; a front with the key merges it, one without is refused.
      expect((await fetch(`${guarded.url}/api/search?query=alligator`)).status).toBe(200);
      const frontOf = async (shardKey?: string) => {
        const f = await startServer({
          dir: '',
          shards: [guarded.url],
          shardTimeout: 2000,
          host: '127.0.0.1',
          port: 0,
          wayback: 'http://wb/{date}/{url}',
          hitsPerSite: 0,
          suggestTitles: 10,
          shardKey,
        });
        fronts.push(f);
        return (await (await fetch(`${f.url}/api/search?query=alligator&hitsPerSite=0`)).json()) as { total: number; failedShards?: string[] };
      };
      expect(await frontOf('k3y-of-the-shards')).toMatchObject({ total: 3 });
      const refused = await frontOf(undefined);
      expect(refused.total).toBe(0);
      expect(refused.failedShards?.join(' ')).toContain('403');
    } finally {
      for (const f of fronts) await f.close();
      await guarded.close();
    }
  });
});
