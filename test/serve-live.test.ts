/**
 * A service that stays up while the archive grows (issue: live index updates, shutdown on time,
 * logs and metrics): the real `nwax serve` on 127.0.0.1, updated under it by the real commands.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
// @ts-expect-error: no types shipped
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { BIN, nwax, nwaxAsync, tempDir } from './helpers.js';
import { pipeline, workedExample } from './example-pipeline.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';

interface Served {
  url: string;
  child: ChildProcess;
  stderr(): string;
  exited: Promise<{ code: number | null; at: number }>;
}

function serve(args: string[]): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const exited = new Promise<{ code: number | null; at: number }>((r) => child.once('exit', (code) => r({ code, at: performance.now() })));
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(err);
      if (m) resolve({ url: m[1], child, stderr: () => err, exited });
    });
    void exited.then(({ code }) => reject(new Error(`nwax serve exited ${code}: ${err}`)));
  });
}

async function stop(s: Served | undefined): Promise<void> {
  if (!s || s.child.exitCode !== null) return;
  s.child.kill('SIGKILL');
  await s.exited;
}

const until = async (what: () => Promise<boolean>, ms: number): Promise<boolean> => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (await what()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
};

const dir = tempDir();
const crawl = join(dir, 'crawl');
let dups = '';
const part = join(crawl, 'indexes', 'part-00000');
/** The index of another crawl (three pages on other.example): the new set the tests add. */
const other = join(dir, 'other', 'indexes', 'part-00000');

beforeAll(async () => {
  const ex = await workedExample(dir);
  dups = ex.dups;
  await pipeline(crawl, ex.manifest, { exclusions: ex.dups });
  const warc = join(dir, 'other.warc.gz');
  await writeWarc(
    warc,
    [0, 1, 2].map((i) => ({
      url: `http://other.example/p${i}.html`,
      date: `2021010${i + 1}000000`,
      id: `00000000-0000-4000-8000-00000000010${i}`,
      body: `<html><head><title>Other page ${i}</title></head><body><p>Another example page, number ${i}.</p></body></html>`,
    })),
  );
  writeFileSync(join(dir, 'other-manifest'), `${warc} other\n`);
  await pipeline(join(dir, 'other'), join(dir, 'other-manifest'));
}, 60_000);

/** Versions found by a word both crawls hold. */
async function exampleTotal(url: string): Promise<number> {
  const r = await fetch(`${url}/api/search?query=example&hitsPerSite=0&hitsPerPage=20`);
  expect(r.status).toBe(200);
  return ((await r.json()) as { total: number }).total;
}

async function versions(url: string): Promise<{ total: number; dates: number[]; generation?: number }> {
  const r = await fetch(`${url}/api/search?query=url:http://example.org/index.html&hitsPerSite=0&hitsPerPage=20`);
  expect(r.status).toBe(200);
  const body = (await r.json()) as { total: number; hits: { dates: string[] }[] };
  return { total: body.total, dates: body.hits.map((h) => h.dates.length).sort() };
}

/** A copy of an index put in place as a writer would: written aside, renamed in. */
function placeCopy(from: string, to: string): void {
  const aside = join(crawl, 'indexes', `.copy.tmp-${process.pid}`);
  cpSync(from, aside);
  renameSync(aside, to);
}

describe('live index updates', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve(['-dir', crawl, '--port', '0', '-D', 'nwax.serve.threads=2', '-D', 'nwax.serve.reload.interval=200']);
  }, 30_000);
  afterAll(() => stop(s));

  it('add-dates under a running service: the new dates are served without a restart', async () => {
    expect((await versions(s.url)).dates).toEqual([1, 1, 1, 1, 1]);
    const r = await nwaxAsync(['add-dates', part, part, join(crawl, 'pindexes', 'part-00000', 'dates'), dups]);
    expect(r.code, r.stderr).toBe(0);
    expect(await until(async () => (await versions(s.url)).dates.join() === '1,1,2,2,4', 5000)).toBe(true);
  });

  it('a new index set, then its removal, at once on POST /admin/reload (loopback only)', async () => {
    const before = await exampleTotal(s.url);
    placeCopy(other, join(crawl, 'indexes', 'part-00001'));
    const reload = await fetch(`${s.url}/admin/reload`, { method: 'POST' });
    expect(reload.status).toBe(200);
    expect(await exampleTotal(s.url)).toBe(before + 3);
    rmSync(join(crawl, 'indexes', 'part-00001'));
    expect((await fetch(`${s.url}/admin/reload`, { method: 'POST' })).status).toBe(200);
    expect(await exampleTotal(s.url)).toBe(before);
    expect((await fetch(`${s.url}/admin/reload`)).status).toBe(405);
  });

  it('SIGHUP reloads too, and the service agrees with a fresh nwax search after a merge replaces two indexes', async () => {
    placeCopy(part, join(crawl, 'indexes', 'part-00001'));
    const merged = join(dir, 'merged');
    const m = await nwax(['merge', merged, part, join(crawl, 'indexes', 'part-00001')]);
    expect(m.code, m.stderr).toBe(0);
    rmSync(join(crawl, 'indexes', 'part-00001'));
    placeCopy(merged, join(crawl, 'indexes', 'part-00000'));
    rmSync(join(crawl, 'pindexes'), { recursive: true, force: true });
    const before = s.stderr().length;
    s.child.kill('SIGHUP');
    expect(await until(async () => /SIGHUP: index generation \d+/.test(s.stderr().slice(before)), 5000)).toBe(true);
    const fresh = JSON.parse(
      (await nwax(['search', '--json', '--dir', crawl, '--hits', '20', '--hits-per-site', '0', 'url:http://example.org/index.html'])).stdout,
    ) as { total: number };
    expect((await versions(s.url)).total).toBe(fresh.total);
  });

  it('a reload during a steady stream of queries loses none, and no answer mixes old and new sets', async () => {
    const base = await exampleTotal(s.url);
    let stopFlag = false;
    const totals: number[] = [];
    const errors: string[] = [];
    const client = async () => {
      while (!stopFlag) {
        try {
          const r = await fetch(`${s.url}/api/search?query=example&hitsPerSite=0&hitsPerPage=20`);
          if (r.status !== 200) errors.push(`HTTP ${r.status}: ${await r.text()}`);
          else totals.push(((await r.json()) as { total: number }).total);
        } catch (err) {
          errors.push((err as Error).message);
        }
      }
    };
    const clients = [client(), client(), client()];
    for (let i = 0; i < 8; i++) {
      if (i % 2 === 0) placeCopy(other, join(crawl, 'indexes', 'part-00002'));
      else rmSync(join(crawl, 'indexes', 'part-00002'));
      await fetch(`${s.url}/admin/reload`, { method: 'POST' });
      await new Promise((r) => setTimeout(r, 150));
    }
    stopFlag = true;
    await Promise.all(clients);
    expect(errors).toEqual([]);
    expect(totals.length).toBeGreaterThan(20);
    // Each answer is the old set list's or the new one's, never a mix.
    expect(new Set(totals.filter((t) => t !== base && t !== base + 3))).toEqual(new Set());
    expect(new Set(totals).size).toBe(2);
  });

  it('a damaged new index keeps the old one serving, and the failure is logged and reported', async () => {
    rmSync(join(crawl, 'indexes', 'part-00002'), { force: true });
    await fetch(`${s.url}/admin/reload`, { method: 'POST' });
    const good = await versions(s.url);
    const aside = join(crawl, 'indexes', '.garbage.tmp');
    writeFileSync(aside, Buffer.alloc(8192, 0x41));
    renameSync(aside, part);
    const r = (await (await fetch(`${s.url}/admin/reload`, { method: 'POST' })).json()) as { errors: string[] };
    expect(r.errors.join(' ')).toMatch(/part-00000.*the open one serves on/);
    expect(await versions(s.url)).toEqual(good);
    expect(s.stderr()).toMatch(/reload: index set part-00000: .*the open one serves on/);
  });
});

describe('live CDX sources', () => {
  it('a CDX file added to a served directory is answered after a reload', async () => {
    const cdxDir = join(dir, 'cdxdir');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(cdxDir, { recursive: true });
    writeFileSync(join(cdxDir, 'a.cdx'), 'com,example)/a 20200101000000 http://example.com/a text/html 200 AAAA - - 1 0 a.warc.gz\n');
    const s = await serve(['--cdx', cdxDir, '-dir', join(dir, 'none'), '--port', '0', '-D', 'nwax.serve.reload.interval=0']);
    try {
      const ask = async () => (await (await fetch(`${s.url}/cdx?url=example.com/b`)).text()).trim();
      expect(await ask()).toBe('');
      writeFileSync(join(cdxDir, '.b.cdx.tmp'), 'com,example)/b 20200102000000 http://example.com/b text/html 200 BBBB - - 1 0 b.warc.gz\n');
      renameSync(join(cdxDir, '.b.cdx.tmp'), join(cdxDir, 'b.cdx'));
      expect(await ask()).toBe('');
      expect((await fetch(`${s.url}/admin/reload`, { method: 'POST' })).status).toBe(200);
      expect(await ask()).toMatch(/^com,example\)\/b 20200102000000 /);
    } finally {
      await stop(s);
    }
  });
});

/** A second crawl, left untouched by the updates above. */
const crawl2 = join(dir, 'crawl2');

describe('logs and metrics', () => {
  let s: Served;
  const log = join(dir, 'access.log');
  beforeAll(async () => {
    const d2 = crawl2;
    const ex = await workedExample(join(dir));
    await pipeline(d2, ex.manifest, { exclusions: ex.dups });
    s = await serve(['-dir', d2, '--port', '0', '-D', 'nwax.serve.threads=1', '-D', `nwax.serve.access.log=${log}`]);
  }, 60_000);
  afterAll(() => stop(s));

  it('/metrics counts the requests sent, in Prometheus text format; the access log has a JSON line for each', async () => {
    for (let i = 0; i < 7; i++) expect((await fetch(`${s.url}/api/search?query=example&n=${i}`)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/api/search?query=`)).status).toBe(400);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    const res = await fetch(`${s.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    const families = parsePrometheusTextFormat(text) as {
      name: string;
      type: string;
      metrics: { value?: string; buckets?: Record<string, string>; labels?: Record<string, string> }[];
    }[];
    const fam = (n: string) => families.find((f) => f.name === n)!;
    const req = (route: string, status: string) =>
      Number(fam('nwax_http_requests_total').metrics.find((m) => m.labels?.route === route && m.labels?.status === status)?.value);
    expect(req('/api/search', '200')).toBe(7);
    expect(req('/api/search', '400')).toBe(3);
    expect(req('/readyz', '200')).toBe(1);
    expect(fam('nwax_http_request_duration_seconds').type).toBe('HISTOGRAM');
    // The parser keeps a histogram's buckets but not its labels: its per-route count is read from the text.
    expect(fam('nwax_http_request_duration_seconds').metrics.every((m) => m.buckets && Number(m.buckets['+Inf']) >= Number(m.buckets['0.001']))).toBe(true);
    expect(text).toMatch(/^nwax_http_request_duration_seconds_count\{route="\/api\/search"\} 10$/m);
    expect(Number(fam('nwax_index_documents').metrics[0].value)).toBe(5);
    expect(Number(fam('nwax_index_generation').metrics[0].value)).toBe(1);
    expect(fam('nwax_search_queue_length')).toBeDefined();
    expect(fam('nwax_search_queries_stopped_total')).toBeDefined();
    expect(fam('nwax_process_resident_memory_bytes')).toBeDefined();
    // The access log is written asynchronously: wait for its lines.
    const { readFileSync, existsSync } = await import('node:fs');
    const lines = () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Record<string, unknown>)
        : [];
    expect(await until(async () => lines().filter((l) => l.path === '/api/search').length === 10, 5000)).toBe(true);
    const search = lines().filter((l) => l.path === '/api/search');
    expect(
      search
        .filter((l) => l.status === 200)
        .every((l) => l.generation === 1 && typeof l.ms === 'number' && (l.bytes as number) > 0 && l.method === 'GET' && typeof l.time === 'string'),
    ).toBe(true);
    // The query string is left out unless nwax.serve.log.queries is set.
    expect(readFileSync(log, 'utf8')).not.toContain('query=');
  });
});

describe('bad settings of the service', () => {
  it('an access log that cannot be written, a negative interval or a base URL that is none: one clear line, no stack', async () => {
    const cases: [string, number, RegExp][] = [
      [`nwax.serve.access.log=${join(dir, 'no-such-dir', 'a.log')}`, 1, /nwax\.serve\.access\.log: cannot write .*a\.log \(no such directory /],
      [`nwax.serve.access.log=${dir}`, 1, /cannot write .* \(is a directory\)/],
      ['nwax.serve.reload.interval=-5', 2, /nwax\.serve\.reload\.interval must be a whole number of milliseconds >= 0, got -5/],
      ['nwax.serve.shutdown.timeout=1.5', 2, /nwax\.serve\.shutdown\.timeout must be a whole number/],
      ['nwax.serve.base.url=not a url', 2, /nwax\.serve\.base\.url must be an http\(s\) URL/],
    ];
    for (const [define, code, message] of cases) {
      const r = await nwax(['serve', '-dir', crawl2, '--port', '0', '-D', define]);
      expect(r.code, define).toBe(code);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
    }
  });
});

describe('shutdown on time', () => {
  /** 1,000,000 CDX lines: a backtracking-free but long /cdx query keeps a request in flight for seconds. */
  const big = join(dir, 'slow.cdx');
  beforeAll(() => {
    const a = 'a'.repeat(30);
    const lines: string[] = [];
    for (let i = 0; i < 1_000_000; i++)
      lines.push(`com,example)/${String(i).padStart(7, '0')}${a} 20200101000000 http://example.com/${i}${a} text/html 200 A - - 1 ${i} x.warc.gz`);
    writeFileSync(big, `${lines.join('\n')}\n`);
  }, 60_000);

  const slowQuery = (url: string) =>
    fetch(`${url}/cdx?url=example.com&matchType=domain&filter=${encodeURIComponent('original:(.*.*)*z')}`).then(
      (r) => r.status,
      () => 'closed',
    );

  it('SIGTERM without a request in flight exits at once, and the port is free for a new service', async () => {
    const s = await serve(['-dir', crawl2, '--port', '0']);
    const port = Number(new URL(s.url).port);
    const t = performance.now();
    s.child.kill('SIGTERM');
    const { code, at } = await s.exited;
    expect(code).toBe(0);
    expect(at - t).toBeLessThan(1000);
    // (Its replay on a port picked too: a port given makes replay default to nwax.replay.port.)
    const again = await serve(['-dir', crawl2, '--port', String(port), '--replay-port', '0']);
    expect(again.url).toBe(s.url);
    await stop(again);
  });

  it('SIGTERM with a request in flight exits within the timeout plus 1 s, with status 0', async () => {
    const s = await serve(['--cdx', big, '-dir', join(dir, 'none'), '--port', '0', '-D', 'nwax.cdx.timeout=0', '-D', 'nwax.serve.shutdown.timeout=1500']);
    const pending = slowQuery(s.url);
    await new Promise((r) => setTimeout(r, 400));
    const t = performance.now();
    s.child.kill('SIGTERM');
    const { code, at } = await s.exited;
    expect(code).toBe(0);
    expect(at - t).toBeLessThan(1500 + 1000);
    expect(at - t).toBeGreaterThan(1000);
    await pending;
    // Nothing left listening on the port.
    const port = Number(new URL(s.url).port);
    await new Promise<void>((ok, fail) => {
      const probe = createServer()
        .once('error', fail)
        .listen(port, '127.0.0.1', () => probe.close(() => ok()));
    });
  }, 30_000);

  it('a second signal exits at once', async () => {
    const s = await serve(['--cdx', big, '-dir', join(dir, 'none'), '--port', '0', '-D', 'nwax.cdx.timeout=0', '-D', 'nwax.serve.shutdown.timeout=20000']);
    const pending = slowQuery(s.url);
    await new Promise((r) => setTimeout(r, 400));
    s.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    const t = performance.now();
    s.child.kill('SIGINT');
    const { code, at } = await s.exited;
    expect(code).toBe(1);
    expect(at - t).toBeLessThan(1000);
    await pending;
  }, 30_000);
});
