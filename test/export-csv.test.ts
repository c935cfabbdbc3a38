/**
 * A query's versions taken away as CSV (GET /export/csv) and as a WACZ package (GET
 * /export/wacz) from a real `nwax serve` over the
 * worked example (one page, ten captures, five versions): a row per version with every date it
 * was captured, the fields asked for, a limit, replay links that replay, and clear 400s for what
 * is not a question; read back with csv-parse, not by splitting lines. Titles with commas,
 * quotes and line ends come back whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipEntry } from './zip-entry.js';
import { waczProblems } from './wacz-validate.js';
import { parse } from 'csv-parse/sync';
import { ROOT, indexedCollection, serveCli, tempDir } from './helpers.js';
import { expectedVersionDates } from './dedup-example.js';
import { csvLines } from '../src/serve/export-csv.js';
import type { Row } from '../src/search/types.js';

describe('a CSV export of a query', () => {
  const dir = tempDir();
  let srv: { url: string; close(): Promise<void>; stderr(): string };

  beforeAll(async () => {
    const crawl = join(dir, 'crawl');
    await indexedCollection(join(ROOT, 'fixtures', 'example', 'dedup-example.warc.gz'), crawl, join(dir, 'all.cdx'));
    srv = await serveCli(['-dir', crawl, '--port', '0', '--cdx', join(dir, 'all.cdx'), '-D', 'nwax.serve.threads=1', '-D', 'nwax.export.wacz.max.versions=4']);
  }, 120_000);
  afterAll(() => srv?.close());

  const csv = async (params: string) => {
    const res = await fetch(`${srv.url}/export/csv?${params}`);
    return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), text: await res.text() };
  };

  it('gives a row per version with every date it was captured, and its replay link replays it', async () => {
    const r = await csv('query=homepage');
    expect(r.status).toBe(200);
    expect(r.type).toBe('text/csv; charset=utf-8');
    expect(r.disposition).toBe('attachment; filename="nwax-export.csv"');
    const rows = parse(r.text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0])).toEqual(['url', 'digest', 'title', 'first', 'last', 'captures', 'dates', 'type', 'status', 'size', 'collection', 'replay']);
    expect(rows.map((x) => x.dates).sort()).toEqual(expectedVersionDates());
    expect(rows.map((x) => Number(x.captures)).sort()).toEqual([1, 1, 2, 2, 4]);
    for (const x of rows) {
      expect(x).toMatchObject({ url: 'http://example.org/index.html', title: 'My homepage', type: 'text/html', status: '200', first: x.dates.split(' ')[0] });
      expect(x.last).toBe(x.dates.split(' ').at(-1));
    }
    // The results page links to both ways of taking its results away.
    const html = await (await fetch(`${srv.url}/search?query=homepage`)).text();
    expect(html).toContain('<a href="/export/csv?query=homepage" download>CSV</a>');
    expect(html).toContain('<a href="/export/wacz?query=homepage" download>WACZ package</a>');
    const replayed = await fetch(rows[0].replay);
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('memento-datetime')).toBeTruthy();
  });

  it('gives the fields asked for, at most `limit` rows, and says what is not a question', async () => {
    const two = parse((await csv('query=homepage&fields=digest,captures&limit=2')).text) as string[][];
    expect(two[0]).toEqual(['digest', 'captures']);
    expect(two).toHaveLength(3);
    expect((await csv('query=zzqqxyzzy')).text).toBe('url,digest,title,first,last,captures,dates,type,status,size,collection,replay\n');
    const noQuery = await csv('fields=url');
    expect(noQuery.status).toBe(400);
    expect(noQuery.text).toContain('query: missing');
    const badField = await csv('query=homepage&fields=url,password');
    expect(badField.status).toBe(400);
    expect(badField.text).toContain('fields: password: not a field; the fields are url, digest');
    const badLimit = await csv('query=homepage&limit=-3');
    expect(badLimit.status).toBe(400);
    expect(badLimit.text).toContain('limit: -3: not a number of rows');
    const badQuery = await csv(`query=${encodeURIComponent('"unclosed')}`);
    expect(badQuery.status).toBe(400);
  });

  it('packages the versions a query finds as a WACZ, and asks to narrow a query that finds too many', async () => {
    const res = await fetch(`${srv.url}/export/wacz?query=${encodeURIComponent('homepage date:20071001')}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="nwax-export.wacz"');
    const pkg = join(dir, 'answer.wacz');
    writeFileSync(pkg, Buffer.from(await res.arrayBuffer()));
    expect(await waczProblems(pkg)).toEqual([]);
    const pages = (await zipEntry(pkg, 'pages/pages.jsonl'))
      .toString()
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l));
    expect(pages.map((x) => [x.url, x.ts])).toEqual([['http://example.org/index.html', '2007-10-01T12:00:00Z']]);
    const many = await fetch(`${srv.url}/export/wacz?query=homepage`);
    expect(many.status).toBe(413);
    expect(await many.text()).toContain('homepage: more than 4 versions; narrow the query');
    const none = await fetch(`${srv.url}/export/wacz?query=zzqqxyzzy`);
    expect(none.status).toBe(404);
  });

  it('quotes what CSV must: commas, quotes and line ends in a title come back whole', async () => {
    const row = (title: string, i: number) =>
      ({ url: `http://q.example/${i}`, digest: `D${i}`, title, dates: '20200101000000', mime: 'text/html', status: 200, length: 1, collection: 'c' }) as Row;
    const titles = ['plain', 'a, b', 'say "hi"', 'two\nlines', 'é, ü; 東京'];
    const lines: string[] = [];
    for await (const l of csvLines(titles.map(row), ['url', 'title'], '', 100)) lines.push(l);
    const back = parse(`${lines.join('\n')}\n`, { columns: true }) as { url: string; title: string }[];
    expect(back.map((b) => b.title)).toEqual(titles);
  });
});
