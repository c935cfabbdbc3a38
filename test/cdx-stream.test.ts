/**
 * /cdx streams its answers (issue: nothing lies, nothing slows): a large answer comes chunked
 * as it is read, equal to cdx-query's; pages (pywb's page, pageSize, showNumPages) cover the
 * whole answer once; answers past nwax.cdx.max.concurrent get a 503 while a client holds one
 * open without reading; a client that leaves frees its place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nwax, tempDir } from './helpers.js';
import { startServer, type RunningServer } from '../src/serve/server.js';

const dir = tempDir();
const LINES = 60_000;

/** GET whose body is not read: the socket fills and the server must wait. */
function holdOpen(url: string): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      res.pause();
      resolve({ status: res.statusCode!, close: () => req.destroy() });
    });
    req.on('error', () => {});
    req.once('error', reject);
    req.end();
  });
}

describe('/cdx streamed', () => {
  let srv: RunningServer;
  let cluster = '';
  beforeAll(async () => {
    const lines: string[] = [];
    for (let i = 0; i < LINES; i++) {
      const n = String(i).padStart(6, '0');
      lines.push(
        `com,example)/${n} 2020010100${String(i % 60).padStart(2, '0')}00 http://example.com/${n} text/html ${i % 7 ? 200 : 404} AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA - - 100 ${i * 100} x.warc.gz`,
      );
    }
    writeFileSync(join(dir, 'all.cdx'), `${lines.join('\n')}\n`);
    cluster = join(dir, 'cluster');
    const b = await nwax(['zipnum', 'build', join(dir, 'all.cdx'), cluster]);
    expect(b.code, b.stderr).toBe(0);
    srv = await startServer({
      dir: join(dir, 'no-indexes'),
      host: '127.0.0.1',
      port: 0,
      wayback: '',
      hitsPerSite: 2,
      suggestTitles: 10,
      cdx: { sources: [cluster], maxResults: 50_000, timeoutMs: 10_000, maxConcurrent: 2 },
    });
  }, 60_000);
  afterAll(() => srv?.close());

  it('a large answer comes chunked, as cdx-query gives it, capped at nwax.cdx.max.results', async () => {
    const res = await fetch(`${srv.url}/cdx?url=example.com&matchType=domain&output=json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-length')).toBeNull();
    const got = (await res.text()).split('\n').filter(Boolean);
    expect(got).toHaveLength(50_000);
    const cli = await nwax(['cdx-query', cluster, 'example.com', '--match-type', 'domain', '--output', 'json', '--limit', '50000']);
    expect(got).toEqual(cli.stdout.split('\n').filter(Boolean));
  });

  it("pages (pywb's, of ZipNum blocks) cover the whole answer once: showNumPages, then page=0..n-1", async () => {
    const q = 'url=example.com&matchType=domain&filter=status:200';
    const count = (await (await fetch(`${srv.url}/cdx?${q}&showNumPages=true&pageSize=3`)).json()) as { pages: number; blocks: number };
    const all = (await nwax(['cdx-query', cluster, 'example.com', '--match-type', 'domain', '--filter', 'status:200', '--limit', String(LINES)])).stdout
      .split('\n')
      .filter(Boolean);
    expect(all.length).toBeGreaterThan(50_000);
    // 60,000 lines in blocks of 3000: 20 blocks, pages of 3.
    expect(count).toEqual({ pages: 7, pageSize: 3, blocks: 20 });
    const pages: string[] = [];
    for (let p = 0; p < count.pages; p++) pages.push(...(await (await fetch(`${srv.url}/cdx?${q}&page=${p}&pageSize=3`)).text()).split('\n').filter(Boolean));
    expect(pages).toEqual(all);
    expect((await fetch(`${srv.url}/cdx?${q}&page=7&pageSize=3`)).status).toBe(400);
    expect((await fetch(`${srv.url}/cdx?${q}&pageSize=x`)).status).toBe(400);
  });

  it('answers past nwax.cdx.max.concurrent are a 503 with Retry-After while two clients hold theirs; a client that leaves frees its place', async () => {
    const big = `${srv.url}/cdx?url=example.com&matchType=domain&output=json`;
    const a = await holdOpen(big);
    const b = await holdOpen(big);
    expect([a.status, b.status]).toEqual([200, 200]);
    const third = await fetch(big);
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(await third.text()).toMatch(/nwax\.cdx\.max\.concurrent/);
    // /healthz and the rest answer meanwhile.
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    a.close();
    b.close();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const r = await fetch(`${srv.url}/cdx?url=example.com/000001`);
      status = r.status;
      await r.text();
    }
    expect(status).toBe(200);
  });
});
