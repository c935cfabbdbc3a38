// The search service under load: autocannon on 127.0.0.1 against /api/search over the
// 1-million-document index of bench/index-scale.mjs (built first if missing), 50 connections,
// 30 s, the 500 queries of the index benchmark in turn; the same queries through the searcher
// in-process (the limit without HTTP) in the same run; then a run at 80% of the in-process
// rate for its p99. The server is its own process: its peak RSS is sampled every second.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { CORPUS_DIR, ROOT, indexIsCurrent, startServe, table } from './lib.mjs';
import { makeQueries } from './index.mjs';
import { benchIndexScale } from './index-scale.mjs';

const require = createRequire(import.meta.url);

function rssMB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

function cannon(url, paths, opts) {
  let i = 0;
  return new Promise((resolve, reject) => {
    autocannon({
      url, connections: 50, duration: 30, ...opts,
      requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] }) }],
    }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

export async function benchServe() {
  const crawl = join(CORPUS_DIR, 'scale-crawl-55');
  if (!(await indexIsCurrent(join(crawl, 'indexes', 'part-00001')))) await benchIndexScale();
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const queries = makeQueries(new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true }));
  const text = (q) => `${q.words.join(' ')}${q.site ? ` site:${q.site}` : ''}${q.year ? ` date:${q.year}` : ''}`;
  const paths = queries.map((q) => `/api/search?${new URLSearchParams({ query: text(q), hitsPerPage: '10', hitsPerSite: '0' })}`);

  // In process: the searcher alone, the same queries, one pass to warm, then timed passes.
  const { Searcher } = await import(join(ROOT, 'dist', 'search', 'searcher.js'));
  const searcher = new Searcher(crawl);
  for (const q of queries) searcher.search(text(q), { hits: 10, cache: false });
  const times = [];
  const t0 = Date.now();
  while (Date.now() - t0 < 20_000) {
    for (const q of queries) {
      const s = process.hrtime.bigint();
      searcher.search(text(q), { hits: 10, cache: false });
      times.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
  }
  const inRate = times.length / ((Date.now() - t0) / 1000);
  times.sort((a, b) => a - b);
  const inP50 = times[Math.floor(times.length * 0.5)];
  const inP99 = times[Math.floor(times.length * 0.99)];
  searcher.close();

  // The access log off: this measures the search path (bench/serve-ops.mjs measures the log).
  const { url, server } = await startServe(['-dir', crawl, '--port', '0', '-D', 'nwax.serve.access.log=']);
  const rss = [];
  const sampler = setInterval(() => rss.push(rssMB(server.pid)), 1000);
  try {
    await cannon(url, paths, { duration: 5 }); // warm the server's caches as the in-process pass did
    rss.length = 0;
    const full = await cannon(url, paths, {});
    // NWAX_BENCH_PACED_CONNECTIONS: fewer connections send the paced requests less in bursts.
    const pacedConnections = Number(process.env.NWAX_BENCH_PACED_CONNECTIONS ?? 50);
    const paced = await cannon(url, paths, { connections: pacedConnections, overallRate: Math.max(1, Math.floor(inRate * 0.8)) });
    const row = (name, r) => [name, r.requests.average.toFixed(1), r.latency.p50.toFixed(1), r.latency.p99.toFixed(1), r.errors + r.timeouts + r.non2xx];
    return [
      `nwax serve under load: /api/search over ${crawl} (the 1-million-document index), 500 queries in turn, 30 s per run`,
      table([
        ['run', 'requests/s', 'p50 ms', 'p99 ms', 'errors'],
        ['in-process searcher (the limit without HTTP)', inRate.toFixed(1), inP50.toFixed(1), inP99.toFixed(1), 0],
        row('autocannon, 50 connections', full),
        row(`autocannon, ${pacedConnections} connections, paced at ${Math.floor(inRate * 0.8)}/s (80%)`, paced),
      ]),
      `  throughput ${(full.requests.average / inRate).toFixed(2)}x the in-process rate (target 0.8); paced p99 ${(paced.latency.p99 / inP99).toFixed(2)}x the in-process p99 (target at most 1.5)`,
      `  server RSS during the runs: first ${rss[0]?.toFixed(0)} MB, peak ${Math.max(...rss).toFixed(0)} MB, last ${rss[rss.length - 1]?.toFixed(0)} MB`,
    ].join('\n');
  } finally {
    clearInterval(sampler);
    server.kill();
  }
}
