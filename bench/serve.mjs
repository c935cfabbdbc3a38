// The search service under load: first against an earlier nwax on the bench corpus, same run
// (serve-baseline.mjs); then autocannon on 127.0.0.1 against /api/search over the
// 1-million-document index of bench/index-scale.mjs (built first if missing), 50 connections,
// 30 s, the 500 queries of the index benchmark in turn; the same queries through the searcher
// in-process (the limit without HTTP) in the same run; then a run at 80% of the in-process
// rate for its p99, requests due at even intervals (an open loop). The server is its own
// process: its peak RSS is sampled every second.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { CORPUS_DIR, ROOT, indexIsCurrent, startServe, table } from './lib.mjs';
import { makeQueries } from './index.mjs';
import { benchIndexScale } from './index-scale.mjs';
import { baselineComparison } from './serve-baseline.mjs';

const require = createRequire(import.meta.url);

function rssMB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

export function cannon(url, paths, opts) {
  let i = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: 50,
        duration: 30,
        ...opts,
        requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] }) }],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

/**
 * An open-loop load at `rate` requests/s for `seconds`: requests start at even intervals
 * whether or not the earlier ones have been answered, and each latency runs from the moment its
 * request was due (so a stall counts against every request it delays: no coordinated
 * omission). autocannon's overallRate instead lets each connection send its share at the top
 * of every second, a burst of the whole second's requests at once.
 */
async function paced(url, paths, rate, seconds) {
  const pool = new Pool(url, { connections: 64, pipelining: 1 });
  const latencies = [];
  let errors = 0;
  const n = Math.floor(rate * seconds);
  const t0 = performance.now();
  const inflight = [];
  for (let i = 0; i < n; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      pool.request({ method: 'GET', path: paths[i % paths.length] }).then(
        async (res) => {
          await res.body.dump();
          if (res.statusCode !== 200) errors++;
          latencies.push(performance.now() - due);
        },
        () => errors++,
      ),
    );
  }
  await Promise.all(inflight);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
  return {
    requests: { average: latencies.length / ((performance.now() - t0) / 1000) },
    latency: { p50: at(0.5), p99: at(0.99) },
    errors,
    timeouts: 0,
    non2xx: 0,
  };
}

export async function benchServe({ runs }) {
  // First against the earlier version on the bench corpus (serve-baseline.mjs); then, unless
  // NWAX_BENCH_SERVE_SCALE=0, the 1-million-document index.
  const against = await baselineComparison({ runs: Math.min(runs, 3) });
  if (process.env.NWAX_BENCH_SERVE_SCALE === '0') return against;
  return `${against}\n\n${await benchServeScale()}`;
}

async function benchServeScale() {
  const crawl = join(CORPUS_DIR, 'scale-crawl-55');
  if (!(await indexIsCurrent(join(crawl, 'indexes', 'part-00001')))) await benchIndexScale();
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const queries = makeQueries(new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true }));
  const text = (q) => `${q.words.join(' ')}${q.site ? ` site:${q.site}` : ''}${q.year ? ` date:${q.year}` : ''}`;
  const paths = queries.map((q) => `/api/search?${new URLSearchParams({ query: text(q), hitsPerPage: '10', hitsPerSite: '0' })}`);

  // In process: the searcher alone, the same queries, one pass to warm, then timed passes.
  const { Searcher } = await import(join(ROOT, 'dist', 'search', 'searcher.js'));
  const searcher = new Searcher(crawl);
  for (const q of queries) searcher.view().search(text(q), { hits: 10, cache: false });
  const times = [];
  const t0 = Date.now();
  while (Date.now() - t0 < 20_000) {
    for (const q of queries) {
      const s = process.hrtime.bigint();
      searcher.view().search(text(q), { hits: 10, cache: false });
      times.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
  }
  const inRate = times.length / ((Date.now() - t0) / 1000);
  times.sort((a, b) => a - b);
  const inP50 = times[Math.floor(times.length * 0.5)];
  const inP99 = times[Math.floor(times.length * 0.99)];
  searcher.close();

  // The access log off: this measures the search path (bench/serve-ops.mjs measures the log).
  // The answer cache off: the in-process pass does every query's work, so must the service.
  const { url, server } = await startServe(['-dir', crawl, '--port', '0', '-D', 'nwax.serve.access.log=', '-D', 'nwax.search.cache=false']);
  const rss = [];
  const sampler = setInterval(() => rss.push(rssMB(server.pid)), 1000);
  try {
    await cannon(url, paths, { duration: 5 }); // warm the server's caches as the in-process pass did
    rss.length = 0;
    const full = await cannon(url, paths, {});
    const rate = Math.max(1, Math.floor(inRate * 0.8));
    const even = await paced(url, paths, rate, 30);
    // The same rate through autocannon (its connections send their share in bursts), for comparison.
    const bursts = await cannon(url, paths, { overallRate: rate });
    // The hostile case: 1,000 repeated common words (`a a a ...`: 1,999 characters, under the
    // 2,048 the service takes; the bench corpus's pages are English).
    const t = performance.now();
    const long = await fetch(`${url}/api/search?${new URLSearchParams({ query: Array(1000).fill('a').join(' ') })}`);
    await long.arrayBuffer();
    const longMs = performance.now() - t;
    const row = (name, r) => [name, r.requests.average.toFixed(1), r.latency.p50.toFixed(1), r.latency.p99.toFixed(1), r.errors + r.timeouts + r.non2xx];
    return [
      `nwax serve under load: /api/search over ${crawl} (the 1-million-document index), 500 queries in turn, 30 s per run`,
      table([
        ['run', 'requests/s', 'p50 ms', 'p99 ms', 'errors'],
        ['in-process searcher (the limit without HTTP)', inRate.toFixed(1), inP50.toFixed(1), inP99.toFixed(1), 0],
        row('autocannon, 50 connections', full),
        row(`autocannon, 50 connections, overallRate ${rate}/s (bursts)`, bursts),
        row(`open loop, requests due every ${(1000 / rate).toFixed(1)} ms (${rate}/s, 80%)`, even),
      ]),
      `  throughput ${(full.requests.average / inRate).toFixed(2)}x the in-process rate (target 0.8); paced p99 ${(even.latency.p99 / inP99).toFixed(2)}x the in-process p99 (target at most 2)`,
      `  a query of 1,000 repeated common words (2 KB): HTTP ${long.status} in ${longMs.toFixed(0)} ms (target: within 1 s)`,
      `  server RSS during the runs: first ${rss[0]?.toFixed(0)} MB, peak ${Math.max(...rss).toFixed(0)} MB, last ${rss[rss.length - 1]?.toFixed(0)} MB`,
    ].join('\n');
  } finally {
    clearInterval(sampler);
    server.kill();
  }
}
