/**
 * Search that puts the right page first (issue: ranking, one hit per version, query caps):
 * the ranking's bounded features, hits per site only across sites, one hit per version across
 * index sets and shards. Real archives written here, the real pipeline, the real service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveCli, tempDir } from './helpers.js';
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
    const cands = [{ url: 'http://x/', title: 'x', inlinks: 9, rank: -2 }, { url: 'http://y/a/b', title: 'q', inlinks: 0, rank: -3 }];
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
        records.push({ url: `http://${host}/page${i}.html`, date: `2020010${n}000000`, id: `00000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`, body: `<html><head><title>Alligator page ${i} of ${host}</title></head><body><p>The alligator ${'lives in swamps. '.repeat(i + 1)}</p></body></html>` });
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
