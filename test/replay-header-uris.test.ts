/**
 * URLs in replay's headers (issue: nothing lies): archived URLs hold `"`, `<`, `>`, spaces and
 * non-ASCII; a Location or an RFC 8288 Link header must carry them percent-encoded, or a
 * Memento client cuts a link at its first `>` or `"`. The hostile strings of the test helpers
 * through uriForHeader, then a real service answering a raw request for such a URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { awkwardStrings, nwaxAsync, tempDir } from './helpers.js';
import { uriForHeader } from '../src/replay/header-uri.js';
import { startServer, type RunningServer } from '../src/serve/server.js';

/** RFC 3986's characters of a URI reference: unreserved, reserved and percent-escapes. */
const URI_REFERENCE = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2}|%)*$/;

describe('uriForHeader', () => {
  it('leaves a URI as it is and encodes what RFC 3986 does not take, as UTF-8', () => {
    expect(uriForHeader('http://example.org/a?b=c&d=%20e#f')).toBe('http://example.org/a?b=c&d=%20e#f');
    expect(uriForHeader('http://example.org/say"hi"<there> x')).toBe('http://example.org/say%22hi%22%3Cthere%3E%20x');
    expect(uriForHeader('http://example.org/caf\u00e9/\ud83d\ude00')).toBe('http://example.org/caf%C3%A9/%F0%9F%98%80');
    expect(uriForHeader('http://[::1]/\ud800')).toBe('http://[::1]/%EF%BF%BD');
  });

  it('gives a URI reference for every hostile string, and decodes back to it', () => {
    for (const s of awkwardStrings()) {
      const url = `http://example.org/${s}?q=${s}`;
      const enc = uriForHeader(url);
      expect(enc, JSON.stringify(s)).toMatch(URI_REFERENCE);
      // Nothing lost: decoding the escapes nwax added gives the URL back (lone surrogates as U+FFFD).
      if (!/[\ud800-\udfff]/.test(url.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')) && !/%/.test(s)) expect(decodeURIComponent(enc)).toBe(url);
    }
  });
});

/** GET with a raw request target (node sends `"`, `<`, `>` as they are, as a hostile client would). */
function rawGet(
  base: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: target, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The archive imported as collection `web` under DIR/crawl, indexed, and served with replay on its own port. */
async function serveArchive(dir: string, warc: string): Promise<RunningServer> {
  const crawl = join(dir, 'crawl');
  writeFileSync(join(dir, 'manifest'), `${warc} web\n`);
  const seg = join(crawl, 'segments', '20120101000000');
  expect((await nwaxAsync(['import', join(dir, 'manifest'), seg])).code).toBe(0);
  expect((await nwaxAsync(['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg])).code).toBe(0);
  return startServer({ dir: crawl, host: '127.0.0.1', port: 0, replayPort: 0, wayback: '', hitsPerSite: 0, suggestTitles: 10, reloadInterval: 0 });
}

/** Each `<…>` of a Link header, checked against RFC 8288's `"<" URI-Reference ">"`. */
function linkTargets(link: string): string[] {
  const targets = [...link.matchAll(/<([^>]*)>\s*((?:;\s*[a-z]+="[^"]*"\s*)*)(?:,\s*|$)/g)];
  // The links parsed end to end: nothing left over by a `>` or `"` inside a URL.
  expect(targets.map((m) => m[0]).join('')).toBe(link);
  return targets.map((m) => m[1]);
}

describe('replay headers carry archived URLs percent-encoded', () => {
  const dir = tempDir();
  const odd = 'http://site.example/say"hi"<there>';
  let srv: RunningServer;

  beforeAll(async () => {
    const warc = join(dir, 'odd.warc.gz');
    const resp = (url: string, date: string, body: string, status: number, extra: Record<string, string>, id: number) => ({
      type: 'response',
      url,
      date,
      body: Buffer.from(body),
      id: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
      status,
      statusline: `HTTP/1.1 ${status} ${status === 200 ? 'OK' : 'Found'}`,
      headers: { 'Content-Type': 'text/html', 'Content-Length': String(body.length), ...extra },
    });
    await writeWarc(warc, [
      resp(odd, '20100101000000', '<html><title>quoted</title><body>quoted page</body></html>', 200, {}, 1),
      resp('http://site.example/go', '20100101000001', '', 302, { Location: `${odd} x`, Link: '<http://site.example/say"hi"<there x>; rel="canonical"' }, 2),
    ]);
    srv = await serveArchive(dir, warc);
  }, 120_000);
  afterAll(() => srv?.close());

  it('TimeGate: Location and Link of a URL with ", < and > are URI references, and the Location replays it', async () => {
    const r = await rawGet(srv.replayUrl!, `/replay/web/${odd}`, { 'Accept-Datetime': 'Fri, 01 Jan 2010 00:00:00 GMT' });
    expect(r.status).toBe(302);
    const location = String(r.headers.location);
    expect(location).toMatch(URI_REFERENCE);
    expect(location).toBe(`${srv.replayUrl}/replay/web/20100101000000mp_/http://site.example/say%22hi%22%3Cthere%3E`);
    const targets = linkTargets(String(r.headers.link));
    expect(targets).toHaveLength(4);
    for (const t of targets) expect(t).toMatch(URI_REFERENCE);
    expect(targets[0]).toBe('http://site.example/say%22hi%22%3Cthere%3E');
    // The encoded Location leads to the capture.
    const page = await fetch(location);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('quoted page');
  });

  it('an archived redirect: its Location and Link pointed into the archive, encoded', async () => {
    const r = await rawGet(srv.replayUrl!, '/replay/web/20100101000001mp_/http://site.example/go');
    expect(r.status).toBe(302);
    expect(String(r.headers.location)).toMatch(URI_REFERENCE);
    expect(String(r.headers.location)).toContain('say%22hi%22%3Cthere%3E%20x');
    const targets = linkTargets(String(r.headers.link));
    for (const t of targets) expect(t).toMatch(URI_REFERENCE);
    expect(targets[0]).toBe('/replay/web/20100101000001oe_/http://site.example/say%22hi%22%3Cthere%20x');
  });

  it('the link-format TimeMap parses end to end', async () => {
    const tm = await rawGet(srv.replayUrl!, `/replay/web/timemap/link/${odd}`);
    expect(tm.status).toBe(200);
    const targets = linkTargets(tm.body.trim().replace(/,\n/g, ', '));
    for (const t of targets) expect(t).toMatch(URI_REFERENCE);
    expect(targets.length).toBe(4);
  });
});

/** A gzipped WARC response record written byte for byte: its HTTP head holds raw, unencoded bytes. */
function rawResponse(url: string, date: string, head: Buffer, body: string, id: number): Buffer {
  const http = Buffer.concat([head, Buffer.from(body)]);
  const warcHead =
    `WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: ${url}\r\nWARC-Date: ${date}\r\n` +
    `WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-${String(id).padStart(12, '0')}>\r\n` +
    `Content-Type: application/http; msgtype=response\r\nContent-Length: ${http.length}\r\n\r\n`;
  return gzipSync(Buffer.concat([Buffer.from(warcHead), http, Buffer.from('\r\n\r\n')]));
}

describe('a Location header of raw non-ASCII bytes (issue: header URLs decoded as bytes once)', () => {
  const dir = tempDir();
  let srv: RunningServer;

  beforeAll(async () => {
    const redirect = (loc: Buffer) => Buffer.concat([Buffer.from('HTTP/1.1 302 Found\r\nLocation: '), loc, Buffer.from('\r\nContent-Length: 0\r\n\r\n')]);
    const page = (text: string) =>
      Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n`);
    const uber = '<html><title>über</title><body>the page über</body></html>';
    writeFileSync(
      join(dir, 'iri.warc.gz'),
      Buffer.concat([
        // UTF-8, as servers send an IRI: ü is C3 BC.
        rawResponse('http://site.example/go', '2010-01-01T00:00:01Z', redirect(Buffer.from('http://site.example/\u00fcber?q=\u00e9', 'utf8')), '', 1),
        rawResponse('http://site.example/%C3%BCber?q=%C3%A9', '2010-01-01T00:00:02Z', page(uber), uber, 2),
        // Not UTF-8 (a latin1 byte FC): kept as the byte it is.
        rawResponse(
          'http://site.example/old',
          '2010-01-01T00:00:03Z',
          redirect(Buffer.from([...Buffer.from('http://site.example/'), 0xfc, ...Buffer.from('ber')])),
          '',
          3,
        ),
      ]),
    );
    srv = await serveArchive(dir, join(dir, 'iri.warc.gz'));
  }, 120_000);
  afterAll(() => srv?.close());

  it('the CDX redirect field holds the IRI percent-encoded as UTF-8, or the byte as it is', async () => {
    const r = await nwaxAsync(['cdx', '--no-header', join(dir, 'iri.warc.gz')]);
    expect(r.code, r.stderr).toBe(0);
    const redirects = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[6]);
    expect(redirects).toEqual(['http://site.example/%C3%BCber?q=%C3%A9', '-', 'http://site.example/%FCber']);
  });

  it("replay's Location goes to the page the archived redirect named", async () => {
    const r = await rawGet(srv.replayUrl!, '/replay/web/20100101000001mp_/http://site.example/go');
    expect(r.status).toBe(302);
    const location = String(r.headers.location);
    expect(location).toMatch(URI_REFERENCE);
    expect(location).toContain('/http://site.example/%C3%BCber?q=%C3%A9');
    const page = await fetch(new URL(location, srv.replayUrl).href);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('the page über');
    const old = await rawGet(srv.replayUrl!, '/replay/web/20100101000003mp_/http://site.example/old');
    expect(String(old.headers.location)).toContain('/http://site.example/%FCber');
  });
});
