// What operating the service costs, on the bench corpus's index (18,250 pages): autocannon on
// 127.0.0.1 against /api/search, 20 connections, the 500 queries of the index benchmark in turn,
// 15 s a run, runs interleaved and repeated: (a) no access log, no reloads; (b) with the access
// log written to a file; (c) no access log, and every second a new dates index renamed into
// place and POST /admin/reload, so that each reload opens a set anew. Medians of the runs.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { CORPUS_DIR, NWAX, ROOT, indexIsCurrent, median, startServe, table } from './lib.mjs';
import { makeQueries } from './index.mjs';

const require = createRequire(import.meta.url);

/** import, updatedb, invertlinks, index, add-dates of the corpus (once). */
export async function buildCrawl(crawl) {
  if (existsSync(join(crawl, 'pindexes', 'part-00000', 'dates')) && (await indexIsCurrent(join(crawl, 'indexes', 'part-00000')))) return;
  rmSync(crawl, { recursive: true, force: true });
  const warc = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  const run = (...args) => execFileSync('node', [NWAX, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const manifest = join(crawl, 'manifest');
  execFileSync('mkdir', ['-p', crawl]);
  writeFileSync(manifest, `${warc} bench\n`);
  const cdx = join(crawl, 'all.cdx');
  run('cdx', '-q', '-o', cdx, warc);
  const dup = join(crawl, 'all.dup');
  writeFileSync(dup, execFileSync('node', [NWAX, 'dedup-cdx', cdx]));
  const seg = join(crawl, 'segments', '20200101000000');
  run('import', manifest, seg);
  run('updatedb', join(crawl, 'crawldb'), seg);
  run('invertlinks', join(crawl, 'linkdb'), seg);
  // One partition, as the serve-ops and relevance figures in README were measured (the
  // default is now one per core); the relevance query sets are drawn from it.
  run('index', '--reduces', '1', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg);
  const part = join(crawl, 'indexes', 'part-00000');
  run('add-dates', part, part, join(crawl, 'pindexes', 'part-00000', 'dates'), dup);
}

function cannon(url, paths, seconds) {
  let i = 0;
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 20, duration: seconds, requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] }) }] }, (err, res) =>
      err ? reject(err) : resolve(res),
    );
  });
}

function serve(crawl, defines) {
  return startServe(['-dir', crawl, '--port', '0', ...defines.flatMap((d) => ['-D', d])]);
}

export async function benchServeOps({ runs = 3 } = {}) {
  const crawl = join(CORPUS_DIR, 'serve-ops-crawl');
  await buildCrawl(crawl);
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const queries = makeQueries(new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true }));
  const paths = queries.map((q) => `/api/search?${new URLSearchParams({ query: q.words.join(' '), hitsPerPage: '10', hitsPerSite: '0' })}`);
  const dates = join(crawl, 'pindexes', 'part-00000', 'dates');
  const log = join(CORPUS_DIR, 'serve-ops-access.log');
  const seconds = Number(process.env.NWAX_BENCH_SERVE_SECONDS ?? 15);
  const samples = { plain: [], log: [], reload: [] };
  let reloads = 0;
  for (let r = 0; r < runs; r++) {
    for (const kind of Object.keys(samples)) {
      rmSync(log, { force: true });
      const s = await serve(crawl, ['nwax.serve.reload.interval=0', `nwax.serve.access.log=${kind === 'log' ? log : ''}`]);
      await cannon(s.url, paths, 3); // warm
      let timer;
      if (kind === 'reload') {
        timer = setInterval(() => {
          // A new file in place of the dates index: the reload opens the set anew.
          copyFileSync(dates, `${dates}.next`);
          renameSync(`${dates}.next`, dates);
          void fetch(`${s.url}/admin/reload`, { method: 'POST' })
            .then((x) => x.text())
            .then(() => reloads++);
        }, 1000);
      }
      const res = await cannon(s.url, paths, seconds);
      clearInterval(timer);
      await s.stop();
      samples[kind].push(res);
      process.stderr.write(`  run ${r + 1}/${runs} ${kind}: ${res.requests.average.toFixed(0)} req/s, p99 ${res.latency.p99} ms\n`);
    }
  }
  const m = (kind, f) => median(samples[kind].map(f));
  const row = (name, kind) => [
    name,
    m(kind, (x) => x.requests.average).toFixed(0),
    m(kind, (x) => x.latency.p50).toFixed(1),
    m(kind, (x) => x.latency.p99).toFixed(1),
    samples[kind].reduce((n, x) => n + x.errors + x.timeouts + x.non2xx, 0),
  ];
  return [
    `nwax serve operations: /api/search over ${crawl} (18,250 pages), 20 connections, ${seconds} s a run, medians of ${runs}`,
    table([
      ['run', 'requests/s', 'p50 ms', 'p99 ms', 'errors'],
      row('no access log, no reloads', 'plain'),
      row('access log to a file', 'log'),
      row('a set reopened every second (POST /admin/reload)', 'reload'),
    ]),
    `  access log: ${(m('log', (x) => x.requests.average) / m('plain', (x) => x.requests.average)).toFixed(3)}x the throughput (target >= 0.95)`,
    `  reloads: p99 ${(m('reload', (x) => x.latency.p99) / m('plain', (x) => x.latency.p99)).toFixed(2)}x the p99 without (target <= 1.5); ${reloads} reloads answered`,
  ].join('\n');
}
