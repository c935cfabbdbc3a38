/**
 * Search that puts the right page first (issue: ranking, one hit per version, query caps):
 * the ranking's bounded features, hits per site only across sites, one hit per version across
 * index sets and shards. Real archives written here, the real pipeline, the real service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nwax, serveCli, tempDir } from './helpers.js';
import { pipeline } from './example-pipeline.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { rerank, features, DEFAULT_WEIGHTS, BM25_ONLY } from '../src/search/ranking.js';

describe('the ranking', () => {
  it('a hub with many inlinks does not outrank the page whose title is the query', () => {
    const q = ['socket', 'options'];
    const cands = [
      // The hub matches the words a little better in its text and has 5,000 inlinks.
      { url: 'http://docs.example/index.html', title: 'Library reference', inlinks: 5000, rank: -10.5 },
      { url: 'http://docs.example/net/sockopt.html', title: 'Socket options', inlinks: 3, rank: -10.0 },
    ];
    rerank(cands, q);
    expect(cands.sort((a, b) => a.rank - b.rank)[0].title).toBe('Socket options');
  });

  it('no feature carries a page that matches the words badly past one that matches them well', () => {
    const q = ['alligator'];
    const weak = { url: 'http://a.example/', title: 'alligator', inlinks: 100000, rank: -1 };
    const strong = { url: 'http://b.example/deep/down/page.html', title: 'Reptiles', inlinks: 0, rank: -10 };
    rerank([weak, strong], q);
    expect(strong.rank).toBeLessThan(weak.rank);
    // Every feature lies in [0, 1].
    for (const v of Object.values(features(weak, q))) expect(v).toBeGreaterThanOrEqual(0);
    for (const v of Object.values(features(weak, q))) expect(v).toBeLessThanOrEqual(1);
  });

  it('among titles that hold the word, the short one first; the length alone counts, and only the form typed', () => {
    // Equal text scores: the title's own length norm decides (as Lucene's per-field norm would).
    const short = { url: 'http://a.example/x', title: '東京', inlinks: 0, rank: -5 };
    const long = { url: 'http://a.example/y', title: '東京都の天気予報と週間天気', inlinks: 0, rank: -5 };
    rerank([long, short], ['東京']);
    expect(short.rank).toBeLessThan(long.rank);
    const avg = (words: number) => features({ ...short, title: 'a b c d' }, ['a'], [], words).fit;
    expect(avg(4)).toBeCloseTo(0, 10);
    expect(avg(8)).toBeGreaterThan(0);
    expect(avg(2)).toBeLessThan(0);
    expect(features(short, ['nope'], [], 4).fit).toBe(0);
    // A query with marks: a title with only the folded form (lục for lúc) gets no fit.
    const folded = { url: 'http://v.example/1', title: 'Lục', inlinks: 0, rank: -5 };
    const typed = { url: 'http://v.example/2', title: 'Hàm Lúc Chạy', inlinks: 0, rank: -5 };
    expect(features(folded, ['luc'], ['lúc'], 3).fit).toBe(0);
    expect(features(typed, ['luc'], ['lúc'], 3).fit).toBeCloseTo(0, 10);
    rerank([folded, typed], ['luc'], DEFAULT_WEIGHTS, ['lúc']);
    expect(typed.rank).toBeLessThan(folded.rank);
  });

  it('plain BM25 leaves the text order alone', () => {
    const cands = [
      { url: 'http://x/', title: 'x', inlinks: 9, rank: -2 },
      { url: 'http://y/a/b', title: 'q', inlinks: 0, rank: -3 },
    ];
    rerank(cands, ['q'], BM25_ONLY);
    expect(cands.map((c) => c.rank)).toEqual([-2, -3]);
    expect(DEFAULT_WEIGHTS.title).toBeGreaterThan(0);
  });
});

/** Six pages about alligators, three on each of two hosts; an index of them, served. */
describe('hits per site and versions across index sets', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  let srv: { url: string; close(): Promise<void> };
  let front: { url: string; close(): Promise<void> };
  let second: { url: string; close(): Promise<void> };
  const ask = async (base: string, query: string, extra = '') => {
    const r = await fetch(`${base}/api/search?query=${encodeURIComponent(query)}&hitsPerPage=20${extra}`);
    expect(r.status).toBe(200);
    return (await r.json()) as { total: number; hits: { url: string; host: string; dates: string[] }[] };
  };

  beforeAll(async () => {
    const records = [];
    let n = 0;
    for (const host of ['a.example', 'b.example']) {
      for (let i = 0; i < 3; i++) {
        n++;
        records.push({
          url: `http://${host}/page${i}.html`,
          date: `2020010${n}000000`,
          id: `00000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`,
          body: `<html><head><title>Alligator page ${i} of ${host}</title></head><body><p>The alligator ${'lives in swamps. '.repeat(i + 1)}</p></body></html>`,
        });
      }
    }
    const warc = join(dir, 'gators.warc.gz');
    await writeWarc(warc, records);
    const manifest = join(dir, 'manifest');
    writeFileSync(manifest, `${warc} gators\n`);
    await pipeline(crawl, manifest);
    // The server's default hits per site (nwax.serve.hits.per.site) is 2.
    srv = await serveCli(['-dir', crawl, '--port', '0', '-D', 'nwax.serve.threads=1']);
  }, 60_000);
  afterAll(async () => {
    await front?.close();
    await second?.close();
    await srv?.close();
  });

  it('the default hits per site collapses across sites, not within one: site: lists all of a site', async () => {
    const all = await ask(srv.url, 'alligator');
    expect(all.hits.length).toBe(4);
    expect(new Set(all.hits.map((h) => h.host))).toEqual(new Set(['a.example', 'b.example']));
    const one = await ask(srv.url, 'alligator site:a.example');
    expect(one.hits.map((h) => h.url).sort()).toEqual(['http://a.example/page0.html', 'http://a.example/page1.html', 'http://a.example/page2.html']);
    // Asked for explicitly, NutchWAX's parameter keeps its meaning.
    expect((await ask(srv.url, 'alligator site:a.example', '&hitsPerSite=1')).hits.length).toBe(1);
    expect((await ask(srv.url, 'alligator', '&hitsPerSite=0')).hits.length).toBe(6);
  });

  it('a version held by two index sets is one hit, counted once', async () => {
    const copy = join(crawl, 'indexes', '.copy');
    cpSync(join(crawl, 'indexes', 'part-00000'), copy);
    renameSync(copy, join(crawl, 'indexes', 'part-00001'));
    const r = await fetch(`${srv.url}/admin/reload`, { method: 'POST' });
    expect(r.status).toBe(200);
    const both = await ask(srv.url, 'alligator', '&hitsPerSite=0');
    expect(both.hits.length).toBe(6);
    expect(both.total).toBe(6);
    expect(new Set(both.hits.map((h) => h.url)).size).toBe(6);
  });

  it('and through a shard front over two backends holding the same versions', async () => {
    second = await serveCli(['-dir', crawl, '--port', '0', '-D', 'nwax.serve.threads=1']);
    front = await serveCli(['--port', '0', '--shards', `${srv.url},${second.url}`]);
    const r = await ask(front.url, 'alligator', '&hitsPerSite=0');
    expect(r.hits.length).toBe(6);
    expect(r.total).toBe(6);
    expect((await ask(front.url, 'alligator')).hits.length).toBe(4);
  });
});

/**
 * Bounded work per query: 300 pages that all say "heron"; the ten whose titles name it come
 * last in index order. Ranked exactly past nwax.search.max.scored = 20 and capped, the capped
 * ranking still finds the title pages (its first tier) and says how many matches it scored.
 * Capture years narrow a date filter inside the text index, and add-dates years still count.
 */
describe('bounded work per query', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  let searcher: import('../src/search/searcher.js').Searcher;

  beforeAll(async () => {
    const records = [];
    for (let i = 0; i < 300; i++) {
      const titled = i >= 290;
      records.push({
        url: `http://h.example/p${String(i).padStart(3, '0')}.html`,
        date: `${i % 2 ? 2019 : 2020}0102030405`,
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        body: `<html><head><title>${titled ? `Heron colony report ${i}` : `Page ${i}`}</title></head><body><p>${'A heron stood by the water. '.repeat(1 + (i % 5))} Number ${i}.</p></body></html>`,
      });
    }
    const warc = join(dir, 'herons.warc.gz');
    await writeWarc(warc, records);
    const manifest = join(dir, 'manifest');
    writeFileSync(manifest, `${warc} herons\n`);
    // p001 (captured in 2019) was also captured in 2021: known only to the dates index.
    const cdx = (await nwax(['cdx', warc])).stdout
      .split('\n')
      .find((l) => l.includes('/p001.html'))!
      .split(' ');
    writeFileSync(join(dir, 'more.dup'), `${cdx[0]} sha1:${cdx[5]} 20210102030405\n`);
    await pipeline(crawl, manifest, { dates: join(dir, 'more.dup') });
    const { Searcher } = await import('../src/search/searcher.js');
    searcher = new Searcher(crawl);
  }, 120_000);
  afterAll(() => searcher?.close());

  const urls = (r: { hits: { url: string }[] }) => r.hits.map((h) => h.url);

  it('past the cap the total is "more than", the ranking scores the title tier and the head, and finds what the exact one finds', () => {
    const exact = searcher.view().search('heron', { hits: 10, cache: false, exact: true, maxScored: 20 });
    const capped = searcher.view().search('heron', { hits: 10, cache: false, maxScored: 20 });
    expect(exact.total).toBe(20);
    expect(exact.totalExact).toBe(false);
    expect(exact.rankedAmong).toBeUndefined();
    // 20 from the head in index order and the 10 title pages.
    expect(capped.rankedAmong).toBe(30);
    expect(urls(capped)).toEqual(urls(exact));
    expect(urls(capped).every((u) => Number(/p(\d+)/.exec(u)![1]) >= 290)).toBe(true);
    // Under the cap the ranking is exact: nothing said about it.
    const all = searcher.view().search('heron', { hits: 10, cache: false });
    expect(all.total).toBe(300);
    expect(all.totalExact).toBeUndefined();
    expect(all.rankedAmong).toBeUndefined();
    expect(urls(all)).toEqual(urls(exact));
  });

  it('the service: exact=true, the property, and what the JSON says of a capped ranking', async () => {
    const srv = await serveCli(['-dir', crawl, '--port', '0', '-D', 'nwax.serve.threads=1', '-D', 'nwax.search.max.scored=20']);
    try {
      const ask = async (extra: string) => {
        const r = await fetch(`${srv.url}/api/search?query=heron&hitsPerPage=10&hitsPerSite=0${extra}`);
        return {
          status: r.status,
          body: (await r.json()) as { total: number; totalExact: boolean; rankedAmong?: number; hits: { url: string }[]; error?: string },
        };
      };
      const capped = await ask('');
      expect(capped.body).toMatchObject({ total: 20, totalExact: false, rankedAmong: 30 });
      const exact = await ask('&exact=true');
      expect(exact.body.rankedAmong).toBeUndefined();
      expect(urls(exact.body)).toEqual(urls(capped.body));
      const bad = await ask('&exact=maybe');
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/exact: "maybe" is not one of/);
    } finally {
      await srv.close();
    }
  });

  it('a time budget that runs out answers with what it found, marked partial', () => {
    const r = searcher.view().search('heron', { hits: 5, cache: false, budgetMs: 1e-6 });
    expect(r.partial).toBe(true);
    expect(r.hits.length).toBe(5);
    // Not kept in the cache: asked again with time to spare, the answer is whole.
    expect(searcher.view().search('heron', { hits: 5, budgetMs: 1e-6 }).partial).toBe(true);
    expect(searcher.view().search('heron', { hits: 5 }).partial).toBeUndefined();
  });

  it('date filters: years from the text index, months from the rows, and the years only add-dates knows', () => {
    const y2020 = searcher.view().search('heron date:2020', { hits: 200, cache: false, hitsPerSite: 0 });
    expect(y2020.total).toBe(150);
    expect(y2020.hits.every((h) => h.dates.some((d) => d.startsWith('2020')))).toBe(true);
    expect(searcher.view().search('heron date:201901', { hits: 200, cache: false }).total).toBe(150);
    expect(searcher.view().search('heron date:201902', { hits: 200, cache: false }).total).toBe(0);
    expect(searcher.view().search('heron date:2019-2020', { hits: 200, cache: false }).total).toBe(300);
    // 2021: only the dates index holds it, for p001.
    expect(urls(searcher.view().search('heron date:2021', { hits: 10, cache: false }))).toEqual(['http://h.example/p001.html']);
    expect(searcher.view().search('heron date:2022', { hits: 10, cache: false }).total).toBe(0);
  });

  it('fields alone (date:, site:) are found through the text index and bounded like words; so are facets', () => {
    const exact = searcher.view().search('date:2020', { hits: 200, cache: false, hitsPerSite: 0, exact: true });
    expect(exact.total).toBe(150);
    expect(exact.hits.every((h) => h.dates.some((d) => d.startsWith('2020')))).toBe(true);
    const capped = searcher.view().search('date:2020', { hits: 200, cache: false, hitsPerSite: 0, maxScored: 20 });
    expect(capped).toMatchObject({ total: 20, totalExact: false, rankedAmong: 20 });
    expect(capped.hits.length).toBe(20);
    expect(searcher.view().search('site:h.example date:2019', { hits: 5, cache: false }).total).toBe(150);
    expect(searcher.view().search('site:other.example date:2019', { hits: 5, cache: false }).total).toBe(0);
    // A year only the dates index knows is still found, and a month is tested on the rows.
    expect(urls(searcher.view().search('date:2021', { hits: 10, cache: false }))).toEqual(['http://h.example/p001.html']);
    expect(searcher.view().search('date:202001', { hits: 10, cache: false }).total).toBe(150);
    // Facets are counted among the first maxScored matches, as the total is.
    const years = (o: object) => Object.fromEntries(searcher.view().search('heron', { cache: false, facets: true, ...o }).facets!.year);
    expect(years({ exact: true })).toEqual({ 2019: 150, 2020: 150 });
    const few = years({ maxScored: 20 });
    expect(Object.values(few).reduce((a, b) => a + b, 0)).toBe(20);
  });
});
