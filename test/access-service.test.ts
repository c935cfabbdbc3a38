/**
 * Access rules on every route of a real `nwax serve` (search workers, replay on its own origin,
 * /cdx), on a shard front, and in `nwax search`: a withheld capture is in no hit, total, facet,
 * date, snippet, suggestion, RSS item, stored copy, replay mode, TimeMap or CDX line, however
 * its URL is spelled; a takedown written while queries stream holds for every answer after the
 * reload; a rules file that does not parse keeps the rules before it; the user classes of a
 * trusted proxy's header and of the reading room. In Chromium: a blocked page, and a page whose
 * image is blocked, send the browser no byte of what is withheld.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { indexedCollection, nwaxAsync, serveCli, tempDir } from './helpers.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { accessSettings } from '../src/access/policy.js';
import { Configuration } from '../src/conf/config.js';
import { timestampOf } from '../src/access/dates.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (process.env.CI === 'true' && !HAVE_CHROMIUM) throw new Error('under CI the access tests need chromium');

/** A 1x1 PNG, and a marker in its bytes no other capture has. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const SECRET_PNG = Buffer.concat([PNG, Buffer.from('secret-image-bytes')]);

/** Captured an hour ago: inside any embargo. */
const RECENT = timestampOf(new Date(Date.now() - 3600_000));

const html = (title: string, body: string) => `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

let n = 0;
function capture(url: string, date: string, body: string | Buffer, type = 'text/html; charset=utf-8') {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  return {
    type: 'response',
    url,
    date,
    body: b,
    id,
    status: 200,
    statusline: 'HTTP/1.1 200 OK',
    headers: { 'Content-Type': type, 'Content-Length': String(b.length) },
  };
}

const PAGES = {
  home: html('Harbour home', '<h1>harbour</h1><img id="dot" src="img/dot.png"><img id="secret" src="img/secret.png">'),
  blocked: html('Xylophone notes', '<p>xylophone tuning, blocked for the public</p><img src="img/secret.png">'),
  secret: html('Zanzibar', '<p>zanzibar ledger, excluded</p>'),
  takedown: html('Quokka', '<p>quokka sighting, taken down later</p>'),
  news: html('Pangolin news', '<p>pangolin report</p>'),
  today: html('Aardvark today', '<p>aardvark fresh news</p>'),
};

/** Captures of three hosts, some withheld by the rules below, one version captured in 2010 and an hour ago. */
async function collectionWarc(path: string): Promise<void> {
  await writeWarc(path, [
    capture('http://site.example/index.html', '20100101000000', PAGES.home),
    capture('http://site.example/img/dot.png', '20100101000001', PNG, 'image/png'),
    capture('http://site.example/img/secret.png', '20100101000001', SECRET_PNG, 'image/png'),
    capture('http://site.example/blocked.html', '20100101000002', PAGES.blocked),
    capture('http://site.example/takedown.html', '20100101000003', PAGES.takedown),
    capture('http://private.example/secret.html', '20100101000004', PAGES.secret),
    // One version (same payload) captured in 2010 and an hour ago: the embargo withholds its second date.
    capture('http://news.example/pangolin.html', '20100101000005', PAGES.news),
    capture('http://news.example/pangolin.html', RECENT, PAGES.news),
    capture('http://news.example/today.html', RECENT, PAGES.today),
  ]);
}

const RULES = [
  'example,site)/img/secret.png - {"access": "block"}',
  'example,site)/blocked.html - {"access": "block"}',
  'example,site)/blocked.html - {"access": "allow_ignore_embargo", "user": "staff"}',
  'example,private)/ - {"access": "exclude"}',
  '',
].join('\n');

/** Every spelling of a URL a client could use to reach its capture another way. */
function spellings(url: string): string[] {
  const u = new URL(url);
  const path = u.pathname + u.search;
  const host = u.hostname;
  return [
    url,
    `https://${host}${path}`,
    `http://www.${host}${path}`,
    `HTTP://${host.toUpperCase()}${path}`,
    `http://${host}:80${path}`,
    `https://${host}:443${path}`,
    `http://${host}.${path}`,
    `http://user@${host}${path}#frag`,
    `http://${host}${path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)}`,
  ];
}

function writeRules(file: string, text: string): void {
  // Written aside and renamed, as an editor or `nwax acl` does.
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

describe('access rules on every route', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  const rules = join(dir, 'access.aclj');
  const cdx = join(dir, 'all.cdx');
  const props = ['-D', `nwax.access.rules=${rules}`, '-D', 'nwax.access.embargo=P1D'];
  let srv: { url: string; close(): Promise<void>; stderr(): string };
  let replay: string;
  const api = async (query: string, headers: Record<string, string> = {}) =>
    (await (await fetch(`${srv.url}/api/search?facets=1&hitsPerPage=50&query=${encodeURIComponent(query)}`, { headers })).json()) as {
      total: number;
      hits: { url: string; dates: string[]; set: string; doc: number; snippet: string; title: string }[];
      facets: { site: [string, number][]; year: [string, number][] };
    };

  beforeAll(async () => {
    const warc = join(dir, 'collection.warc.gz');
    await collectionWarc(warc);
    await indexedCollection(warc, crawl, cdx);
    writeRules(rules, RULES);
    srv = await serveCli(['-dir', crawl, '--port', '0', '--cdx', cdx, '-D', 'nwax.serve.threads=2', '-D', 'nwax.serve.reload.interval=0', ...props]);
    replay = /replay at (http:\/\/127\.0\.0\.1:\d+)\/replay\//.exec(srv.stderr())![1];
  }, 120_000);
  afterAll(() => srv?.close());

  it('full-text search: no hit, total, facet, date or snippet of a withheld capture, for any word of it', async () => {
    for (const word of ['xylophone', 'zanzibar', 'aardvark', 'tuning', 'ledger']) {
      const r = await api(word);
      expect(r.total, word).toBe(0);
      expect(r.hits, word).toEqual([]);
      expect(r.facets.site, word).toEqual([]);
    }
    // The version captured in 2010 and an hour ago shows the 2010 date alone, and a date filter on the recent one finds nothing.
    const pangolin = await api('pangolin');
    expect(pangolin.hits.map((h) => [h.url, h.dates])).toEqual([['http://news.example/pangolin.html', ['20100101000005']]]);
    expect(pangolin.facets.year).toEqual([['2010', 1]]);
    expect((await api(`pangolin date:${RECENT.slice(0, 8)}`)).total).toBe(0);
    expect((await api('pangolin date:2010')).total).toBe(1);
    // Fields alone, sorted by date, "all versions" of a URL: the same.
    for (const q of ['site:private.example', 'url:http://private.example/secret.html', 'url:http://site.example/blocked.html', 'site:news.example date:2026']) {
      expect((await api(q)).total, q).toBe(0);
    }
    const byDate = (await (await fetch(`${srv.url}/api/search?query=type:text/html&sort=date&hitsPerPage=50`)).json()) as { hits: { url: string }[] };
    expect(byDate.hits.map((h) => h.url).sort()).toEqual(
      ['http://news.example/pangolin.html', 'http://site.example/index.html', 'http://site.example/takedown.html'].sort(),
    );
    // The HTML page and RSS: the same answers.
    for (const path of ['/search', '/opensearch']) {
      const body = await (await fetch(`${srv.url}${path}?query=xylophone`)).text();
      expect(body).not.toMatch(/xylophone tuning|blocked\.html/);
    }
  });

  it('suggestions, stored copies and /cdx leave withheld captures out; a stored copy of a blocked one is a 451', async () => {
    const sugg = JSON.stringify(await (await fetch(`${srv.url}/suggest?q=pri`)).json()) + JSON.stringify(await (await fetch(`${srv.url}/suggest?q=xy`)).json());
    expect(sugg).not.toMatch(/private\.example|Xylophone/);
    // The stored copies by document number: every document of both index parts, asked directly.
    const statuses: number[] = [];
    for (const set of ['part-00000', 'part-00001'])
      for (let doc = 1; doc <= 8; doc++) {
        const res = await fetch(`${srv.url}/stored/${set}/${doc}`);
        const body = await res.text();
        statuses.push(res.status);
        expect(body).not.toMatch(/xylophone|zanzibar|aardvark|secret-image-bytes/);
        if (res.status === 451) expect(body).toContain('Access blocked');
      }
    // Pangolin, harbour, quokka and the dot; xylophone and the secret image (blocked); aardvark
    // (embargoed: excluded, as pywb's embargo) and zanzibar (excluded) as if absent.
    expect(statuses.filter((s) => s === 200).length).toBe(4);
    expect(statuses.filter((s) => s === 451).length).toBe(2);
    // Health and readiness count what the public may see: the four, not the eight versions.
    expect(((await (await fetch(`${srv.url}/healthz`)).json()) as { documents: number }).documents).toBe(4);
    const ready = (await (await fetch(`${srv.url}/readyz`)).json()) as { sets: { documents: number }[] };
    expect(ready.sets.reduce((n, x) => n + x.documents, 0)).toBe(4);
    for (const url of [
      'http://site.example/blocked.html',
      'http://private.example/secret.html',
      'http://news.example/today.html',
      'http://site.example/img/secret.png',
    ]) {
      for (const spelled of spellings(url)) {
        for (const matchType of ['exact', 'prefix', 'host', 'domain']) {
          const lines = await (await fetch(`${srv.url}/cdx?url=${encodeURIComponent(spelled)}&matchType=${matchType}&output=json`)).text();
          expect(lines, `${spelled} ${matchType}`).not.toContain(new URL(url).pathname);
        }
      }
    }
    // What is allowed is all there: the page, its dot, the quokka page, the 2010 pangolin.
    const lines: string[] = [];
    for (const host of ['site.example', 'news.example', 'private.example'])
      lines.push(...(await (await fetch(`${srv.url}/cdx?url=${host}&matchType=host&fl=urlkey,timestamp`)).text()).split('\n').filter(Boolean));
    expect(lines).toEqual([
      'example,site)/img/dot.png 20100101000001',
      'example,site)/index.html 20100101000000',
      'example,site)/takedown.html 20100101000003',
      'example,news)/pangolin.html 20100101000005',
    ]);
  });

  it('replay, in every mode and however the URL is spelled: 451 with a notice for blocked, 404 for excluded or embargoed, nothing of either', async () => {
    const cases: [string, number][] = [
      ['http://site.example/blocked.html', 451],
      ['http://site.example/img/secret.png', 451],
      ['http://news.example/today.html', 404],
      ['http://private.example/secret.html', 404],
    ];
    for (const [url, status] of cases) {
      for (const spelled of spellings(url)) {
        for (const path of [
          `/replay/web/2010/${spelled}`,
          `/replay/*/2010mp_/${spelled}`,
          `/replay/web/2026id_/${spelled}`,
          `/replay/web/2010im_/${spelled}`,
          `/replay/web/2010cs_/${spelled}`,
          `/replay/web/timemap/link/${spelled}`,
          `/replay/web/timemap/json/${spelled}`,
          `/replay/web/${spelled}`,
          `/replay/web/*/${spelled}`,
        ]) {
          const res = await fetch(`${replay}${path}`, { redirect: 'manual' });
          const body = Buffer.from(await res.arrayBuffer());
          expect(res.status, path).toBe(status);
          expect(body.includes('xylophone') || body.includes('zanzibar') || body.includes('aardvark') || body.includes('secret-image-bytes'), path).toBe(false);
          if (status === 451) expect(body.toString(), path).toContain('Access blocked');
          // The notice names nothing of the capture: not its URL, not its date.
          if (status === 451) expect(body.toString(), path).not.toMatch(/blocked\.html|secret\.png|today\.html|20100101/);
        }
      }
    }
    // The allowed captures replay; the embargoed date of the pangolin page does not.
    expect((await fetch(`${replay}/replay/web/2010mp_/http://site.example/index.html`)).status).toBe(200);
    const map = await (await fetch(`${replay}/replay/web/timemap/json/http://news.example/pangolin.html`)).text();
    expect(map).toContain('20100101000005');
    expect(map).not.toContain(RECENT);
    const near = await fetch(`${replay}/replay/web/${RECENT}mp_/http://news.example/pangolin.html`, { redirect: 'manual' });
    expect(near.headers.get('memento-datetime')).toBe('Fri, 01 Jan 2010 00:00:05 GMT');
  });

  it("a trusted proxy's user header opens what a rule allows that user; an untrusted one is ignored", async () => {
    const staff = { 'X-Pywb-ACL-User': 'staff' };
    expect((await api('xylophone', staff)).total).toBe(1);
    expect((await fetch(`${replay}/replay/web/2010mp_/http://site.example/blocked.html`, { headers: staff })).status).toBe(200);
    expect((await api('zanzibar', staff)).total).toBe(0);
    // The same header from an address not trusted, and the reading room: a service in this process.
    const conf = Configuration.load([
      ...props.filter((p) => p !== '-D'),
      'nwax.access.trusted.proxies=10.0.0.0/8',
      'nwax.access.reading.room=127.0.0.0/8',
      'nwax.access.reading.room.user=staff',
    ]);
    const local: RunningServer = await startServer({
      dir: crawl,
      host: '127.0.0.1',
      port: 0,
      replayPort: 0,
      wayback: '',
      hitsPerSite: 0,
      suggestTitles: 10,
      reloadInterval: 0,
      access: accessSettings(conf),
    });
    try {
      const asked = async (headers: Record<string, string>) =>
        ((await (await fetch(`${local.url}/api/search?query=xylophone`, { headers })).json()) as { total: number }).total;
      // From 127.0.0.1, in the reading room's range: its class, whatever the (untrusted) header says.
      expect(await asked({})).toBe(1);
      expect(await asked({ 'X-Pywb-ACL-User': 'nobody' })).toBe(1);
    } finally {
      await local.close();
    }
  });

  it('a shard front and its backend apply the same rules, the user class passed on', async () => {
    const front = await serveCli(['--port', '0', '--shards', srv.url, ...props]);
    try {
      const q = async (query: string, headers: Record<string, string> = {}) =>
        ((await (await fetch(`${front.url}/api/search?query=${encodeURIComponent(query)}`, { headers })).json()) as { total: number }).total;
      expect(await q('xylophone')).toBe(0);
      expect(await q('zanzibar')).toBe(0);
      expect(await q('harbour')).toBe(1);
      expect(await q('xylophone', { 'X-Pywb-ACL-User': 'staff' })).toBe(1);
    } finally {
      await front.close();
    }
  });

  it('a front with rules enforces them over a backend started without any', async () => {
    const open = await serveCli(['-dir', crawl, '--port', '0', '-D', 'nwax.serve.threads=1']);
    const front = await serveCli(['--port', '0', '--shards', open.url, ...props]);
    try {
      const q = async (query: string, headers: Record<string, string> = {}) =>
        (await (await fetch(`${front.url}/api/search?query=${encodeURIComponent(query)}`, { headers })).json()) as {
          total: number;
          hits: { url: string; dates: string[] }[];
          failedShards?: string[];
        };
      // The backend answers them all.
      expect((await (await fetch(`${open.url}/api/search?query=xylophone`)).json()).total).toBe(1);
      // A query of words takes none of its hits: it may have found a page by the anchor text of a
      // page the front withholds, which no hit shows. The backend is named.
      for (const word of ['xylophone', 'zanzibar', 'aardvark', 'harbour']) {
        const r = await q(word);
        expect(r.hits, word).toEqual([]);
        expect(r.failedShards, word).toEqual([`${open.url} (answers under other access rules)`]);
      }
      expect((await q('xylophone', { 'X-Pywb-ACL-User': 'staff' })).hits).toEqual([]);
      // A query of fields alone: its hits, under the front's own rules (each capture's dates).
      const site = await q('site:site.example type:text/html');
      expect(site.hits.map((h) => h.url).sort()).toEqual(['http://site.example/index.html', 'http://site.example/takedown.html']);
      expect((await q('site:news.example type:text/html')).hits.map((h) => [h.url, h.dates])).toEqual([
        ['http://news.example/pangolin.html', ['20100101000005']],
      ]);
      expect((await q('site:site.example type:text/html', { 'X-Pywb-ACL-User': 'staff' })).hits.map((h) => h.url).sort()).toEqual([
        'http://site.example/blocked.html',
        'http://site.example/index.html',
        'http://site.example/takedown.html',
      ]);
      // Its backend answers under no rules: what it counts beyond the page is not shown.
      const counted = (await (await fetch(`${front.url}/api/search?facets=1&query=site:site.example`)).json()) as {
        total: number;
        totalExact: boolean;
        facets?: unknown;
      };
      expect(counted).toMatchObject({ total: 3, totalExact: false });
      expect(counted.facets).toBeUndefined();
      expect(front.stderr()).toMatch(
        /answers under other access rules \(none, this front's [0-9a-f]{32}\): its totals and facets are not shown, nor its hits for words/,
      );
      // A backend under the same rules: its totals and facets are the answer's.
      const same = await serveCli(['--port', '0', '--shards', srv.url, ...props]);
      try {
        const r = (await (await fetch(`${same.url}/api/search?facets=1&query=harbour`)).json()) as {
          total: number;
          totalExact: boolean;
          facets?: { site: unknown[] };
        };
        expect(r).toMatchObject({ total: 1, totalExact: true });
        expect(r.facets?.site.length).toBe(1);
      } finally {
        await same.close();
      }
    } finally {
      await front.close();
      await open.close();
    }
  });

  it('nwax search applies the same rules, --user for a class', async () => {
    const pub = await nwaxAsync(['search', '-dir', crawl, '--json', 'xylophone', ...props]);
    expect(JSON.parse(pub.stdout).total).toBe(0);
    const staff = await nwaxAsync(['search', '-dir', crawl, '--json', '--user', 'staff', 'xylophone', ...props]);
    expect(JSON.parse(staff.stdout).total).toBe(1);
  });

  it('a takedown written while queries stream holds for every answer after the reload; a file that does not parse keeps the rules in force', async () => {
    expect((await api('quokka')).total).toBe(1);
    expect(JSON.stringify(await (await fetch(`${srv.url}/suggest?q=quok`)).json())).toContain('Quokka');
    const answers: { sent: number; total: number }[] = [];
    let streaming = true;
    const stream = (async () => {
      while (streaming) {
        const sent = performance.now();
        answers.push({ sent, total: (await api('quokka')).total });
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const written = performance.now();
    writeRules(rules, `${RULES}example,site)/takedown.html - {"access": "exclude"}\n`);
    const reload = await fetch(`${srv.url}/admin/reload`, { method: 'POST' });
    const reloaded = performance.now();
    expect(((await reload.json()) as { errors: string[] }).errors).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    streaming = false;
    await stream;
    const before = answers.filter((a) => a.sent < written);
    expect(before.length).toBeGreaterThan(3);
    expect(before.map((a) => a.total)).toEqual(before.map(() => 1));
    const after = answers.filter((a) => a.sent > reloaded);
    expect(after.length).toBeGreaterThan(3);
    expect(after.map((a) => a.total)).toEqual(after.map(() => 0));
    expect((await fetch(`${replay}/replay/web/2010mp_/http://site.example/takedown.html`)).status).toBe(404);
    // Suggestions are made again from what is served: the page's title is no longer offered.
    expect(JSON.stringify(await (await fetch(`${srv.url}/suggest?q=quok`)).json())).not.toContain('Quokka');

    // A line that does not parse: the rules before it stay in force (quokka stays down, harbour up), and the service says so.
    writeRules(rules, `${RULES}example,site)/takedown.html - {"access": "exclude"}\nexample,site)/index.html - {"access": "exclude"\n`);
    const bad = (await (await fetch(`${srv.url}/admin/reload`, { method: 'POST' })).json()) as { errors: string[] };
    expect(bad.errors.join('\n')).toContain(`${rules}: line 6: bad JSON`);
    expect((await api('quokka')).total).toBe(0);
    expect((await api('harbour')).total).toBe(1);
    expect(await (await fetch(`${srv.url}/metrics`)).text()).toMatch(/^nwax_access_rules_errors 1$/m);
    expect(srv.stderr()).toContain(`${rules}: line 6: bad JSON`);
    writeRules(rules, RULES);
    expect(((await (await fetch(`${srv.url}/admin/reload`, { method: 'POST' })).json()) as { errors: string[] }).errors).toEqual([]);
    expect((await api('quokka')).total).toBe(1);
    expect(await (await fetch(`${srv.url}/metrics`)).text()).toMatch(/^nwax_access_rules_errors 0$/m);
  }, 60_000);

  describe.skipIf(!HAVE_CHROMIUM)('in a browser', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    }, 60_000);
    afterAll(() => browser?.close());

    /** Every byte the browser received while the page loaded. */
    async function received(path: string): Promise<{ bodies: Buffer[]; statuses: Map<string, number>; page: import('playwright-core').Page }> {
      const page = await browser.newPage();
      const bodies: Buffer[] = [];
      const statuses = new Map<string, number>();
      page.on('response', (r) => {
        statuses.set(r.url(), r.status());
        bodies.push(Buffer.from(r.url()));
        void r.body().then(
          (b) => bodies.push(b),
          () => {},
        );
      });
      await page.goto(`${replay}${path}`, { waitUntil: 'load' });
      await page.waitForTimeout(500);
      return { bodies, statuses, page };
    }

    it('a blocked page shows the notice, and no byte of it or of its image reaches the browser', async () => {
      const { bodies, page } = await received('/replay/web/2010/http://site.example/blocked.html');
      // Not framed: the notice is the page.
      expect(await page.locator('h1').textContent()).toBe('Access blocked');
      const all = Buffer.concat(bodies);
      expect(all.includes('xylophone')).toBe(false);
      expect(all.includes('secret-image-bytes')).toBe(false);
      await page.close();
    }, 60_000);

    it('an allowed page replays with its allowed image, and its blocked image is a 451 with no byte of it', async () => {
      const { bodies, statuses, page } = await received('/replay/web/2010/http://site.example/index.html');
      const frame = page.frameLocator('#nwax-frame');
      await expect.poll(() => frame.locator('h1').textContent(), { timeout: 15_000 }).toBe('harbour');
      await expect.poll(() => frame.locator('#dot').evaluate((e) => (e as HTMLImageElement).naturalWidth), { timeout: 15_000 }).toBeGreaterThan(0);
      expect(await frame.locator('#secret').evaluate((e) => (e as HTMLImageElement).naturalWidth)).toBe(0);
      const secret = [...statuses].find(([u]) => u.endsWith('/http://site.example/img/secret.png'));
      expect(secret?.[1]).toBe(451);
      expect(Buffer.concat(bodies).includes('secret-image-bytes')).toBe(false);
      await page.close();
    }, 60_000);
  });
});
