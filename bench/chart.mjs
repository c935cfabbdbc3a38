// The results page with its chart of hits over time (issue: a researcher's search page) against
// the page of an nwax before the chart (NWAX_BENCH_BASELINE, default f31f002), same run, same
// index: the bench corpus's (bench/index.mjs builds it). Both servers on 127.0.0.1, alternated
// query by query, one request at a time, the HTML page (/search, facets and chart computed) and
// the JSON with facets=1; each page's median latency over the index benchmark's queries,
// after one warming pass. Target: at most 1.2x the page before.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Pool } from 'undici';
import { CORPUS_DIR, ROOT, median, startServe, table } from './lib.mjs';
import { makeQueries } from './index.mjs';
import { baselineCheckout } from './serve-baseline.mjs';

const require = createRequire(import.meta.url);

export async function benchChart() {
  const crawl = join(CORPUS_DIR, 'index-crawl');
  if (!existsSync(join(crawl, 'indexes', 'part-00000'))) throw new Error(`no index at ${crawl}: run npm run bench -- index first`);
  const ref = process.env.NWAX_BENCH_BASELINE ?? 'f31f002';
  const before = baselineCheckout(ref);
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const db = new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true });
  const queries = makeQueries(db)
    .slice(0, 300)
    .map((qq) => `${qq.words.join(' ')}${qq.site ? ` site:${qq.site}` : ''}${qq.year ? ` date:${qq.year}` : ''}`);
  db.close();
  const args = ['-dir', crawl, '--port', '0', '--replay-port', '0', '-D', 'nwax.serve.access.log=', '-D', 'nwax.search.cache=false'];
  const servers = [await startServe(args), await startServe(args, join(before, 'bin', 'run.js'))];
  const pools = servers.map((s) => new Pool(s.url, { connections: 1 }));
  const get = async (pool, path) => {
    const t = performance.now();
    const r = await pool.request({ method: 'GET', path });
    await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${path}: ${r.statusCode}`);
    return performance.now() - t;
  };
  const rows = [];
  try {
    for (const [what, path] of [
      ['results page (HTML)', (q) => `/search?query=${encodeURIComponent(q)}`],
      ['JSON, facets=1', (q) => `/api/search?facets=1&query=${encodeURIComponent(q)}`],
    ]) {
      const times = [[], []];
      for (let pass = 0; pass < 2; pass++)
        for (const q of queries)
          for (const i of pass % 2 ? [1, 0] : [0, 1]) {
            const ms = await get(pools[i], path(q));
            if (pass > 0) times[i].push(ms);
          }
      const [now, then] = times.map(median);
      rows.push([what, now.toFixed(2), then.toFixed(2), `${(now / then).toFixed(2)}x`]);
    }
  } finally {
    for (const p of pools) await p.close();
    for (const s of servers) await s.stop();
  }
  return [
    `the chart of hits over time: ${queries.length} queries, one at a time, on ${crawl}, today against nwax ${ref} (before the chart), alternated`,
    table([['page', 'today ms (median)', `${ref} ms`, 'ratio'], ...rows]),
    '  target: the results page at most 1.2x the page before',
  ].join('\n');
}
