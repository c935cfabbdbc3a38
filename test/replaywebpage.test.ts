/**
 * A package `nwax export-wacz` wrote, opened by a real client: ReplayWeb.page 2.5.3 (npm
 * `replaywebpage`, its own ui.js and service worker, fetched from the npm registry with `npm
 * pack` into node_modules/.cache: the package cannot be installed here, its wabac dependency
 * asks for a warcio the registry does not have) served from 127.0.0.1 with byte ranges, in
 * Debian's Chromium. The page renders from the package with its stylesheet, and ReplayWeb.page's
 * own full-text search (over pages.jsonl) finds it by a word of its text; a package of thousands
 * of pages lists them, replays a deep one and its search finds a late one by its title.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { FIXTURES, HAVE_FIXTURES, ROOT, nwax, seededRandom, tempDir } from './helpers.js';
import { zipEntry } from './zip-entry.js';
import { waczProblems } from './wacz-validate.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { page, writeWarc } from '../scripts/make-fixtures.mjs';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { serveReplayWebPage } from '../scripts/replaywebpage.mjs';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM && process.env.CI === 'true')
  throw new Error(`${CHROMIUM} missing: under CI the browser tests must run (.ci/run installs Debian's chromium)`);
if (!HAVE_CHROMIUM || !HAVE_FIXTURES) console.warn('replaywebpage.test: skipped (no chromium, or no ../shared/fixtures)');

describe.skipIf(!HAVE_CHROMIUM || !HAVE_FIXTURES)('an exported package in ReplayWeb.page', () => {
  const dir = tempDir();
  let server: { base: string; close(): Promise<void> };
  let base = '';
  let browser: Browser;

  beforeAll(async () => {
    // The collection: ReplayWeb.page's own example package, imported, indexed and exported.
    const crawl = join(dir, 'crawl');
    const manifest = join(dir, 'manifest');
    writeFileSync(manifest, `${join(FIXTURES, 'wacz', 'example.wacz')} webrecorder\n`);
    const seg = join(crawl, 'segments', '20220916000000');
    for (const args of [
      ['import', manifest, seg],
      ['updatedb', join(crawl, 'crawldb'), seg],
      ['invertlinks', join(crawl, 'linkdb'), seg],
      ['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg],
      ['export-wacz', join(dir, 'out.wacz'), '-dir', crawl],
      // The same with the index as a large package has it: gzip members and their summary.
      ['export-wacz', join(dir, 'out-gz.wacz'), '-dir', crawl, '-D', 'nwax.export.index.plain.max=0'],
    ]) {
      const r = await nwax(args);
      expect(r.code, `nwax ${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    server = await serveReplayWebPage(ROOT, { '/archive.wacz': join(dir, 'out.wacz'), '/archive-gz.wacz': join(dir, 'out-gz.wacz') });
    base = server.base;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The first frame of `page` for which `test` holds, looked for up to `ms`. */
  async function frameWhere(page: Page, test: (f: Frame) => Promise<boolean>, ms = 60_000): Promise<Frame | undefined> {
    for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 500))) {
      for (const f of page.frames()) if (await test(f).catch(() => false)) return f;
    }
    return undefined;
  }

  /**
   * `look` on the page, and once more after a reload when it finds nothing in `ms`: on a busy
   * machine ReplayWeb.page's first load can start before its service worker controls the
   * frame, and then stays empty until the page is loaded again, as a user would.
   */
  async function withReload<T>(page: Page, look: (ms: number) => Promise<T | undefined>, ms = 30_000): Promise<T | undefined> {
    const first = await look(ms);
    if (first !== undefined) return first;
    await page.reload();
    return look(2 * ms);
  }

  it.each([
    ['a plain index', '/archive.wacz'],
    ['a compressed index and its summary (index.cdx.gz, index.idx)', '/archive-gz.wacz'],
  ])(
    'renders the page from the package with %s, with its stylesheet',
    async (_, source) => {
      const page = await browser.newPage();
      try {
        await page.goto(`${base}/?source=${source}&url=${encodeURIComponent('https://webrecorder.net/')}`);
        const replayed = await withReload(page, (ms) =>
          frameWhere(
            page,
            async (f) =>
              /mp_\/https:\/\/webrecorder\.net\/$/.test(f.url()) &&
              /Web archiving for all!/.test(await f.evaluate(() => document.body?.innerText ?? '')) &&
              // The text can show before its stylesheet has loaded on a busy machine: both, then.
              (await f.evaluate(() => document.readyState === 'complete')),
            ms,
          ),
        );
        expect(
          replayed,
          `frames: ${page
            .frames()
            .map((f) => f.url())
            .join(' ')}`,
        ).toBeDefined();
        // The stylesheet came from the package too: its rules are there, and they apply.
        const rules = await replayed!.evaluate(() => [...document.styleSheets].filter((s) => /main\.css/.test(s.href ?? '')).map((s) => s.cssRules.length));
        expect(rules.length).toBe(1);
        expect(rules[0]).toBeGreaterThan(10);
      } finally {
        await page.close();
      }
    },
    180_000,
  );

  it("finds the page by a word of its text with ReplayWeb.page's own search, and nothing for a word it lacks", async () => {
    /**
     * The links of the pages listed for `query`: once one shows, or after `settle` ms with none.
     * ReplayWeb.page's app frame is looked for afresh each time (it is made again once the
     * service worker is in place).
     */
    const found = async (query: string, settle: number) => {
      const page = await browser.newPage();
      try {
        await page.goto(`${base}/?query=${encodeURIComponent(query)}`);
        let app: Frame | undefined;
        const listed = async (ms: number): Promise<(string | null)[] | undefined> => {
          for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
            for (const f of page.frames().filter((x) => x.url().startsWith(`${base}/replay/?`))) {
              app = f;
              const entries = f.locator('wr-page-entry');
              const n = await entries.count().catch(() => 0);
              if (n === 0) continue;
              const links = [];
              for (let i = 0; i < n; i++) links.push(await entries.nth(i).locator('a').first().getAttribute('href', { timeout: 5000 }));
              return links;
            }
          }
          return undefined;
        };
        const links = settle > 30_000 ? await withReload(page, listed) : await listed(settle);
        expect(app, "ReplayWeb.page's app frame").toBeDefined();
        return links ?? [];
      } finally {
        await page.close();
      }
    };
    // "Browsertrix" is in the page's text, not in its title or URL.
    const t0 = Date.now();
    expect(await found('Browsertrix', 60_000)).toEqual([expect.stringContaining(`url=${encodeURIComponent('https://webrecorder.net/')}&ts=20220916191507`)]);
    // A word it lacks: nothing listed in twice the time the first answer took (5 to 20 s).
    expect(await found('zzqqxyzzy', Math.min(20_000, Math.max(5000, 2 * (Date.now() - t0))))).toEqual([]);
  }, 240_000);
});

/**
 * The test that would have caught issue 71: a package of thousands of pages in ReplayWeb.page.
 * The collection is made here: 3,000 pages, each with a title word of its own and more text
 * than ReplayWeb.page searches of a list (the first MiB of its deflated entry), so the package
 * has a compressed index and a list of titles, as a real collection's export has. Exported in
 * the form written before (one plain index, every page's text), the search does not find the
 * late page.
 */
describe.skipIf(!HAVE_CHROMIUM)('a package of thousands of pages in ReplayWeb.page', () => {
  const dir = tempDir();
  const PAGES = 3000;
  const url = (i: number) => `http://many.example/p${i}.html`;
  // A word of each page's own: "tern" and its number spelled in letters (no digits to split on).
  const word = (i: number) => `tern${[...String(i).padStart(4, '0')].map((d) => 'abcdefghij'[Number(d)]).join('')}`;
  let server: { base: string; close(): Promise<void> };
  let browser: Browser;
  const pkg = join(dir, 'many.wacz');

  beforeAll(async () => {
    // Text as varied as a real page's (it deflates as such: 3,000 pages of it are more than a MiB).
    const random = seededRandom(71);
    const vocabulary = Array.from({ length: 3000 }, () =>
      Array.from({ length: 3 + Math.floor(random() * 6) }, () => 'etaoinshrdlucmfwypvbgk'[Math.floor(random() * 22)]).join(''),
    );
    const text = () => Array.from({ length: 160 }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');
    const records = Array.from({ length: PAGES }, (_, i) => ({
      type: 'response',
      url: url(i),
      date: `2021${String(1 + (i % 12)).padStart(2, '0')}01000000`,
      body: page(`Page ${i} ${word(i)}`, `${text()} <a href="p${(i + 1) % PAGES}.html">next</a>`),
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    }));
    const warc = join(dir, 'many.warc.gz');
    await writeWarc(warc, records);
    writeFileSync(join(dir, 'manifest'), `${warc} many\n`);
    const crawl = join(dir, 'crawl');
    const seg = join(crawl, 'segments', '20210101000000');
    for (const args of [
      ['import', join(dir, 'manifest'), seg],
      ['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg],
      ['export-wacz', pkg, '-dir', crawl],
    ]) {
      const r = await nwax(args);
      expect(r.code, `nwax ${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    server = await serveReplayWebPage(ROOT, { '/many.wacz': pkg });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /**
   * Milliseconds until `test` holds on a frame of a fresh page at `path`; undefined after `ms`.
   * Loaded once more where the first load shows nothing in a third of the time: on a busy
   * machine ReplayWeb.page's first load can start before its service worker controls the frame
   * (or read the list before it was stored), and stays so until the page is loaded again, as a
   * user would (the same as withReload above).
   */
  async function opened(path: string, test: (f: Frame) => Promise<boolean>, ms = 120_000): Promise<number | undefined> {
    const context = await browser.newContext();
    const p = await context.newPage();
    try {
      await p.goto(`${server.base}/${path}`);
      const t0 = Date.now();
      let reloaded = false;
      while (Date.now() - t0 < ms) {
        for (const f of p.frames()) if (await test(f).catch(() => false)) return Date.now() - t0;
        if (!reloaded && Date.now() - t0 > ms / 3) {
          reloaded = true;
          await p.reload();
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      return undefined;
    } finally {
      await context.close();
    }
  }
  const app = (f: Frame) => f.url().startsWith(`${server.base}/replay/?`);

  it('is a valid package with a compressed index and a list of pages that are pages', async () => {
    expect(await waczProblems(pkg)).toEqual([]);
    const listed = (await zipEntry(pkg, 'pages/pages.jsonl')).toString().trim().split('\n');
    expect(JSON.parse(listed[0])).toMatchObject({ hasText: false });
    expect(listed).toHaveLength(PAGES + 1);
    expect((await zipEntry(pkg, 'indexes/index.idx')).toString()).toMatch(/^!meta 0 \{"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"\}\n/);
  });

  it('lists the pages, replays a page deep in the collection, and finds a late page by a word of its title', async () => {
    expect(await opened('?source=/many.wacz', async (f) => app(f) && (await f.locator('wr-page-entry').count()) > 0), 'the list of pages').toBeDefined();
    const deep = PAGES - 7;
    expect(
      await opened(
        `?source=/many.wacz&url=${encodeURIComponent(url(deep))}`,
        async (f) => f.url().includes(`mp_/${url(deep)}`) && (await f.evaluate(() => document.title)) === `Page ${deep} ${word(deep)}`,
      ),
      'the deep page replayed',
    ).toBeDefined();
    expect(
      await opened(`?source=/many.wacz&query=${word(deep)}`, async (f) => {
        if (!app(f)) return false;
        const hrefs = await f.locator('wr-page-entry a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
        return hrefs.some((h) => h.includes(encodeURIComponent(url(deep))));
      }),
      'the late page found by its search',
    ).toBeDefined();
  }, 420_000);
});
