// The bench collection's export opened in ReplayWeb.page 2.5.3 in Chromium, as a user opens a
// package: the time to its list of pages, to a page deep in the collection replayed, and to a
// late page found by ReplayWeb.page's own search for a word of its title. Today's package
// beside the same records in the form export-wacz wrote before (one plain index, every page's
// whole text in pages.jsonl), same run, each try in a fresh browser profile; medians.
// Targets (issue 71): list <= 20 s, deep page <= 30 s, the late page found.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import yauzl from 'yauzl';
import { CORPUS_DIR, NWAX, ROOT, table } from './lib.mjs';
import { buildCrawl } from './serve-ops.mjs';
import { serveReplayWebPage } from '../scripts/replaywebpage.mjs';

const CHROMIUM = '/usr/bin/chromium';
/** What a try waits at most before it says "not in N s". */
const LIMIT_MS = 120_000;

/** One entry of a ZIP, read whole. */
function entry(zipPath, name) {
  return new Promise((resolve, reject) => {
    yauzl.open(zipPath, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      zip.on('entry', (e) => {
        if (e.fileName !== name) return zip.readEntry();
        zip.openReadStream(e, (err2, s) => {
          if (err2) return reject(err2);
          const parts = [];
          s.on('data', (c) => parts.push(c));
          s.on('end', () => resolve(Buffer.concat(parts)));
        });
      });
      zip.on('end', () => reject(new Error(`${name}: not in ${zipPath}`)));
      zip.readEntry();
    });
  });
}

/** The last page listed with a title word no other title has: what the search looks for. */
async function latePage(pkg) {
  const pages = (await entry(pkg, 'pages/pages.jsonl'))
    .toString()
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l));
  const words = (t) => (t ?? '').toLowerCase().match(/[a-z]{5,}/g) ?? [];
  const count = new Map();
  for (const p of pages) for (const w of new Set(words(p.title))) count.set(w, (count.get(w) ?? 0) + 1);
  for (let i = pages.length - 1; i >= 0; i--) {
    const w = words(pages[i].title).find((x) => count.get(x) === 1);
    if (w) return { page: pages[i], word: w, at: i, of: pages.length };
  }
  throw new Error(`${pkg}: no page with a title word of its own`);
}

/** Milliseconds until `test` holds on one of the page's frames; undefined past the limit. */
async function until(page, test) {
  const t0 = Date.now();
  while (Date.now() - t0 < LIMIT_MS) {
    for (const f of page.frames()) if (await test(f).catch(() => false)) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 250));
  }
  return undefined;
}

async function oneTry(browser, base, source, late) {
  const times = {};
  const open = async (path, test) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${base}/${path}`);
      return await until(page, test);
    } finally {
      await context.close();
    }
  };
  const app = (f) => f.url().startsWith(`${base}/replay/?`);
  times.list = await open(`?source=${source}`, async (f) => app(f) && (await f.locator('wr-page-entry').count()) > 0);
  const url = late.page.url;
  times.deep = await open(
    `?source=${source}&url=${encodeURIComponent(url)}`,
    async (f) => f.url().includes(`mp_/${url}`) && (await f.evaluate(() => document.title)) === late.page.title,
  );
  times.search = await open(`?source=${source}&query=${encodeURIComponent(late.word)}`, async (f) => {
    if (!app(f)) return false;
    const hrefs = await f.locator('wr-page-entry a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    return hrefs.some((h) => h.includes(encodeURIComponent(url)));
  });
  return times;
}

export async function benchWaczReplay({ runs = 3 } = {}) {
  if (!existsSync(CHROMIUM)) return `WACZ in ReplayWeb.page: skipped (no ${CHROMIUM})`;
  const crawl = join(CORPUS_DIR, 'serve-ops-crawl');
  await buildCrawl(crawl);
  const today = join(CORPUS_DIR, 'nwax-bench-rwp-today.wacz');
  const before = join(CORPUS_DIR, 'nwax-bench-rwp-before.wacz');
  const exp = (out, ...props) => execFileSync('node', [NWAX, 'export-wacz', out, '-dir', crawl, ...props], { stdio: ['ignore', 'ignore', 'inherit'] });
  exp(today);
  exp(before, '-D', 'nwax.export.index.plain.max=1000000000', '-D', 'nwax.export.pages.text.max=1000000000000');
  const late = await latePage(today);
  const server = await serveReplayWebPage(ROOT, { '/today.wacz': today, '/before.wacz': before });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const got = { today: [], before: [] };
  try {
    for (let r = 0; r < runs; r++) for (const name of ['today', 'before']) got[name].push(await oneTry(browser, server.base, `/${name}.wacz`, late));
  } finally {
    await browser.close();
    await server.close();
  }
  const median = (xs) => {
    const ok = xs.filter((x) => x !== undefined).sort((a, b) => a - b);
    // A try that never got there counts as the limit, and says so.
    const all = [...ok, ...xs.filter((x) => x === undefined).map(() => Number.POSITIVE_INFINITY)];
    const m = all[Math.floor((all.length - 1) / 2)];
    return m === Number.POSITIVE_INFINITY ? `not in ${LIMIT_MS / 1000} s` : `${(m / 1000).toFixed(1)} s`;
  };
  const row = (name, label) => [label, median(got[name].map((t) => t.list)), median(got[name].map((t) => t.deep)), median(got[name].map((t) => t.search))];
  return [
    `WACZ in ReplayWeb.page 2.5.3 (Chromium, a fresh profile each try): the bench collection exported, medians of ${runs};` +
      ` the deep page ${late.page.url} (page ${late.at + 1} of ${late.of}), searched by "${late.word}" of its title`,
    table([
      ['package', 'page list', 'deep page replayed', 'late page found by search'],
      row('today', 'today (compressed index, pages without text past 1 MiB)'),
      row('before', 'before (plain index, every page with its whole text)'),
    ]),
    '  targets: page list <= 20 s, deep page <= 30 s, the late page found',
  ].join('\n');
}
