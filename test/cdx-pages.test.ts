/**
 * /cdx pages as pywb's CDX server gives them (pywb/warcserver/index/zipnum.py): `pageSize` counts
 * ZipNum blocks (10 by default), `showNumPages=true` is always JSON `{pages, pageSize, blocks}`,
 * a page past the last is a 400 naming the first and last pages, `limit` cuts a page, and the
 * pages of a range hold every line of it once. pywb's own assertions on its sample cluster
 * (pywb/warcserver/index/test/test_zipnum.py) are checked here on the same cluster; a cluster of
 * over a million lines is paged to its end; flat files are paged over byte blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { HAVE_FIXTURES, fixture, nwax, tempDir } from './helpers.js';
import { startServer, type RunningServer } from '../src/serve/server.js';

async function serveCdx(sources: string[], extra: { pageSize?: number; flatBlockBytes?: number } = {}): Promise<RunningServer> {
  return startServer({
    dir: join(tempDir(), 'no-indexes'),
    host: '127.0.0.1',
    port: 0,
    wayback: '',
    hitsPerSite: 2,
    suggestTitles: 10,
    cdx: { sources, maxResults: 100_000, timeoutMs: 30_000, pageSize: 10, ...extra },
  });
}

async function get(srv: RunningServer, query: string): Promise<{ status: number; text: string; lines: string[] }> {
  const res = await fetch(`${srv.url}/cdx?${query}`);
  const text = await res.text();
  return { status: res.status, text, lines: text.split('\n').filter(Boolean) };
}

describe.skipIf(!HAVE_FIXTURES)("pywb's assertions on its sample cluster", () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await serveCdx([fixture('pywb/zipcdx/zipnum-sample.idx')]);
  });
  afterAll(() => srv?.close());

  it('counts pages and blocks as pywb does, in JSON whatever the output', async () => {
    const cases: [string, object][] = [
      ['url=iana.org/&matchType=domain', { pages: 4, pageSize: 10, blocks: 38 }],
      ['url=http://iana.org/domains/example&matchType=exact', { pages: 1, pageSize: 10, blocks: 1 }],
      ['url=http://iana.org/domains/&matchType=domain', { pages: 4, pageSize: 10, blocks: 38 }],
      ['url=http://iana.org/domains/&matchType=domain&pageSize=4', { pages: 10, pageSize: 4, blocks: 38 }],
      ['url=*.iana.org&pageSize=4', { pages: 10, pageSize: 4, blocks: 38 }],
      // A secondary index match with no line, no match at all, and a key past the last block.
      ['url=iana.org/domains/int/blah&pageSize=4', { pages: 0, pageSize: 4, blocks: 0 }],
      ['url=*.foo.bar', { pages: 0, pageSize: 10, blocks: 0 }],
      ['url=http://aaa.zz/&matchType=domain', { pages: 0, pageSize: 10, blocks: 0 }],
    ];
    for (const [q, want] of cases) {
      const r = await fetch(`${srv.url}/cdx?${q}&showNumPages=true`);
      expect(r.status, q).toBe(200);
      expect(r.headers.get('content-type'), q).toMatch(/^application\/json/);
      expect(await r.json(), q).toEqual(want);
    }
    expect(JSON.parse((await get(srv, 'url=*.iana.org&pageSize=4&showNumPages=true&output=text')).text)).toEqual({ pages: 10, pageSize: 4, blocks: 38 });
  });

  it("gives pywb's last page, forward and reversed, and its error past the last", async () => {
    const last = [
      'org,iana)/domains/root/servers 20140126201227 http://www.iana.org/domains/root/servers text/html 200 AFW34N3S4NK2RJ6QWMVPB5E2AIUETAHU - - 3137 733840 iana.warc.gz',
      'org,iana)/numbers 20140126200651 http://www.iana.org/numbers text/html 200 HWT5UZKURYLW5QNWVZCWFCANGEMU7XWK - - 3498 321385 iana.warc.gz',
      'org,iana)/performance/ietf-draft-status 20140126200815 http://www.iana.org/performance/ietf-draft-status text/html 200 T5IQTX6DWV5KABGH454CYEDWKRI5Y23E - - 2940 597667 iana.warc.gz',
      'org,iana)/performance/ietf-statistics 20140126200804 http://www.iana.org/performance/ietf-statistics text/html 200 XOFML5WNBQMTSULLIIPLSP6U5MX33HN6 - - 3712 582987 iana.warc.gz',
      'org,iana)/protocols 20140126200715 http://www.iana.org/protocols text/html 200 IRUJZEUAXOUUG224ZMI4VWTUPJX6XJTT - - 63663 496277 iana.warc.gz',
      'org,iana)/time-zones 20140126200737 http://www.iana.org/time-zones text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz',
      'org,iana)/time-zones/x 20140126200737 http://www.iana.org/time-zones/X text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz',
      'org,iana)/time-zones/y 20140126200737 http://www.iana.org/time-zones/Y text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz',
    ];
    const q = 'url=http://iana.org/domains/&matchType=domain&pageSize=4';
    expect((await get(srv, `${q}&page=9`)).lines).toEqual(last);
    expect((await get(srv, `${q}&page=9&reverse=true`)).lines).toEqual([...last].reverse());
    const past = await get(srv, `${q}&page=10`);
    expect(past.status).toBe(400);
    expect(past.text).toBe('Page 10 invalid: First Page is 0, Last Page is 9\n');
    expect((await get(srv, `${q}&page=-1`)).text).toBe('Page -1 invalid: First Page is 0, Last Page is 9\n');
    // A range with no page answers no line (pywb: an empty answer, not an error).
    expect(await get(srv, 'url=*.foo.bar&page=0')).toEqual({ status: 200, text: '', lines: [] });
  });

  it('pages hold the range once, and limit cuts a page', async () => {
    const q = 'url=*.iana.org&pageSize=3';
    const whole = (await get(srv, 'url=*.iana.org&limit=100000')).lines;
    const { pages } = JSON.parse((await get(srv, `${q}&showNumPages=true`)).text) as { pages: number };
    const paged: string[] = [];
    for (let p = 0; p < pages; p++) paged.push(...(await get(srv, `${q}&page=${p}`)).lines);
    expect(paged).toEqual(whole);
    const page2 = (await get(srv, `${q}&page=2`)).lines;
    expect(page2.length).toBeGreaterThan(5);
    expect((await get(srv, `${q}&page=2&limit=5`)).lines).toEqual(page2.slice(0, 5));
  });
});

describe('a ZipNum cluster of more than a million lines', () => {
  const dir = tempDir();
  const LINES = 1_050_000;
  let want: string[];
  let srv: RunningServer;
  beforeAll(async () => {
    // Every 997th URL captured three times in the same second: equal keys and timestamps that
    // fall across block boundaries, where a page must neither lose nor repeat a line.
    want = [];
    for (let i = 0; want.length < LINES; i++) {
      const n = String(i).padStart(7, '0');
      const copies = i % 997 === 0 ? 3 : 1;
      for (let c = 0; c < copies; c++) {
        want.push(`com,example)/${n} 20200101000000 http://example.com/${n} text/html 200 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA - - 100 ${i * 100} x${c}.warc.gz`);
      }
    }
    writeFileSync(join(dir, 'all.cdx'), `${want.join('\n')}\n`);
    const b = await nwax(['zipnum', 'build', join(dir, 'all.cdx'), join(dir, 'cluster')]);
    expect(b.code, b.stderr).toBe(0);
    srv = await serveCdx([join(dir, 'cluster')]);
  }, 120_000);
  afterAll(() => srv?.close());

  it('is paged to its end: every line once, in order, pages of pageSize blocks of 3000 lines', async () => {
    const count = JSON.parse((await get(srv, 'url=example.com&matchType=domain&showNumPages=true')).text);
    const blocks = Math.ceil(want.length / 3000);
    expect(count).toEqual({ pages: Math.floor((blocks - 1) / 10) + 1, pageSize: 10, blocks });
    const got: string[] = [];
    for (let p = 0; p < count.pages; p++) {
      const page = await get(srv, `url=example.com&matchType=domain&page=${p}`);
      expect(page.status).toBe(200);
      // Page p is blocks [10p, 10p + 10): the lines 30,000p and on, read from the summary.
      expect(page.lines[0]).toBe(want[p * 30_000]);
      got.push(...page.lines);
    }
    expect(got.length).toBe(want.length);
    expect(got).toEqual(want);
    expect((await get(srv, `url=example.com&matchType=domain&page=${count.pages}`)).status).toBe(400);
  }, 120_000);
});

describe('flat CDX files', () => {
  const dir = tempDir();
  const lines: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const n = String(i).padStart(5, '0');
    lines.push(`org,example)/${n} 2021010100000${i % 10} http://example.org/${n} text/html 200 BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB - - 100 ${i} y.warc.gz`);
  }
  const text = ` CDX N b a m s k r M S V g\n${lines.join('\n')}\n`;
  const BLOCK = 16 * 1024;
  let srv: RunningServer;
  beforeAll(async () => {
    writeFileSync(join(dir, 'flat.cdx'), text);
    writeFileSync(join(dir, 'flat.cdx.gz'), gzipSync(text));
    srv = await serveCdx([join(dir, 'flat.cdx')], { pageSize: 2, flatBlockBytes: BLOCK });
  });
  afterAll(() => srv?.close());

  it('are paged over byte blocks: each page holds the lines that start in its blocks', async () => {
    // Where each line starts, worked out here from the bytes written (not by nwax).
    const starts: number[] = [];
    let at = Buffer.byteLength(text.slice(0, text.indexOf('\n') + 1));
    for (const l of lines) {
      starts.push(at);
      at += Buffer.byteLength(l) + 1;
    }
    const firstBlock = Math.floor(starts[0] / BLOCK);
    const lastBlock = Math.floor(starts[starts.length - 1] / BLOCK);
    const count = JSON.parse((await get(srv, 'url=example.org&matchType=domain&showNumPages=true')).text);
    expect(count).toEqual({ pages: Math.floor((lastBlock - firstBlock) / 2) + 1, pageSize: 2, blocks: lastBlock - firstBlock + 1 });
    const got: string[] = [];
    for (let p = 0; p < count.pages; p++) {
      const page = (await get(srv, `url=example.org&matchType=domain&page=${p}`)).lines;
      const from = (firstBlock + 2 * p) * BLOCK;
      expect(page).toEqual(lines.filter((_, i) => starts[i] >= from && starts[i] < from + 2 * BLOCK));
      got.push(...page);
    }
    expect(got).toEqual(lines);
    // A range inside the file: its pages hold it once.
    const some = 'url=example.org/01*&pageSize=1';
    const { pages } = JSON.parse((await get(srv, `${some}&showNumPages=true`)).text) as { pages: number };
    const inRange: string[] = [];
    for (let p = 0; p < pages; p++) inRange.push(...(await get(srv, `${some}&page=${p}`)).lines);
    expect(inRange).toEqual(lines.filter((l) => l.startsWith('org,example)/01')));
  });

  it('bad input: a file cut inside its last line, a cluster part cut short, a block of 0 bytes', async () => {
    // The page holding the cut line ends unfinished: a client sees a cut answer, never a short one that looks whole.
    writeFileSync(join(dir, 'cut.cdx'), text.slice(0, text.length - 40));
    const cut = await serveCdx([join(dir, 'cut.cdx')], { pageSize: 2, flatBlockBytes: BLOCK });
    try {
      const { pages } = JSON.parse((await get(cut, 'url=example.org&matchType=domain&showNumPages=true')).text) as { pages: number };
      await expect(get(cut, `url=example.org&matchType=domain&page=${pages - 1}`)).rejects.toThrow();
      expect((await get(cut, 'url=example.org&matchType=domain&page=0')).lines).toEqual(
        lines.slice(0, (await get(srv, 'url=example.org&matchType=domain&page=0')).lines.length),
      );
    } finally {
      await cut.close();
    }
    // A cluster whose part file ends before its summary says: a 502 naming the part and the byte.
    const cluster = join(dir, 'cluster');
    expect((await nwax(['zipnum', 'build', '-D', 'nwax.zipnum.lines=300', join(dir, 'flat.cdx'), cluster])).code).toBe(0);
    const part = join(cluster, 'part-00000.cdx.gz');
    writeFileSync(part, readFileSync(part).subarray(0, 5000));
    const short = await serveCdx([cluster]);
    try {
      const r = await get(short, 'url=example.org&matchType=domain&page=1');
      expect(r.status).toBe(502);
      expect(r.text).toMatch(/part-00000\.cdx\.gz: ends before byte \d+ \(the summary points past the part file\)/);
    } finally {
      await short.close();
    }
    const zero = await nwax(['serve', '--port', '0', '--cdx', join(dir, 'flat.cdx'), '-dir', join(dir, 'none'), '-D', 'nwax.cdx.flat.block.size=0']);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toMatch(/nwax\.cdx\.flat\.block\.size must be at least 1 bytes, got "0"/);
    expect(zero.stderr).not.toMatch(/\n\s+at /);
  });

  it('several sources page one after another; a gzipped file is refused with the reason', async () => {
    writeFileSync(join(dir, 'other.cdx'), readFileSync(join(dir, 'flat.cdx')));
    const two = await serveCdx([join(dir, 'flat.cdx'), join(dir, 'other.cdx')], { pageSize: 2, flatBlockBytes: BLOCK });
    try {
      const one = JSON.parse((await get(srv, 'url=example.org&matchType=domain&showNumPages=true')).text);
      const both = JSON.parse((await get(two, 'url=example.org&matchType=domain&showNumPages=true')).text);
      expect(both).toEqual({ pages: 2 * one.pages, pageSize: 2, blocks: 2 * one.blocks });
      const got: string[] = [];
      for (let p = 0; p < both.pages; p++) got.push(...(await get(two, `url=example.org&matchType=domain&page=${p}`)).lines);
      expect(got).toEqual([...lines, ...lines]);
    } finally {
      await two.close();
    }
    const gz = await serveCdx([join(dir, 'flat.cdx.gz')]);
    try {
      const r = await get(gz, 'url=example.org&matchType=domain&showNumPages=true');
      expect(r.status).toBe(400);
      expect(r.text).toMatch(/flat\.cdx\.gz: a gzipped CDX file cannot be paged .*nwax zipnum build/);
      // Unpaged, it answers as before.
      expect((await get(gz, 'url=example.org/00001')).lines).toEqual([lines[1]]);
    } finally {
      await gz.close();
    }
  });
});
