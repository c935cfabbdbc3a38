// The service against an earlier nwax on the same archives, same run: the bench corpus imported
// and indexed by each version with its defaults (the baseline built from git in a worktree
// under the corpus folder: NWAX_BENCH_BASELINE, default 5b7ede9, the version before the ranking
// and multilingual work), then autocannon on 127.0.0.1, 50 connections, 500 distinct queries in
// turn (words, words site:, words date:) against /api/search with the answer cache off, the two
// servers alternated. Used by bench/serve.mjs.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { CORPUS_DIR, NWAX, ROOT, median, startServe, table } from './lib.mjs';
import { makeQueries } from './index.mjs';

const require = createRequire(import.meta.url);

/** The baseline's checkout, installed and built once. */
export function baselineCheckout(ref) {
  const dir = join(CORPUS_DIR, `baseline-${ref}`);
  // (dist/index.js until the library entry became dist/library.js)
  if (['index.js', 'library.js'].some((f) => existsSync(join(dir, 'dist', f)))) return dir;
  if (!existsSync(dir)) execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', '-f', dir, ref], { stdio: 'ignore' });
  process.stderr.write(`  building nwax ${ref} in ${dir}\n`);
  // The lock of an older npm may not match npm 11's view of optional packages: install, not ci.
  for (const args of [
    ['install', '--no-audit', '--no-fund'],
    ['run', 'build'],
  ]) {
    const r = spawnSync('npm', args, { cwd: dir, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed in ${dir}`);
  }
  return dir;
}

/** The bench corpus imported and indexed by the nwax at `bin`, with that version's defaults. */
function crawlWith(bin, name) {
  const crawl = join(CORPUS_DIR, `serve-${name}-crawl`);
  if (existsSync(join(crawl, 'indexes', '_SUCCESS'))) return crawl;
  mkdirSync(crawl, { recursive: true });
  writeFileSync(join(crawl, 'manifest'), `${join(CORPUS_DIR, 'nwax-bench.warc.gz')} bench\n`);
  const seg = join(crawl, 'segments', '20200101000000');
  for (const args of [
    ['import', join(crawl, 'manifest'), seg],
    ['updatedb', join(crawl, 'crawldb'), seg],
    ['invertlinks', join(crawl, 'linkdb'), seg],
    ['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg],
  ]) {
    execFileSync('node', [bin, ...args], { stdio: 'ignore' });
  }
  return crawl;
}

/** The -D properties this version knows, of those that turn off the access log and the answer cache. */
function quietDefines(root) {
  const known = JSON.parse(readFileSync(join(root, 'conf', 'nwax-default.json'), 'utf8'));
  return [
    ['nwax.serve.access.log', ''],
    ['nwax.search.cache', 'false'],
  ]
    .filter(([k]) => k in known)
    .flatMap(([k, v]) => ['-D', `${k}=${v}`]);
}

function cannon(url, paths, seconds) {
  let i = 0;
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url,
        connections: 50,
        duration: seconds,
        requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] }) }],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    ),
  );
}

export async function baselineComparison({ runs }) {
  const ref = process.env.NWAX_BENCH_BASELINE ?? '5b7ede9';
  if (!existsSync(join(CORPUS_DIR, 'nwax-bench.warc.gz')))
    throw new Error(`no corpus in ${CORPUS_DIR}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  const base = baselineCheckout(ref);
  const versions = [
    { name: `nwax ${ref}`, root: base, crawl: crawlWith(join(base, 'bin', 'run.js'), `baseline-${ref}`) },
    { name: 'nwax today', root: ROOT, crawl: crawlWith(NWAX, 'today') },
  ];
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const queries = makeQueries(new Database(join(versions[1].crawl, 'indexes', 'part-00000'), { readonly: true }));
  const text = (q) => `${q.words.join(' ')}${q.site ? ` site:${q.site}` : ''}${q.year ? ` date:${q.year}` : ''}`;
  const paths = queries.map((q) => `/api/search?${new URLSearchParams({ query: text(q), hitsPerPage: '10', hitsPerSite: '0' })}`);
  const samples = versions.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (const [i, v] of versions.entries()) {
      const { url, stop } = await startServe(['-dir', v.crawl, '--port', '0', ...quietDefines(v.root)], join(v.root, 'bin', 'run.js'));
      try {
        await cannon(url, paths, 3);
        const res = await cannon(url, paths, 15);
        samples[i].push({ rate: res.requests.average, p50: res.latency.p50, p99: res.latency.p99, errors: res.errors + res.non2xx + res.timeouts });
        process.stderr.write(`  run ${r + 1}/${runs} ${v.name}: ${res.requests.average.toFixed(0)} req/s, p50 ${res.latency.p50} ms\n`);
      } finally {
        await stop();
      }
    }
  }
  const m = samples.map((s) => ({
    rate: median(s.map((x) => x.rate)),
    p50: median(s.map((x) => x.p50)),
    p99: median(s.map((x) => x.p99)),
    errors: s.reduce((n, x) => n + x.errors, 0),
  }));
  return [
    `nwax serve against nwax ${ref}, same run: /api/search over the bench corpus indexed by each with its defaults, 500 distinct queries in turn, answer cache off, 50 connections, 15 s a run, medians of ${runs}`,
    table([
      ['version', 'requests/s', 'p50 ms', 'p99 ms', 'errors'],
      ...versions.map((v, i) => [v.name, m[i].rate.toFixed(0), m[i].p50.toFixed(0), m[i].p99.toFixed(0), m[i].errors]),
    ]),
    `  today / ${ref}: throughput ${(m[1].rate / m[0].rate).toFixed(2)}x, p50 ${(m[0].p50 / m[1].p50).toFixed(2)}x as fast (target at least 0.8 for both)`,
  ].join('\n');
}
