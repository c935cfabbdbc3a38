import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Request } from 'playwright-core';
import { FIXTURES, HAVE_FIXTURES, ROOT, nwaxAsync, tempDir } from './helpers.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { parseReplayTarget } from '../src/replay/archival-url.js';
import { parseHttpDate } from '../src/replay/memento.js';
import { base32 } from '../src/archive/digest.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (process.env.CI === 'true' && (!HAVE_CHROMIUM || !HAVE_FIXTURES)) throw new Error('under CI the replay tests need chromium and ../shared/fixtures');

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Site home</title>
<link rel="stylesheet" href="/style.css" integrity="sha256-x">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'">
</head><body><h1>Caf\u00e9 home</h1>
<img id="rel" src="img/dot.png"><img id="cdn" src="http://cdn.example.net/logo.png"><img id="set" srcset="http://cdn.example.net/logo.png 1x, img/dot.png 2x">
<img id="gone" src="http://never.example/x.png">
<a id="old" href="/old">old page</a>
<div id="styled" style="background:url('img/dot.png')">styled</div>
<script>
var i = new Image(); i.id = 'jsimg'; i.src = '/js-built.png'; document.body.appendChild(i);
fetch('/data.json').then(function (r) { return r.json(); }).then(function (j) { document.getElementById('styled').setAttribute('data-fetched', j.word); });
fetch('http://live.example/tracker').catch(function () {});
document.body.setAttribute('data-year', String(new Date().getFullYear()));
</script>
</body></html>
`;
const CSS = '@import "more.css";\nh1 { color: rgb(0, 128, 0); }\nbody { background: url(img/dot.png) no-repeat; }\n';

function sha1b32(b: Buffer): string {
  return base32(createHash('sha1').update(b).digest());
}

let n = 0;
const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
function resp(url: string, date: string, body: string | Buffer, type: string, extra: Record<string, string> = {}, status = 200) {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  return {
    type: 'response',
    url,
    date,
    body: b,
    id: id(),
    status,
    statusline: `HTTP/1.1 ${status} ${status === 200 ? 'OK' : 'Moved'}`,
    headers: { 'Content-Type': type, 'Content-Length': String(b.length), 'Set-Cookie': 'a=b', 'X-Frame-Options': 'DENY', ...extra },
  };
}

/** A site captured in 2010, revisited in 2011, with a redirect and a self-redirect. */
async function siteWarc(path: string): Promise<void> {
  await writeWarc(path, [
    resp('http://site.example/index.html', '20100101000000', PAGE, 'text/html; charset=utf-8'),
    resp('http://site.example/style.css', '20100101000001', CSS, 'text/css'),
    resp('http://site.example/more.css', '20100101000001', 'p { margin: 0; }\n', 'text/css'),
    resp('http://site.example/img/dot.png', '20100101000002', PNG, 'image/png'),
    resp('http://site.example/js-built.png', '20100101000002', PNG, 'image/png'),
    resp('http://site.example/data.json', '20100101000003', '{"word":"archived"}', 'application/json'),
    resp('http://cdn.example.net/logo.png', '20091201000000', PNG, 'image/png'),
    // The 2011 capture of the page repeats 2010's payload: a revisit.
    {
      type: 'revisit',
      url: 'http://site.example/index.html',
      date: '20110101000000',
      body: '',
      id: id(),
      headers: { 'Content-Type': 'text/html; charset=utf-8' },
      warcHeaders: {
        'WARC-Profile': 'http://netpreserve.org/warc/1.0/revisit/identical-payload-digest',
        'WARC-Payload-Digest': `sha1:${sha1b32(Buffer.from(PAGE))}`,
      },
    },
    resp('http://site.example/old', '20100101000004', '', 'text/html', { Location: 'http://site.example/index.html' }, 301),
    resp('http://site.example/self', '20100101000000', '<html><body><p id="self">the page itself</p></body></html>', 'text/html'),
    resp('http://site.example/self', '20100601000000', '', 'text/html', { Location: 'https://www.site.example/self/' }, 301),
  ]);
}

describe('replay', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  let srv: RunningServer;
  let replay: string;
  const get = (path: string, init?: RequestInit) => fetch(`${replay}${path}`, { redirect: 'manual', ...init });

  beforeAll(async () => {
    const warc = join(dir, 'site.warc.gz');
    await siteWarc(warc);
    const lines = [`${warc} web`];
    if (HAVE_FIXTURES) {
      // Real archives read in place: pywb's iana.org crawl, its URL-agnostic revisit pair, the
      // British Library's two Heritrix crawls (the second revisits the first), and a page
      // archived with Content-Encoding br.
      lines.push(`${join(FIXTURES, 'pywb/iana.warc.gz')} iana`);
      for (const f of ['pywb/example-url-agnostic-orig.warc.gz', 'pywb/example-url-agnostic-revisit.warc.gz']) lines.push(`${join(FIXTURES, f)} agnostic`);
      for (const f of [
        'BL-20140325121225068-00000-32090~opera~8443.warc.gz',
        'BL-20140325122341434-00000-32090~opera~8443.warc.gz',
        'transfer_compression_brotli.warc.gz',
      ])
        lines.push(`${join(FIXTURES, 'webarchive-discovery', f)} bl`);
    }
    writeFileSync(join(dir, 'manifest'), `${lines.join('\n')}\n`);
    const seg = join(crawl, 'segments', '20120101000000');
    const imp = await nwaxAsync(['import', join(dir, 'manifest'), seg]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stderr).toMatch(/capture index for replay: \d+ lines sorted into \S+captures\.cdx/);
    expect((await nwaxAsync(['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg])).code).toBe(0);
    srv = await startServer({ dir: crawl, host: '127.0.0.1', port: 0, replayPort: 0, wayback: '', hitsPerSite: 0, suggestTitles: 10, reloadInterval: 0 });
    replay = srv.replayUrl!;
    expect(replay).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(replay).not.toBe(srv.url);
  }, 120_000);
  afterAll(() => srv?.close());

  it('links search hits to the replay origin', async () => {
    const r = (await (await fetch(`${srv.url}/api/search?query=caf%C3%A9`)).json()) as { hits: { url: string; replay: { url: string }[] }[] };
    expect(r.hits[0].url).toBe('http://site.example/index.html');
    expect(r.hits[0].replay[0].url).toBe(`${replay}/replay/web/20100101000000/http://site.example/index.html`);
    const html = await (await fetch(`${srv.url}/search?query=caf%C3%A9`)).text();
    expect(html).toContain(`href="${replay}/replay/web/20100101000000/http://site.example/index.html"`);
  });

  it('rewrites the page, its stylesheet and its headers, and sends the Memento headers and a self-only CSP', async () => {
    const res = await get('/replay/web/20100101mp_/http://site.example/index.html');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:/);
    expect(res.headers.get('memento-datetime')).toBe('Fri, 01 Jan 2010 00:00:00 GMT');
    expect(res.headers.get('link')).toContain('<http://site.example/index.html>; rel="original"');
    expect(res.headers.get('x-archive-orig-set-cookie')).toBe('a=b');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('x-frame-options')).toBeNull();
    const body = Buffer.from(await res.arrayBuffer());
    const text = body.toString('utf8');
    // The page's own bytes are kept (é in UTF-8), the shim goes first in the head.
    expect(text).toContain('<h1>Caf\u00e9 home</h1>');
    expect(text).toMatch(/<head><script src="\/replay\/_static\/shim\.js" data-coll="web" data-ts="20100101000000" data-capture="20100101000000"/);
    expect(text).toContain('href="/replay/web/20100101000000cs_/http://site.example/style.css" _integrity="sha256-x"');
    expect(text).toContain('http-equiv="x-archive-orig-Content-Security-Policy"');
    expect(text).toContain('src="/replay/web/20100101000000im_/http://site.example/img/dot.png"');
    expect(text).toContain(
      'srcset="/replay/web/20100101000000im_/http://cdn.example.net/logo.png 1x, /replay/web/20100101000000im_/http://site.example/img/dot.png 2x"',
    );
    expect(text).toContain(`style="background:url('/replay/web/20100101000000im_/http://site.example/img/dot.png')"`);
    expect(text).toContain('href="/replay/web/20100101000000mp_/http://site.example/old"');
    const css = await (await get('/replay/web/20100101000000cs_/http://site.example/style.css')).text();
    expect(css).toBe(
      '@import "/replay/web/20100101000000cs_/http://site.example/more.css";\nh1 { color: rgb(0, 128, 0); }\nbody { background: url(/replay/web/20100101000000im_/http://site.example/img/dot.png) no-repeat; }\n',
    );
    // id_: the payload as archived.
    expect(await (await get('/replay/web/20100101id_/http://site.example/index.html')).text()).toBe(PAGE);
    const png = await get('/replay/web/2010im_/http://site.example/img/dot.png');
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('serves a revisit from its original, replays a redirect, and passes over a self-redirect', async () => {
    const rev = await get('/replay/web/2011mp_/http://site.example/index.html');
    expect(rev.status).toBe(200);
    expect(rev.headers.get('memento-datetime')).toBe('Sat, 01 Jan 2011 00:00:00 GMT');
    expect(await rev.text()).toContain('<h1>Caf\u00e9 home</h1>');
    const old = await get('/replay/web/20100101mp_/http://site.example/old');
    expect(old.status).toBe(301);
    // The redirect's target is looked up at the time asked for, as the page's resources are.
    expect(old.headers.get('location')).toBe('/replay/web/20100101000000mp_/http://site.example/index.html');
    // The June capture of /self redirects to itself (https, www., a slash): January's is served.
    const self = await get('/replay/web/20100601mp_/http://site.example/self');
    expect(self.status).toBe(200);
    expect(self.headers.get('memento-datetime')).toBe('Fri, 01 Jan 2010 00:00:00 GMT');
  });

  it.skipIf(!HAVE_FIXTURES)('replays real revisits: across two Heritrix crawls, URL-agnostic through WARC-Refers-To, and a Brotli-encoded page', async () => {
    // data.gov.uk's second crawl holds a revisit of the first's home page.
    const rev = await get('/replay/bl/20140325122351mp_/http://data.gov.uk/');
    expect(rev.status).toBe(200);
    expect(rev.headers.get('memento-datetime')).toBe('Tue, 25 Mar 2014 12:23:51 GMT');
    expect(rev.headers.get('x-archive-src')).toMatch(/^BL-20140325122341434-00000-32090~opera~8443\.warc\.gz /);
    const home = await rev.text();
    expect(home).toMatch(/<title>[^<]*data\.gov\.uk/i);
    expect(home).toMatch(/"\/replay\/bl\/20140325122351(mp_|cs_|js_|im_|oe_)\/http:\/\/data\.gov\.uk\//);
    // pywb's pair: a revisit of http://test@example.com/ whose original is http://example.iana.org/.
    const ag = await get('/replay/agnostic/2013mp_/http://test@example.com/');
    expect(ag.status).toBe(200);
    expect(ag.headers.get('memento-datetime')).toBe('Mon, 29 Jul 2013 19:51:51 GMT');
    expect(await ag.text()).toContain('Example Domain');
    // Archived with Content-Encoding br: decoded and rewritten for mp_, kept as stored for id_.
    const br = await get('/replay/bl/2020mp_/http://tokemon.sb.statsbiblioteket.dk/');
    expect(br.status).toBe(200);
    expect(br.headers.get('content-encoding')).toBeNull();
    expect(await br.text()).toContain('/replay/_static/shim.js');
    const raw = await get('/replay/bl/2020id_/http://tokemon.sb.statsbiblioteket.dk/');
    expect(raw.headers.get('content-encoding')).toBe('br');
    // Which capture each resource of the page comes from, and their spread (JSON).
    const co = (await (await get('/replay/iana/coherence/20140126200624/http://www.iana.org/')).json()) as {
      memento: string;
      resources: { url: string; memento: string | null }[];
      spread: { seconds: number };
    };
    expect(co.memento).toBe('20140126200624');
    expect(co.resources.find((r) => r.url === 'http://www.iana.org/_css/2013.1/screen.css')?.memento).toBe('20140126200625');
    expect(co.spread.seconds).toBeGreaterThan(0);
  });

  it('answers Memento: TimeMap in link format and JSON, TimeGate with Accept-Datetime', async () => {
    const tm = await get('/replay/web/timemap/link/http://site.example/index.html');
    expect(tm.headers.get('content-type')).toBe('application/link-format; charset=utf-8');
    const lines = (await tm.text()).trim().split(',\n');
    expect(lines[0]).toBe('<http://site.example/index.html>; rel="original"');
    expect(lines[1]).toBe(
      `<${replay}/replay/web/timemap/link/http://site.example/index.html>; rel="self"; type="application/link-format"; from="Fri, 01 Jan 2010 00:00:00 GMT"; until="Sat, 01 Jan 2011 00:00:00 GMT"`,
    );
    expect(lines.slice(3)).toEqual([
      `<${replay}/replay/web/20100101000000mp_/http://site.example/index.html>; rel="first memento"; datetime="Fri, 01 Jan 2010 00:00:00 GMT"`,
      `<${replay}/replay/web/20110101000000mp_/http://site.example/index.html>; rel="last memento"; datetime="Sat, 01 Jan 2011 00:00:00 GMT"`,
    ]);
    const json = (await (await get('/replay/web/timemap/json/http://site.example/index.html')).json()) as { mementos: { list: { datetime: string }[] } };
    expect(json.mementos.list.map((m) => m.datetime)).toEqual(['2010-01-01T00:00:00Z', '2011-01-01T00:00:00Z']);
    // RFC 7089's Accept-Datetime example form.
    const tg = await get('/replay/web/http://site.example/index.html', { headers: { 'Accept-Datetime': 'Thu, 30 Dec 2010 12:00:00 GMT' } });
    expect(tg.status).toBe(302);
    expect(tg.headers.get('vary')).toBe('accept-datetime');
    expect(tg.headers.get('location')).toBe(`${replay}/replay/web/20110101000000mp_/http://site.example/index.html`);
    expect(tg.headers.get('link')).toContain('rel="timemap"; type="application/link-format"');
    expect((await get('/replay/web/http://site.example/index.html', { headers: { 'Accept-Datetime': 'yesterday' } })).status).toBe(400);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe('19941106084937');
    // The timeline: every capture by month, each version with its dates.
    const tl = await (await get('/replay/web/*/http://site.example/index.html')).text();
    expect(tl).toContain('<svg class="timeline"');
    expect(tl).toContain('2 captures, 1 version');
  });

  it('tells the client what it got wrong with a 4xx, never a 5xx', async () => {
    expect((await get('/replay/nosuch/2010/http://site.example/index.html')).status).toBe(404);
    expect((await get('/replay/web/201001011200001/http://site.example/')).status).toBe(400);
    expect((await get('/replay/web/2010zz_/http://site.example/')).status).toBe(400);
    expect((await get('/replay/web/2010mp_/ftp://site.example/')).status).toBe(400);
    expect((await get('/replay/_static/../../package.json')).status).toBe(404);
    expect((await get('/replay/web/2010mp_/http://site.example/%2e%2e/%2e%2e/etc/passwd')).status).toBe(404);
    const never = await get('/replay/web/2010/http://site.example/never.html');
    expect(never.status).toBe(404);
    const page = await never.text();
    expect(page).toContain('Not in the archive');
    expect(page).toContain('http://site.example/index.html');
    expect(parseReplayTarget('/replay/*/2010/site.example/a?b=1')).toEqual({
      kind: 'memento',
      coll: '*',
      ts: '20100101000000',
      mod: '',
      url: 'http://site.example/a?b=1',
    });
    expect(parseReplayTarget('/replay/*/2010mp_/http:/site.example/a')).toMatchObject({ url: 'http://site.example/a' });
  });

  it("answers 502 naming the archive when a capture's archive is gone", async () => {
    const other = join(dir, 'gone');
    const warc = join(other, 'gone.warc.gz');
    await writeWarc(warc, [resp('http://gone.example/', '20100101000000', '<p>x</p>', 'text/html')]);
    writeFileSync(join(other, 'manifest'), `${warc}\n`);
    const oc = join(other, 'crawl');
    expect((await nwaxAsync(['import', join(other, 'manifest'), join(oc, 'segments', '20120101000000')])).code).toBe(0);
    expect((await nwaxAsync(['index', join(oc, 'indexes'), join(oc, 'crawldb'), join(oc, 'linkdb'), join(oc, 'segments', '20120101000000')])).code).toBe(0);
    renameSync(warc, `${warc}.moved`);
    const s = await startServer({
      dir: join(other, 'crawl'),
      host: '127.0.0.1',
      port: 0,
      replayPort: -1,
      wayback: '',
      hitsPerSite: 0,
      suggestTitles: 10,
      reloadInterval: 0,
    });
    try {
      const res = await fetch(`${s.url}/replay/*/2010mp_/http://gone.example/`);
      expect(res.status).toBe(502);
      expect(await res.text()).toContain('gone.warc.gz');
    } finally {
      await s.close();
    }
  });

  describe.skipIf(!HAVE_CHROMIUM)('in a browser', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
      });
    }, 60_000);
    afterAll(() => browser?.close());

    /** Opens a framed replay page; returns the page and every request it made. */
    async function open(path: string) {
      const p = await browser.newPage();
      const requests: Request[] = [];
      p.on('request', (r) => requests.push(r));
      await p.goto(`${replay}${path}`, { waitUntil: 'load' });
      const frame = p.frameLocator('#nwax-frame');
      return { p, frame, requests };
    }

    it("opens a search hit's main link as the replayed page", async () => {
      const p = await browser.newPage();
      const hosts = new Set<string>();
      p.on('request', (r) => hosts.add(new URL(r.url()).origin));
      await p.goto(`${srv.url}/search?query=caf%C3%A9`);
      await p.locator('ol > li h3 a').first().click();
      await p.waitForURL(`${replay}/replay/web/20100101000000/http://site.example/index.html`);
      await expect.poll(() => p.frameLocator('#nwax-frame').locator('h1').textContent(), { timeout: 15_000 }).toBe('Caf\u00e9 home');
      // The search origin and the replay origin, nothing else.
      expect([...hosts].sort()).toEqual([new URL(srv.url).origin, new URL(replay).origin].sort());
      await p.close();
    }, 60_000);

    it('shows the page as captured: stylesheet, images, script-built URLs, the banner, and no request off the replay origin', async () => {
      const { p, frame, requests } = await open('/replay/web/20100101/http://site.example/index.html');
      await expect.poll(() => frame.locator('#styled').getAttribute('data-fetched'), { timeout: 15_000 }).toBe('archived');
      expect(await frame.locator('h1').evaluate((e) => getComputedStyle(e).color)).toBe('rgb(0, 128, 0)');
      for (const img of ['#rel', '#cdn', '#jsimg']) {
        await expect.poll(() => frame.locator(img).evaluate((e) => (e as HTMLImageElement).naturalWidth), { message: img, timeout: 15_000 }).toBeGreaterThan(0);
      }
      expect(await frame.locator('#gone').evaluate((e) => (e as HTMLImageElement).naturalWidth)).toBe(0);
      // The page's clock reads the capture year.
      expect(await frame.locator('body').getAttribute('data-year')).toBe('2010');
      expect(await p.locator('#nwax-date').textContent()).toBe('2010-01-01 00:00:00');
      await expect
        .poll(() => p.locator('#nwax-coherence').textContent(), { timeout: 15_000 })
        .toMatch(/resources from the archive, captured between 2009-12-01 00:00:00 and 2010-01-01 00:00:03/);
      const origin = new URL(replay).origin;
      const off = requests.map((r) => r.url()).filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
      expect(off).toEqual([]);
      expect(requests.some((r) => r.url().includes('/replay/web/20100101000000mp_/http://live.example/tracker'))).toBe(true);
      const shots = join(ROOT, 'test-output');
      mkdirSync(shots, { recursive: true });
      await p.screenshot({ path: join(shots, 'replay-site.png'), fullPage: true });
      // Following a link inside the frame keeps the banner in step (the redirect of /old lands on the page).
      await frame.locator('#old').click();
      await expect.poll(() => p.url(), { timeout: 15_000 }).toMatch(/\/replay\/web\/20100101000000\/http:\/\/site\.example\/index\.html$/);
      await p.close();
    }, 60_000);

    it.skipIf(!HAVE_FIXTURES)(
      "replays a real crawl (pywb's iana.org archive, revisits included) with its stylesheet and images, all from the archive",
      async () => {
        const { p, frame, requests } = await open('/replay/iana/20140126200624/http://www.iana.org/');
        await expect.poll(() => frame.locator('img').count(), { timeout: 15_000 }).toBeGreaterThan(0);
        const widths = await frame.locator('img').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth));
        expect(widths.filter((w) => w > 0).length).toBeGreaterThan(0);
        // The site's stylesheet is applied: the header is laid out by it, not by the browser's defaults.
        const sheets = await frame.locator('link[rel=stylesheet]').evaluateAll((ls) => ls.map((l) => (l as HTMLLinkElement).sheet?.cssRules.length ?? 0));
        expect(Math.max(...sheets)).toBeGreaterThan(10);
        const origin = new URL(replay).origin;
        expect(requests.map((r) => r.url()).filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'))).toEqual([]);
        const shots = join(ROOT, 'test-output');
        await p.screenshot({ path: join(shots, 'replay-iana.png') });
        expect(statSync(join(shots, 'replay-iana.png')).size).toBeGreaterThan(10_000);
        await p.close();
      },
      60_000,
    );
  });
});
