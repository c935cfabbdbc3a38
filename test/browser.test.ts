import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ROOT, nwaxAsync, tempDir } from './helpers.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc, dedupExampleRecords } from '../scripts/make-fixtures.mjs';
import { startServer, type RunningServer } from '../src/serve/server.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} missing: under CI the browser test must run (.ci/run installs Debian's chromium)`);
  console.warn(`${CHROMIUM} not found: the browser test is skipped (apt-get install -y chromium)`);
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
    writeFileSync(join(dir, 'manifest'), `${warc} web\n`);
    const crawl = join(dir, 'crawl');
    const seg = join(crawl, 'segments', '20081231000000');
    expect((await nwaxAsync(['import', join(dir, 'manifest'), seg])).code).toBe(0);
    expect((await nwaxAsync(['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg])).code).toBe(0);
    srv = await startServer({
      dir: crawl,
      host: '127.0.0.1',
      port: 0,
      wayback: 'http://wayback.invalid/{collection}/{date}/{url}',
      hitsPerSite: 0,
      suggestTitles: 100,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
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
});
