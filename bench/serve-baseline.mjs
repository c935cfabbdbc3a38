// The service against an earlier nwax on the same archives, same run, on two collections: the
// bench corpus, and a small one (its first 850 captures, about 840 documents), where what a query
// pays whatever the collection's size shows. Each imported and indexed by each version with its
// defaults (the baseline built from git in a worktree under the corpus folder:
// NWAX_BENCH_BASELINE, default 5b7ede9, the version before the ranking and multilingual work).
// Then, the two servers alternated, queries one at a time (their median latency), and autocannon
// on 127.0.0.1, 50 connections, the distinct queries in turn (words, words site:, words date:;
// 500 on the corpus, 40 on the small one) against /api/search with the answer cache off.
// Used by bench/serve.mjs.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { Pool } from 'undici';
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

/** The corpus's first `captures` captures (its archive cut before the next one's record, by wget's CDX): a small collection of the same pages. */
function corpusHead(captures) {
  const out = join(CORPUS_DIR, `nwax-bench-first-${captures}.warc.gz`);
  if (existsSync(out)) return out;
  const cdx = readFileSync(join(CORPUS_DIR, 'nwax-bench.cdx'), 'utf8').split('\n');
  // Line 0 is wget's header; field 9 (V) is the record's offset in the archive.
  const end = Number(cdx[captures + 1]?.split(' ')[8]);
  if (!Number.isInteger(end)) throw new Error(`nwax-bench.cdx has fewer than ${captures + 1} captures`);
  const buf = Buffer.alloc(end);
  const fd = openSync(join(CORPUS_DIR, 'nwax-bench.warc.gz'), 'r');
  try {
    readSync(fd, buf, 0, end, 0);
  } finally {
    closeSync(fd);
  }
  writeFileSync(`${out}.tmp`, buf);
  renameSync(`${out}.tmp`, out);
  return out;
}

/** An archive imported and indexed by the nwax at `bin`, with that version's defaults. */
function crawlWith(bin, name, warc) {
  const crawl = join(CORPUS_DIR, `serve-${name}-crawl`);
  if (existsSync(join(crawl, 'indexes', '_SUCCESS'))) return crawl;
  mkdirSync(crawl, { recursive: true });
  writeFileSync(join(crawl, 'manifest'), `${warc} bench\n`);
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

/** The median latency of the queries asked one at a time (after a pass to warm), in ms. */
async function oneAtATime(url, paths, passes) {
  const pool = new Pool(url, { connections: 1 });
  const ask = async (path) => {
    const res = await pool.request({ method: 'GET', path });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode}`);
  };
  try {
    for (const p of paths) await ask(p);
    const took = [];
    for (let i = 0; i < passes; i++)
      for (const p of paths) {
        const t = performance.now();
        await ask(p);
        took.push(performance.now() - t);
      }
    return median(took);
  } finally {
    await pool.close();
  }
}

/** The two versions on one collection: `warc` imported by each, `queries` of its titles. */
async function compareOn({ label, warc, queries: count, passes, runs, ref, base }) {
  const slug = label.replace(/\W+/g, '-');
  const versions = [
    { name: `nwax ${ref}`, root: base, crawl: crawlWith(join(base, 'bin', 'run.js'), `${slug}-baseline-${ref}`, warc) },
    { name: 'nwax today', root: ROOT, crawl: crawlWith(NWAX, `${slug}-today`, warc) },
  ];
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const db = new Database(join(versions[1].crawl, 'indexes', 'part-00000'), { readonly: true });
  const queries = makeQueries(db).slice(0, count);
  db.close();
  const text = (q) => `${q.words.join(' ')}${q.site ? ` site:${q.site}` : ''}${q.year ? ` date:${q.year}` : ''}`;
  const paths = queries.map((q) => `/api/search?${new URLSearchParams({ query: text(q), hitsPerPage: '10', hitsPerSite: '0' })}`);
  const samples = versions.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (const [i, v] of versions.entries()) {
      const { url, stop } = await startServe(['-dir', v.crawl, '--port', '0', ...quietDefines(v.root)], join(v.root, 'bin', 'run.js'));
      try {
        const alone = await oneAtATime(url, paths, passes);
        await cannon(url, paths, 3);
        const res = await cannon(url, paths, 15);
        samples[i].push({ alone, rate: res.requests.average, p50: res.latency.p50, p99: res.latency.p99, errors: res.errors + res.non2xx + res.timeouts });
        process.stderr.write(
          `  ${label} run ${r + 1}/${runs} ${v.name}: one at a time ${alone.toFixed(2)} ms; ${res.requests.average.toFixed(0)} req/s, p50 ${res.latency.p50} ms\n`,
        );
      } finally {
        await stop();
      }
    }
  }
  const m = samples.map((s) => ({
    alone: median(s.map((x) => x.alone)),
    rate: median(s.map((x) => x.rate)),
    p50: median(s.map((x) => x.p50)),
    p99: median(s.map((x) => x.p99)),
    errors: s.reduce((n, x) => n + x.errors, 0),
  }));
  const documents = documentsIn(versions[1].crawl);
  return [
    `${label}: ${documents} documents, ${queries.length} distinct queries in turn, answer cache off; one at a time (median of ${passes} passes) and 50 connections for 15 s; medians of ${runs} runs`,
    table([
      ['version', 'one at a time ms', 'requests/s', 'p50 ms', 'p99 ms', 'errors'],
      ...versions.map((v, i) => [v.name, m[i].alone.toFixed(2), m[i].rate.toFixed(0), m[i].p50.toFixed(0), m[i].p99.toFixed(0), m[i].errors]),
    ]),
    `  today / ${ref}: throughput ${(m[1].rate / m[0].rate).toFixed(2)}x, one at a time ${(m[0].alone / m[1].alone).toFixed(2)}x as fast, p50 ${(m[0].p50 / m[1].p50).toFixed(2)}x (target at least 0.8 for each)`,
  ].join('\n');
}

/** The documents of a crawl's index, every part's. */
function documentsIn(crawl) {
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  let n = 0;
  for (const part of readdirSync(join(crawl, 'indexes')).filter((f) => /^part-\d+$/.test(f))) {
    const db = new Database(join(crawl, 'indexes', part), { readonly: true });
    try {
      n += db.prepare('SELECT count(*) FROM docs').pluck().get();
    } finally {
      db.close();
    }
  }
  return n;
}

export async function baselineComparison({ runs }) {
  const ref = process.env.NWAX_BENCH_BASELINE ?? '5b7ede9';
  if (!existsSync(join(CORPUS_DIR, 'nwax-bench.warc.gz')))
    throw new Error(`no corpus in ${CORPUS_DIR}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  const base = baselineCheckout(ref);
  const small = await compareOn({ label: 'small collection', warc: corpusHead(850), queries: 40, passes: 10, runs, ref, base });
  const corpus = await compareOn({ label: 'bench corpus', warc: join(CORPUS_DIR, 'nwax-bench.warc.gz'), queries: 500, passes: 1, runs, ref, base });
  return [`nwax serve against nwax ${ref}, same run, /api/search over each collection indexed by each version with its defaults`, small, corpus].join('\n');
}
