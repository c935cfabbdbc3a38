import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ROOT, nwaxAsync, serveCli, tempDir } from './helpers.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc, dedupExampleRecords } from '../scripts/make-fixtures.mjs';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { BROKEN, GARDEN, HERON, ROBIN, birdCollection } from './bird-images.js';
import { parse } from 'csv-parse/sync';
import { gunzipSync } from 'node:zlib';
import { entries, waczProblems } from './wacz-validate.js';
import { expectedVersionDates } from './dedup-example.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} missing: under CI the browser test must run (.ci/run installs Debian's chromium)`);
  console.warn(`${CHROMIUM} not found: the browser test is skipped (apt-get install -y chromium)`);
}

/** The archives imported as one segment and indexed under DIR/crawl, served on 127.0.0.1, and a browser. */
async function served(dir: string, warcs: string[]): Promise<[RunningServer, Browser]> {
  writeFileSync(join(dir, 'manifest'), warcs.map((w) => `${w} web\n`).join(''));
  const crawl = join(dir, 'crawl');
  const seg = join(crawl, 'segments', '20101231000000');
  expect((await nwaxAsync(['import', join(dir, 'manifest'), seg])).code).toBe(0);
  expect((await nwaxAsync(['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg])).code).toBe(0);
  return servedCrawl(crawl);
}

/** A crawl served on 127.0.0.1 (its replay links to an address that is never asked), and a browser. */
async function servedCrawl(crawl: string): Promise<[RunningServer, Browser]> {
  const srv = await startServer({
    dir: crawl,
    host: '127.0.0.1',
    port: 0,
    wayback: 'http://wayback.invalid/{collection}/{date}/{url}',
    hitsPerSite: 0,
    suggestTitles: 100,
  });
  return [srv, await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] })];
}

/** A real browser on the real page: type, submit, page, follow, narrow. */
describe.skipIf(!HAVE_CHROMIUM)('the search page in a browser', () => {
  const dir = tempDir();
  let srv: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    // The worked example (five versions of one page) and fourteen pages on two other sites.
    let n = 100;
    const page = (title: string, text: string) => `<html><head><title>${title}</title></head><body><p>${text}</p></body></html>`;
    const more = Array.from({ length: 14 }, (_, i) => {
      const body = page(`Homepage notes ${i}`, `Notes about my homepage, number ${i}.`);
      return {
        type: 'response',
        url: `http://${i % 2 ? 'notes.example.net' : 'blog.example.com'}/p${i}.html`,
        date: `2008${String(1 + (i % 12)).padStart(2, '0')}01000000`,
        body,
        id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
        headers: { 'Content-Type': 'text/html', 'Content-Length': String(body.length) },
      };
    });
    const warc = join(dir, 'site.warc.gz');
    await writeWarc(warc, [...dedupExampleRecords(), ...more]);
    [srv, browser] = await served(dir, [warc]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  it('types a query, sees hits, pages, follows all versions, narrows by a facet, and keeps a screenshot', async () => {
    const p = await browser.newPage();
    await p.goto(`${srv.url}/`);
    await p.getByLabel('Search the archive').fill('homepage');
    await p.getByRole('button', { name: 'Search' }).click();
    await p.waitForURL(/\/search\?query=homepage/);
    expect(await p.getByRole('heading', { level: 2 }).textContent()).toBe('Hits 1-10 of about 19 for homepage');
    expect(await p.locator('ol > li').count()).toBe(10);
    expect(await p.locator('mark').first().textContent()).toMatch(/homepage/i);
    const shots = join(ROOT, 'test-output');
    mkdirSync(shots, { recursive: true });
    const shot = join(shots, 'search-results.png');
    await p.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);

    await p.getByRole('link', { name: 'Next page' }).click();
    expect(await p.getByRole('heading', { level: 2 }).textContent()).toBe('Hits 11-19 of about 19 for homepage');
    expect(await p.locator('ol > li').count()).toBe(9);

    // All versions of the example page: its five versions, with their dates.
    await p.goto(`${srv.url}/search?query=welcome`);
    await p.getByRole('link', { name: 'all versions of this URL' }).first().click();
    expect(await p.getByRole('heading', { level: 2 }).textContent()).toBe('Hits 1-5 of about 5 for url:http://example.org/index.html');
    expect(await p.locator('.dates').allTextContents()).toContain('Captured 2 times: 2007-10-03 12:002007-10-04 12:00');

    // Narrow "homepage" to one site with the facet.
    await p.goto(`${srv.url}/search?query=homepage`);
    await p.getByRole('navigation', { name: 'Narrow the results' }).getByRole('link', { name: 'notes.example.net' }).click();
    expect(await p.getByRole('heading', { level: 2 }).textContent()).toBe('Hits 1-7 of about 7 for homepage site:notes.example.net');
    const urls = await p.locator('.url').allTextContents();
    expect(urls.every((u) => u.startsWith('http://notes.example.net/'))).toBe(true);
    await p.close();
  }, 60_000);

  it('takes the results away from the page: its CSV link downloads every version with every date, its WACZ link a valid package of them', async () => {
    // `nwax serve` itself: a package is made by worker threads, which run from the build.
    const cli = await serveCli(['-dir', join(dir, 'crawl'), '--port', '0']);
    const ctx = await browser.newContext({ acceptDownloads: true });
    const p = await ctx.newPage();
    await p.goto(`${cli.url}/search?query=${encodeURIComponent('url:http://example.org/index.html')}`);
    const takeAway = p.locator('.take-away');
    // A download each, as a reader clicks it.
    const fetched = async (name: string) => {
      const [download] = await Promise.all([p.waitForEvent('download'), takeAway.getByRole('link', { name }).click()]);
      const path = join(dir, download.suggestedFilename());
      await download.saveAs(path);
      return path;
    };
    const csvPath = await fetched('CSV');
    expect(csvPath.endsWith('.csv')).toBe(true);
    const rows = parse(readFileSync(csvPath, 'utf8'), { columns: true }) as Record<string, string>[];
    // The worked example: five versions of one page, ten captures between them.
    expect(rows.map((r) => r.url)).toEqual(Array(5).fill('http://example.org/index.html'));
    expect(rows.map((r) => r.dates).sort()).toEqual(expectedVersionDates());
    expect(new Set(rows.map((r) => r.digest)).size).toBe(5);

    const waczPath = await fetched('WACZ package');
    expect(waczPath.endsWith('.wacz')).toBe(true);
    expect(await waczProblems(waczPath)).toEqual([]);
    const files = await entries(waczPath);
    // Its pages are the five versions; its index holds every capture of them.
    const pages = files
      .get('pages/pages.jsonl')!
      .toString()
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as { url: string });
    expect(pages.map((x) => x.url)).toEqual(Array(5).fill('http://example.org/index.html'));
    const index = [...files].find(([n]) => n.startsWith('indexes/'))!;
    const lines = (index[0].endsWith('.gz') ? gunzipSync(index[1]) : index[1]).toString().trim().split('\n');
    const captures = lines.filter((l) => l.startsWith('org,example)/index.html ') && /"status": ?"200"/.test(l));
    expect(captures.length).toBe(10);
    await ctx.close();
    await cli.close();
  }, 60_000);

  it('charts the hits over time: a bar a year links to that year, which is charted by month, as counts or as a share', async () => {
    type Timeline = { period: string; hits: [string, number][]; versions?: [string, number][] };
    const timeline = async (query: string, share = false) =>
      (
        (await (await fetch(`${srv.url}/api/search?facets=1${share ? '&share=1' : ''}&query=${encodeURIComponent(query)}`)).json()) as {
          facets: { timeline: Timeline };
        }
      ).facets.timeline;
    // The worked example's five versions of 2007 and the fourteen pages of 2008.
    expect(await timeline('homepage')).toEqual({
      period: 'year',
      hits: [
        ['2007', 5],
        ['2008', 14],
      ],
    });
    expect(await timeline('notes', true)).toEqual({
      period: 'year',
      hits: [['2008', 14]],
      versions: [
        ['2007', 5],
        ['2008', 14],
      ],
    });
    // One year asked: by month, counted inside it.
    const months = await timeline('homepage date:2008');
    expect(months.period).toBe('month');
    expect(months.hits).toEqual([
      ['200801', 2],
      ['200802', 2],
      ...Array.from({ length: 10 }, (_, i): [string, number] => [`2008${String(i + 3).padStart(2, '0')}`, 1]),
    ]);
    // A shard front sums its backends' timelines: one backend here, the same figures.
    const front = await startServer({ host: '127.0.0.1', port: 0, shards: [srv.url], hitsPerSite: 0 });
    try {
      const viaFront = (await (await fetch(`${front.url}/api/search?facets=1&share=1&query=notes`)).json()) as { facets: { timeline: Timeline } };
      expect(viaFront.facets.timeline).toEqual(await timeline('notes', true));
    } finally {
      await front.close();
    }

    const p = await browser.newPage();
    await p.goto(`${srv.url}/search?query=homepage`);
    const chart = p.locator('figure.timeline');
    expect(await chart.locator('svg').getAttribute('role')).toBe('img');
    expect(await chart.locator('svg a').count()).toBe(2);
    expect(await chart.locator('rect title').allTextContents()).toEqual(['2007: 5 versions', '2008: 14 versions']);
    await chart.getByRole('link', { name: '2008: 14' }).click();
    await p.waitForURL(/date%3A2008/);
    expect(await p.getByRole('heading', { level: 2 }).textContent()).toBe('Hits 1-10 of about 14 for homepage date:2008');
    // The year's months, from its first to its last.
    expect(await chart.locator('svg a').count()).toBe(12);
    // A month's bar narrows to the month, the year's filter replaced.
    await chart.getByRole('link', { name: '2008-03: 1' }).click();
    expect(await p.getByRole('heading', { level: 2 }).textContent()).toBe('Hits 1-1 of about 1 for homepage date:200803');
    // As a share of each period's versions.
    await p.goto(`${srv.url}/search?query=notes`);
    await chart.getByRole('link', { name: "show as a share of each period's versions" }).click();
    await p.waitForURL(/share=1/);
    expect(await chart.locator('rect title').allTextContents()).toEqual(['2008: 14 versions of 14 (100.00%)']);
    expect(await chart.locator('figcaption').textContent()).toContain("Share of the collection's versions of each year that match");
    await p.close();
  }, 60_000);
});

/** Versions compared, in a browser: the worked example (2007) and a diary page captured in 2008 and 2010, from two archives. */
describe.skipIf(!HAVE_CHROMIUM)('versions compared in a browser', () => {
  const dir = tempDir();
  let srv: RunningServer;
  let browser: Browser;
  const DIARY = 'http://diary.example.org/index.html';
  const diary = (date: string, title: string, text: string, links: string[], n: number) => {
    const body = `<html><head><title>${title}</title></head><body><p>${text}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
    return { type: 'response', url: DIARY, date, body, id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, headers: { 'Content-Type': 'text/html' } };
  };

  beforeAll(async () => {
    const example = join(dir, 'example.warc.gz');
    const later = join(dir, 'diary.warc.gz');
    await writeWarc(example, dedupExampleRecords());
    await writeWarc(later, [
      diary(
        '20080301000000',
        'Weather diary',
        'Rain kept on all week in the valley.',
        ['http://diary.example.org/rain.html', 'http://diary.example.org/snow.html'],
        201,
      ),
      diary(
        '20100301000000',
        'Weather diary, since 2008',
        'Sun came out all week in the valley.',
        ['http://diary.example.org/snow.html', 'http://diary.example.org/sun.html'],
        202,
      ),
    ]);
    [srv, browser] = await served(dir, [example, later]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  it('from the versions of a URL, compares adjacent versions and any two chosen, words marked', async () => {
    const p = await browser.newPage();
    await p.goto(`${srv.url}/search?query=${encodeURIComponent('url:http://example.org/index.html')}&sort=date`);
    // The third version (2007-10-05's is the first's text again: a new capture of ABC123, not a version).
    await p.getByRole('link', { name: 'compare with the version before' }).nth(2).click();
    await p.waitForURL(/\/compare\?/);
    expect(await p.getByRole('heading', { level: 2 }).textContent()).toBe('Changes to http://example.org/index.html');
    expect(await p.locator('.version h3').allTextContents()).toEqual([
      'From: the version first captured 2007-10-03 12:00',
      'To: the version first captured 2007-10-07 12:00',
    ]);
    expect(await p.locator('.diff del').allTextContents()).toEqual(["Sorry I haven't updated this in a while."]);
    expect(await p.locator('.diff ins').allTextContents()).toEqual(['Hey, I finally updated this.']);
    expect(await p.locator('.diff').textContent()).toContain('My homepage');
    // Every date of both versions links to replay.
    expect(await p.locator('.version .dates a').allTextContents()).toEqual(['2007-10-03 12:00', '2007-10-04 12:00', '2007-10-07 12:00']);
    expect(await p.locator('.title-change').textContent()).toBe('Title unchanged: My homepage');

    // The change before, then any two chosen in the form: the first version against the last.
    await p.getByRole('link', { name: 'Earlier change' }).click();
    expect(await p.locator('.diff ins').allTextContents()).toEqual(["Sorry I haven't updated this in a while."]);
    expect(await p.getByRole('link', { name: 'Earlier change' }).count()).toBe(0);
    await p.getByLabel('to').selectOption({ label: '2007-10-10 12:00 (captured once)' });
    await p.getByRole('button', { name: 'Compare' }).click();
    expect(await p.locator('.diff del').allTextContents()).toEqual(['Hello, welcome to my page.']);
    expect(await p.locator('.diff ins').allTextContents()).toEqual(['My homepage is great!']);
    expect(await p.getByRole('status').textContent()).toBe('4 words inserted, 5 deleted.');
    expect(await p.getByLabel('From').locator('option').count()).toBe(5);

    // A page of another year: its title and links changed too.
    await p.goto(`${srv.url}/compare?url=${encodeURIComponent(DIARY)}`);
    expect(await p.locator('.title-change').textContent()).toBe('Title: Weather diary Weather diary, since 2008');
    expect(await p.locator('.title-change ins').textContent()).toBe('Weather diary, since 2008');
    expect(await p.getByRole('heading', { name: 'Links added (1)' }).count()).toBe(1);
    expect(await p.locator('section:has(h3:text("Links added")) li').allTextContents()).toEqual(['http://diary.example.org/sun.html']);
    expect(await p.locator('section:has(h3:text("Links removed")) li').allTextContents()).toEqual(['http://diary.example.org/rain.html']);
    // The links' own words are the page's text too.
    expect(await p.locator('.diff del').allTextContents()).toEqual(['Rain kept on', 'http://diary.example.org/rain.html']);
    expect(await p.locator('.diff ins').allTextContents()).toEqual(['Sun came out', 'http://diary.example.org/sun.html']);
    await p.screenshot({ path: join(ROOT, 'test-output', 'compare.png'), fullPage: true });
    await p.close();

    // At a phone's width, each page reads as at a desktop's: its parts there, nothing wider than the screen.
    const phone = await browser.newPage({ viewport: { width: 360, height: 740 } });
    const pages: [string, string[]][] = [
      [`/search?query=${encodeURIComponent('url:http://example.org/index.html')}`, ['form[role=search]', 'ol > li', '.dates a', 'figure.timeline svg']],
      [`/compare?url=${encodeURIComponent(DIARY)}`, ['form.pick select[name=a]', '.version .dates a', '.title-change ins', '.diff del', '.diff ins']],
      ['/', ['form[role=search] input[type=search]']],
    ];
    for (const [path, parts] of pages) {
      await phone.goto(`${srv.url}${path}`);
      for (const part of parts) expect(await phone.locator(part).first().isVisible(), `${path} ${part}`).toBe(true);
      const wide = await phone.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
          .map((e) => `${e.tagName}.${e.className} ${e.getBoundingClientRect().right}`),
      );
      expect(wide, path).toEqual([]);
      // The one stylesheet applies (its rules, not the browser's defaults).
      expect(await phone.evaluate(() => getComputedStyle(document.body).maxWidth)).toBe(`${52 * 16}px`);
    }
    await phone.screenshot({ path: join(ROOT, 'test-output', 'phone.png'), fullPage: true });
    await phone.close();

    // What cannot be compared says why.
    const one = await fetch(`${srv.url}/compare?url=${encodeURIComponent('http://diary.example.org/none.html')}`);
    expect(one.status).toBe(404);
    expect(await one.text()).toContain('no version in this collection; nothing to compare');
    const bad = await fetch(`${srv.url}/compare?url=${encodeURIComponent(DIARY)}&a=nosuch/1`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('a: nosuch/1 is not a version of http://diary.example.org/index.html');
  }, 60_000);
});

/** Images as images: the grid of thumbnails, on the bird collection of 2008 and 2010 beside the worked example of 2007. */
describe.skipIf(!HAVE_CHROMIUM)('images in a browser', () => {
  const dir = tempDir();
  let srv: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [srv, browser] = await servedCrawl(await birdCollection(dir, dedupExampleRecords()));
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  it('shows type:image hits as thumbnails linked to their captures and the pages that show them, a placeholder where one cannot be decoded', async () => {
    const p = await browser.newPage();
    await p.goto(`${srv.url}/search?query=${encodeURIComponent('type:image')}`);
    expect(await p.locator('ol.images > li').count()).toBe(3);
    await p.waitForFunction(() => [...document.images].every((i) => i.complete));
    // Each thumbnail decoded by the browser: the image scaled into the square, or the placeholder.
    const shown = await p.evaluate(() =>
      Object.fromEntries([...document.querySelectorAll<HTMLImageElement>('ol.images img')].map((i) => [i.alt, [i.naturalWidth, i.naturalHeight]])),
    );
    expect(shown).toEqual({ [ROBIN]: [200, 150], [HERON]: [67, 200], [BROKEN]: [200, 200] });
    const placeholder = await p.evaluate(
      async (src) => (await fetch(src)).headers.get('x-nwax-thumbnail'),
      await p.getByRole('img', { name: BROKEN }).getAttribute('src'),
    );
    expect(placeholder).toMatch(/^placeholder: cannot be decoded/);
    // Each inside its box, whatever its shape.
    const outside = await p.evaluate(
      () =>
        [...document.querySelectorAll<HTMLImageElement>('ol.images img')].filter((i) => {
          const box = i.parentElement!.getBoundingClientRect();
          const r = i.getBoundingClientRect();
          return r.width > box.width + 0.5 || r.height > box.height + 0.5;
        }).length,
    );
    expect(outside).toBe(0);
    // A thumbnail opens its capture; the heron's is of 2010.
    const heron = p.locator('ol.images > li', { hasText: HERON });
    expect(await heron.locator('a.thumb').getAttribute('href')).toBe(`http://wayback.invalid/web/20100501000000/${HERON}`);
    expect(await heron.locator('.dates a').allTextContents()).toEqual(['2010-05-01 00:00']);
    // The pages that show it, followed to their versions.
    const robin = p.locator('ol.images > li', { hasText: ROBIN });
    await robin.getByRole('link', { name: 'Garden birds' }).click();
    await p.waitForURL(/query=url%3A/);
    expect(await p.locator('ol > li h3').allTextContents()).toEqual(['Garden birds']);

    // Found by the words around it, typed in the box.
    await p.getByLabel('Search the archive').fill('fence pond type:image');
    await p.getByRole('button', { name: 'Search' }).click();
    await p.waitForURL(/fence/);
    expect(await p.locator('ol.images > li .url').allTextContents()).toEqual([ROBIN]);
    // Among pages, an image has its thumbnail beside it.
    await p.goto(`${srv.url}/search?query=${encodeURIComponent('fence')}`);
    expect(await p.locator('ol > li').count()).toBe(2);
    expect(await p.locator('ol > li', { hasText: ROBIN }).locator('a.thumb img').count()).toBe(1);
    expect(await p.locator('ol > li', { hasText: GARDEN }).locator('a.thumb').count()).toBe(0);
    await p.close();

    // At a phone's width: the grid's thumbnails visible, nothing wider than the screen.
    const phone = await browser.newPage({ viewport: { width: 360, height: 740 } });
    await phone.goto(`${srv.url}/search?query=${encodeURIComponent('type:image')}`);
    // (Loaded lazily: an image has its box once it has come.)
    await phone.locator('ol.images img').first().waitFor({ state: 'visible', timeout: 10_000 });
    const wide = await phone.evaluate(
      () => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5).length,
    );
    expect(wide).toBe(0);
    await phone.screenshot({ path: join(ROOT, 'test-output', 'images.png'), fullPage: true });
    await phone.close();
  }, 60_000);
});
