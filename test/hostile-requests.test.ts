/**
 * Requests an attacker would send (issue: hostile input and damaged archives), against a real
 * service on 127.0.0.1: a backtracking /cdx filter, a 2 KB query of one word repeated, a
 * query past the time budget, malformed percent-encoding, a forged Host header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { nwax, serveCli, tempDir } from './helpers.js';
import { pipeline, workedExample } from './example-pipeline.js';

type Served = { url: string; close(): Promise<void> };

const dir = tempDir();
const crawl = join(dir, 'crawl');
/** 200,000 CDX lines whose URLs end in 30 `a`s: a backtracking `(.*.*)*z` never finishes on one. */
const bigCdx = join(dir, 'redos.cdx');

beforeAll(async () => {
  const { manifest, dups } = await workedExample(dir);
  await pipeline(crawl, manifest, { exclusions: dups, dates: dups });
  const lines: string[] = [];
  const a = 'a'.repeat(30);
  for (let i = 0; i < 200_000; i++) {
    const n = String(i).padStart(6, '0');
    lines.push(`com,example)/${n}${a} 20200101000000 http://example.com/${n}${a} text/html 200 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA - - 100 ${i * 100} x.warc.gz`);
  }
  writeFileSync(bigCdx, `${lines.join('\n')}\n`);
}, 120_000);

/** GET with a Host header of the test's choosing (fetch does not let a caller set it). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function timed(url: string): Promise<{ status: number; ms: number; body: string }> {
  const t = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  return { status: res.status, ms: performance.now() - t, body };
}

describe('hostile requests', () => {
  let srv: Served;
  beforeAll(async () => {
    // The real command, with its search threads.
    srv = await serveCli(['-dir', crawl, '--port', '0', '--cdx', bigCdx, '-D', 'nwax.serve.threads=2', '-D', 'nwax.cdx.timeout=1500']);
  }, 60_000);
  afterAll(() => srv?.close());

  it('a backtracking /cdx filter is matched in linear time, and /healthz answers meanwhile (defect 1)', async () => {
    const slow = timed(`${srv.url}/cdx?url=example.com&matchType=domain&filter=${encodeURIComponent('original:(.*.*)*z')}`);
    const probes: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((ok) => setTimeout(ok, 100));
      const h = await timed(`${srv.url}/healthz`);
      expect(h.status).toBe(200);
      probes.push(h.ms);
    }
    const r = await slow;
    // Either every line was read and none matched, or the CDX time budget stopped it with a 400.
    expect([200, 400]).toContain(r.status);
    if (r.status === 200) expect(r.body).toBe('');
    else expect(r.body).toMatch(/was stopped/);
    expect(r.ms).toBeLessThan(10_000);
    expect(Math.max(...probes)).toBeLessThan(500);
  });

  it('a filter the linear-time matcher cannot take is a 400 naming it', async () => {
    const r = await timed(`${srv.url}/cdx?url=example.com&filter=${encodeURIComponent('original:(a)\\1')}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatch(/^filter original:\(a\)\\1: not a pattern the linear-time matcher takes/);
    const long = await timed(`${srv.url}/cdx?url=example.com&filter=${'a'.repeat(2000)}`);
    expect(long.status).toBe(400);
  });

  it('cdx-query --filter with a backtracking pattern ends at once (defect 1)', async () => {
    const small = join(dir, 'small.cdx');
    writeFileSync(small, `com,example)/${'a'.repeat(30)} 20200101000000 http://example.com/${'a'.repeat(30)} text/html 200 AAAA - - 100 0 x.warc.gz\n`);
    const t = performance.now();
    const r = await nwax(['cdx-query', small, 'example.com', '--match-type', 'domain', '--filter', 'original:(.*.*)*z']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(performance.now() - t).toBeLessThan(10_000);
  });

  it('a 2 KB query of one word repeated is one word, answered at once (defect 2)', async () => {
    const q = encodeURIComponent('example '.repeat(250).trim());
    const r = await timed(`${srv.url}/api/search?query=${q}&hitsPerSite=0`);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).total).toBe(5);
    expect(r.ms).toBeLessThan(1000);
    const many = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const refused = await timed(`${srv.url}/api/search?query=${encodeURIComponent(many)}`);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error).toMatch(/40 different words; at most 32/);
  });

  it('malformed percent-encoding in /stored is a 400, not a 502 (defect 9)', async () => {
    const r = await timed(`${srv.url}/stored/%E0%A4%A/1`);
    expect(r.status).toBe(400);
    expect(r.body).toMatch(/percent-encoding/);
  });

  it('absolute links name the service, never the Host header (defect 9)', async () => {
    for (const path of ['/opensearch.xml', '/opensearch?query=example&hitsPerSite=0']) {
      const r = await getWithHost(`${srv.url}${path}`, 'evil.example');
      expect(r.status).toBe(200);
      expect(r.body).not.toContain('evil.example');
      expect(r.body).toContain(srv.url);
    }
  });
});

describe('the query time budget', () => {
  let srv: Served;
  beforeAll(async () => {
    // A budget of 1 ms: a query on a worker that is still opening the index runs past it.
    srv = await serveCli([
      '-dir',
      crawl,
      '--port',
      '0',
      '-D',
      'nwax.serve.threads=1',
      '-D',
      'nwax.serve.query.timeout=1',
      '-D',
      'nwax.serve.base.url=https://search.example.org/',
    ]);
  }, 60_000);
  afterAll(() => srv?.close());

  it('stops a query past the budget with a 503, replaces its worker, and goes on serving (defect 2)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await timed(`${srv.url}/api/search?query=example`);
      expect([200, 503]).toContain(r.status);
      if (r.status === 503) expect(JSON.parse(r.body).error).toMatch(/ran past 1 ms and was stopped/);
      expect(r.ms).toBeLessThan(5000);
      statuses.push(r.status);
    }
    // After a stop the worker is new and opens the index again: past 1 ms, every time.
    expect(statuses.slice(1).every((s) => s === 503)).toBe(true);
    const h = await timed(`${srv.url}/healthz`);
    expect(h.status).toBe(200);
  });

  it('uses nwax.serve.base.url for absolute links', async () => {
    const r = await getWithHost(`${srv.url}/opensearch.xml`, 'evil.example');
    expect(r.body).toContain('https://search.example.org/opensearch?');
    expect(r.body).not.toContain('evil.example');
  });
});
