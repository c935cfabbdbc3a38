/**
 * Withholding per capture, not per version: one version (the same payload) captured in 2009 and
 * in 2020, whose 2009 capture the rules exclude (`before: 2015`). The public finds the version
 * with its 2020 date only, and nothing it is handed names or serves the 2009 record: not the
 * hit's record fields, not /stored, not the page's link to it, not an exported package.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { nwax, nwaxAsync, serveCli, tempDir } from './helpers.js';
import { zipEntry } from './zip-entry.js';
import { hidePaths } from '../src/util/hide-paths.js';
import { Searcher } from '../src/search/searcher.js';
import { accessSettings } from '../src/access/policy.js';
import { Configuration } from '../src/conf/config.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';

const PAGE = '<!DOCTYPE html><html><head><title>Okapi notes</title></head><body><p>okapi sighting in the forest</p></body></html>';

let n = 0;
const capture = (url: string, date: string, body: string) => ({
  type: 'response',
  url,
  date,
  body,
  id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  status: 200,
  statusline: 'HTTP/1.1 200 OK',
  headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) },
});

describe('a version whose first capture is withheld', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  const rules = join(dir, 'rules.aclj');
  let srv: { url: string; close(): Promise<void> };
  type JsonHit = { url: string; dates: string[]; set: string; doc: number; offset: number | null; file?: string | null };
  const hits = async (base: string) => ((await (await fetch(`${base}/api/search?query=okapi`)).json()) as { hits: JsonHit[] }).hits;

  beforeAll(async () => {
    const warc = join(dir, 'okapi.warc.gz');
    await writeWarc(warc, [
      capture('http://v.example/page.html', '20090101000000', PAGE),
      capture('http://v.example/page.html', '20200101000000', PAGE),
      capture('http://v.example/other.html', '20100101000000', PAGE.replace('Okapi notes', 'Other notes').replace('okapi', 'tapir')),
    ]);
    writeFileSync(join(dir, 'manifest'), `${warc} web\n`);
    const seg = join(crawl, 'segments', '20200102000000');
    for (const step of [
      ['import', join(dir, 'manifest'), seg],
      ['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg],
    ])
      expect((await nwaxAsync(step)).code).toBe(0);
    writeFileSync(rules, 'example,v)/page.html - {"access": "exclude", "before": "2015"}\n');
    srv = await serveCli(['-dir', crawl, '--port', '0', '-D', `nwax.access.rules=${rules}`, '-D', 'nwax.serve.threads=1']);
  }, 60_000);
  afterAll(() => srv?.close());

  it('is found with its shown dates only, and names no record, serves none, links to none', async () => {
    // Without rules, one version with both dates, its row naming the 2009 record.
    const open = JSON.parse((await nwax(['search', '--json', '-dir', crawl, 'okapi'])).stdout) as { hits: JsonHit[] };
    expect(open.hits.map((h) => h.dates)).toEqual([['20090101000000', '20200101000000']]);
    expect(open.hits[0].offset).toBe(0);
    const [hit, ...more] = await hits(srv.url);
    expect(more).toEqual([]);
    expect(hit.dates).toEqual(['20200101000000']);
    expect(hit.offset).toBeNull();
    expect(hit.file ?? null).toBeNull();
    // Its copy is the 2020 capture's, from replay (which reads the capture index under the same rules).
    const stored = await fetch(`${srv.url}/stored/${encodeURIComponent(hit.set)}/${hit.doc}`, { redirect: 'manual' });
    expect(stored.status).toBe(302);
    const copy = await fetch(stored.headers.get('location')!, { signal: AbortSignal.timeout(10_000) });
    expect(copy.headers.get('memento-datetime')).toBe('Wed, 01 Jan 2020 00:00:00 GMT');
    expect(await copy.text()).toContain('okapi');
    const page = await (await fetch(`${srv.url}/search?query=okapi`)).text();
    expect(page).toContain('Okapi notes');
    expect(page).not.toContain('/stored/');
    expect(page).not.toContain('2009');
    // nwax search applies the same rules.
    const cli = JSON.parse((await nwax(['search', '--json', '-dir', crawl, '-D', `nwax.access.rules=${rules}`, 'okapi'])).stdout) as { hits: JsonHit[] };
    expect(cli.hits.map((h) => [h.dates, h.offset])).toEqual([[['20200101000000'], null]]);
    // And an embargo of the earlier captures (pywb's before) the same way, with no rule at all.
    const embargoed = JSON.parse((await nwax(['search', '--json', '-dir', crawl, '-D', 'nwax.access.embargo=before:2015', 'okapi'])).stdout) as {
      hits: JsonHit[];
    };
    expect(embargoed.hits.map((h) => [h.dates, h.offset])).toEqual([[['20200101000000'], null]]);
  });

  it('leaves its withheld capture out of an exported package, and keeps the capture shown', async () => {
    const out = join(dir, 'public.wacz');
    const r = await nwax(['export-wacz', out, '-dir', crawl, '-D', `nwax.access.rules=${rules}`]);
    expect(r.code, r.stderr).toBe(0);
    const warc = gunzipSync(await zipEntry(out, 'archive/data.warc.gz')).toString('latin1');
    expect(warc).not.toMatch(/WARC-Date: 2009-/);
    expect(warc).toMatch(/WARC-Date: 2020-01-01T00:00:00Z/);
    // Its page is left out (it would name the withheld record); the other page is there.
    const pages = (await zipEntry(out, 'pages/pages.jsonl')).toString('utf8');
    expect(pages).toContain('v.example/other.html');
    expect(pages).not.toContain('v.example/page.html');
  });

  it('names an archive that cannot be read by its file name, not where it lies on the server', async () => {
    const other = ((await (await fetch(`${srv.url}/api/search?query=tapir`)).json()) as { hits: JsonHit[] }).hits[0];
    // The archive cut short after it was indexed.
    const warc = join(dir, 'okapi.warc.gz');
    writeFileSync(warc, readFileSync(warc).subarray(0, 40));
    const res = await fetch(`${srv.url}/stored/${encodeURIComponent(other.set)}/${other.doc}`);
    expect(res.status).toBe(502);
    const body = await res.text();
    expect(body).toContain('okapi.warc.gz');
    expect(body).not.toContain(dir);
  });
});

describe('hidePaths', () => {
  it("keeps a message's words and the archive's file name, and drops where it lies", () => {
    expect(hidePaths("ENOENT: no such file or directory, open '/data/archives/2009/a.warc.gz'")).toBe("ENOENT: no such file or directory, open 'a.warc.gz'");
    expect(hidePaths('/srv/nwax/arcs/IAH-2007.arc.gz: offset 1234: bad gzip member')).toBe('IAH-2007.arc.gz: offset 1234: bad gzip member');
    expect(hidePaths('https://store.internal:9000/bucket/x/b.warc.gz?sig=abc: HTTP 403')).toBe('b.warc.gz: HTTP 403');
    expect(hidePaths('record cut short (12 of 400 bytes)')).toBe('record cut short (12 of 400 bytes)');
    expect(hidePaths('a.warc.gz: offset 0: not a WARC record')).toBe('a.warc.gz: offset 0: not a WARC record');
  });
});

describe("a class's statistics", () => {
  it('leave out what the class may not see: scores as in a collection without the withheld page, and no count of it', async () => {
    const dir = tempDir();
    const page = (title: string, words: string) => `<!DOCTYPE html><html><head><title>${title}</title></head><body><p>${words}</p></body></html>`;
    const pages: [string, string][] = [
      ['http://w.example/p1.html', page('One', 'okapi forest okapi')],
      ['http://w.example/p2.html', page('Two', 'forest river')],
      ['http://w.example/p3.html', page('Three', 'okapi river river')],
      // Pages without the query's words: their idf is then far from zero.
      ...Array.from({ length: 12 }, (_, i) => [`http://w.example/f${i}.html`, page(`Filler ${i}`, `tapir meadow number ${i}`)] as [string, string]),
    ];
    const secret: [string, string] = ['http://w.example/secret.html', page('Secret', 'okapi okapi okapi okapi zebu forest')];
    const crawlOf = async (name: string, of: [string, string][]) => {
      const warc = join(dir, `${name}.warc.gz`);
      await writeWarc(
        warc,
        of.map(([url, body]) => capture(url, '20100101000000', body)),
      );
      writeFileSync(join(dir, `${name}.manifest`), `${warc} web\n`);
      const crawl = join(dir, name);
      const seg = join(crawl, 'segments', '20100102000000');
      expect((await nwaxAsync(['import', join(dir, `${name}.manifest`), seg])).code).toBe(0);
      expect((await nwaxAsync(['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg])).code).toBe(0);
      return crawl;
    };
    const withSecret = await crawlOf('with', [...pages, secret]);
    const without = await crawlOf('without', pages);
    const rules = join(dir, 'rules.aclj');
    writeFileSync(rules, 'example,w)/secret.html - {"access": "exclude"}\n');
    const scores = async (crawl: string, q: string, more: string[] = []) =>
      (JSON.parse((await nwax(['search', '--json', '-dir', crawl, ...more, q])).stdout) as { hits: { url: string; score: number }[] }).hits.map(
        (h) => [h.url, h.score] as const,
      );
    for (const q of ['okapi', 'forest', 'okapi river', 'forest OR river']) {
      const got = await scores(withSecret, q, ['-D', `nwax.access.rules=${rules}`]);
      const want = await scores(without, q);
      expect(
        got.map(([u]) => u),
        q,
      ).toEqual(want.map(([u]) => u));
      got.forEach(([, s], i) => expect(s, `${q} ${got[i][0]}`).toBeCloseTo(want[i][1], 9));
      // And differ from the scores the whole collection gives (the check can fail).
      if (q === 'okapi') expect(Math.abs((await scores(withSecret, q))[0][1] / want[0][1] - 1)).toBeGreaterThan(0.01);
    }
    // What a front's statistics exchange hears of a word only the withheld page holds: nothing.
    const searcher = new Searcher(withSecret, undefined, { ...accessSettings(Configuration.load([`nwax.access.rules=${rules}`])) });
    try {
      const stats = searcher.view().shardStats('zebu', 10, false)!;
      expect([stats.counted, Object.values(stats.hits)]).toEqual([0, [0]]);
      expect(searcher.view().shardStats('okapi', 10, false)!.rows).toBe(15);
    } finally {
      searcher.close();
    }
  }, 60_000);
});
