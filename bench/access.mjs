// Access rules at scale (issue: access control): a million SURT-prefix rules in pywb's .aclj
// format loaded (time, and RSS in a process of its own), decisions per second, and the cost
// of the check per query: the 500 queries of the index benchmark over the 1-million-document
// index (bench/index-scale.mjs; the bench corpus's index where it is missing) through the
// searcher without rules and with the million rules, interleaved, same run. The rules: 999,000
// on hosts the corpus does not have, a subtree of one corpus host excluded, 1,000 corpus URLs
// blocked one by one (exact rules), and an embargo-free default of allow.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { CORPUS_DIR, ROOT, median, startServe, table } from './lib.mjs';
import { makeQueries } from './index.mjs';
import { cannon } from './serve.mjs';

const require = createRequire(import.meta.url);
const RULES = 1_000_000;

function mean(xs) {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
}

/** The rules file: `corpusUrls` blocked exactly, one subtree of `subtreeHost` excluded, the rest elsewhere. */
function writeRules(path, corpusUrls, subtreeUrl) {
  const { surt } = require(join(ROOT, 'dist', 'cdx', 'surt.js'));
  const lines = [];
  let seed = 7;
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  lines.push(`${surt(subtreeUrl)} - {"access": "exclude", "url": "${subtreeUrl}"}`);
  for (const u of corpusUrls) lines.push(`${surt(u)}### - {"access": "block", "url": "${u}"}`);
  while (lines.length < RULES) {
    const host = `site${rnd(200_000)}.${['com', 'org', 'net', 'de', 'fr'][rnd(5)]}`;
    const path = `/${['news', 'blog', 'user', 'a', 'docs'][rnd(5)]}/${rnd(1_000_000)}`;
    lines.push(`${surt(`http://${host}${path}`)} - {"access": "${['block', 'exclude'][rnd(2)]}"}`);
  }
  writeFileSync(path, `${lines.sort().reverse().join('\n')}\n`);
}

/** Loads the rules in a process of its own: load time, RSS before and after, decisions per second. */
function loadFigures(rulesPath, urls) {
  const urlsPath = `${rulesPath}.urls.json`;
  writeFileSync(urlsPath, JSON.stringify(urls));
  const script = `
    const { AccessPolicy } = await import(${JSON.stringify(join(ROOT, 'dist', 'access', 'policy.js'))});
    const urls = JSON.parse((await import('node:fs')).readFileSync(${JSON.stringify(urlsPath)}, 'utf8'));
    globalThis.gc?.();
    const before = process.memoryUsage();
    const t0 = performance.now();
    const p = new AccessPolicy({ files: [${JSON.stringify(rulesPath)}], defaultAccess: 'allow', embargoAccess: 'block', userHeader: 'x', trustedProxies: [], readingRoom: [], readingRoomUser: 'r' });
    const load = performance.now() - t0;
    globalThis.gc?.();
    const after = process.memoryUsage();
    const t1 = performance.now();
    let n = 0;
    for (let r = 0; r < 20; r++) for (const u of urls) if (p.decide(u, '20200101000000').access !== 'allow') n++;
    const each = (performance.now() - t1) / (20 * urls.length);
    console.log(JSON.stringify({ load, rss: (after.rss - before.rss) / 2 ** 20, heap: (after.heapUsed - before.heapUsed) / 2 ** 20, each, withheld: n / 20, size: p.rules.size }));`;
  return JSON.parse(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { maxBuffer: 1 << 26 }).toString());
}

export async function benchAccess() {
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  // The 1M-document index of bench/index-scale.mjs (its folder names its schema).
  const scale = join(CORPUS_DIR, 'scale-crawl-55-v5');
  // NWAX_BENCH_ACCESS_INDEX=corpus: the bench corpus's own index (its anchors and LinkDb: what the anchor check reads).
  const crawl = existsSync(join(scale, 'indexes', 'part-00001')) && process.env.NWAX_BENCH_ACCESS_INDEX !== 'corpus' ? scale : join(CORPUS_DIR, 'index-crawl');
  if (!existsSync(join(crawl, 'indexes', 'part-00000'))) throw new Error(`no index at ${crawl}: run npm run bench -- index-scale (or index) first`);
  const first = new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true });
  const docs = first.prepare('SELECT count(*) n FROM docs').get().n;
  // Corpus URLs to block: every 97th of the first part's, 1,000 of them; a subtree of another host.
  const corpusUrls = first.prepare('SELECT url FROM docs WHERE id % 97 = 0 LIMIT 1000').pluck().all();
  const someUrl = first.prepare('SELECT url FROM docs WHERE id = 5000').pluck().get();
  const subtree = someUrl.slice(0, someUrl.indexOf('/', someUrl.indexOf('//') + 2) + 1) + someUrl.split('/')[3] + '/';
  const work = join(CORPUS_DIR, 'access-bench');
  mkdirSync(work, { recursive: true });
  const rulesPath = join(work, 'million.aclj');
  const tw = performance.now();
  writeRules(rulesPath, corpusUrls, subtree);
  const written = (performance.now() - tw) / 1000;
  const sample = [...corpusUrls.slice(0, 500), ...first.prepare('SELECT url FROM docs WHERE id % 13 = 0 LIMIT 4500').pluck().all()];
  const load = loadFigures(rulesPath, sample);

  const { Searcher } = await import(join(ROOT, 'dist', 'search', 'searcher.js'));
  const { AccessPolicy } = await import(join(ROOT, 'dist', 'access', 'policy.js'));
  const queries = makeQueries(first).map((qq) => `${qq.words.join(' ')}${qq.site ? ` site:${qq.site}` : ''}${qq.year ? ` date:${qq.year}` : ''}`);
  const open = new Searcher(crawl);
  const policy = new AccessPolicy({
    files: [rulesPath],
    defaultAccess: 'allow',
    embargoAccess: 'block',
    userHeader: 'x',
    trustedProxies: [],
    readingRoom: [],
    readingRoomUser: 'r',
  });
  const ruled = new Searcher(crawl, undefined, policy);
  // The first query builds each set's view of what the rules withhold (once per rules generation).
  const tv = performance.now();
  const firstAnswer = ruled.view().search(queries[0], { hits: 10, snippets: false, cache: false });
  const viewMs = performance.now() - tv;
  const once = (s, q) => {
    const t = process.hrtime.bigint();
    s.view().search(q, { hits: 10, snippets: false, cache: false });
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  // Query by query, the two searchers in turn (first one, then the other, then the other way
  // round): a block of 500 of one then 500 of the other measured the machine's drift as much as
  // the check (-1.8% to 7.8% in runs of the same code).
  const without = [];
  const withRules = [];
  for (let r = 0; r < 4; r++)
    for (const q of queries) {
      const pair = r % 2 ? [once(ruled, q), once(open, q)].reverse() : [once(open, q), once(ruled, q)];
      if (r === 0) continue;
      without.push(pair[0]);
      withRules.push(pair[1]);
    }
  // What the rules withheld from the answers: the totals of the same queries, summed.
  const totals = (s) => queries.reduce((n, q) => n + s.view().search(q, { hits: 10, snippets: false, cache: false }).total, 0);
  const shown = [totals(open), totals(ruled)];
  open.close();
  ruled.close();
  // Through the service, as the serve benchmark loads it (autocannon, 50 connections, the same
  // queries, no answer cache): a server without rules and one with the million, both started
  // and warmed, then loaded in turn, a short window each, the order swapped every round. Each
  // server started afresh for a 20-second run of its own, one after the other, measured the
  // machine's drift as much as the rules (0.97x to 1.11x in runs of the same code).
  const paths = queries.map((q) => `/api/search?${new URLSearchParams({ query: q, hitsPerPage: '10', hitsPerSite: '0' })}`);
  const rounds = Number(process.env.NWAX_BENCH_ACCESS_ROUNDS ?? 8);
  const servers = [
    ['no rules', []],
    ['1M rules', ['-D', `nwax.access.rules=${rulesPath}`]],
  ];
  const runs = servers.map(() => []);
  const started = [];
  try {
    for (const [, extra] of servers)
      started.push(await startServe(['-dir', crawl, '--port', '0', '-D', 'nwax.serve.access.log=', '-D', 'nwax.search.cache=false', ...extra]));
    // Warmed until each of the server's search workers has seen the queries a few times: each
    // worker builds its own view of the rules at its first query and counts, once a phrase,
    // the withheld documents that hold it (the view's build is measured above; with 5 s of
    // warming the first rounds still paid for it).
    for (const s of started) await cannon(s.url, paths, { duration: 20 });
    for (let round = 0; round < rounds; round++)
      for (const i of round % 2 ? [1, 0] : [0, 1]) {
        const r = await cannon(started[i].url, paths, { duration: 10 });
        runs[i].push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx });
      }
    for (const [i, s] of started.entries())
      runs[i].rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.server.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } finally {
    for (const s of started) await s.stop();
  }
  const served = servers.map(([name], i) => {
    const m = (k) => median(runs[i].map((r) => r[k]));
    return [
      name,
      m('rps').toFixed(1),
      m('p50').toFixed(1),
      m('p99').toFixed(1),
      runs[i].rss.toFixed(0),
      runs[i].reduce((n, r) => n + r.errors, 0),
      runs[i].map((r) => r.p50).join(' '),
    ];
  });
  rmSync(work, { recursive: true, force: true });
  const p50 = [median(without), median(withRules)];
  const cost = p50[1] - p50[0];
  return [
    `access rules: ${load.size.toLocaleString('en')} rules (pywb .aclj, ${written.toFixed(1)} s to write), over ${docs.toLocaleString('en')} documents a part (${crawl})`,
    table([
      ['what', 'figure'],
      ['load (read, parse, sort)', `${(load.load / 1000).toFixed(2)} s`],
      ['heap held by the loaded rules (after a GC)', `${load.heap.toFixed(0)} MB`],
      ['RSS grown by the load (with the garbage of the parse)', `${load.rss.toFixed(0)} MB`],
      ['one decision (URL canonicalized, looked up)', `${(load.each * 1000).toFixed(2)} us`],
      ['view built at the first query (both parts)', `${viewMs.toFixed(0)} ms (answer: ${firstAnswer.total} matches)`],
    ]),
    `  500 queries x 3 after one warming pass, in-process, no cache, the two searchers alternated query by query, ms:`,
    table([
      ['searcher', 'p50', 'p99', 'mean'],
      ['no rules', p50[0].toFixed(2), pct(without, 0.99).toFixed(2), mean(without).toFixed(2)],
      ['1M rules', p50[1].toFixed(2), pct(withRules, 0.99).toFixed(2), mean(withRules).toFixed(2)],
    ]),
    `  cost of the check at p50: ${cost.toFixed(3)} ms, ${((cost / p50[0]) * 100).toFixed(1)}% of the p50 without rules (target under 5%), ${((mean(withRules) / mean(without) - 1) * 100).toFixed(1)}% of the mean; matches shown over the 500 queries: ${shown[0]} without rules, ${shown[1]} with`,
    `  nwax serve under load (autocannon, 50 connections, /api/search; both servers up and warmed 20 s, then ${rounds} rounds of 10 s each, in turn, the order swapped each round; medians):`,
    table([['server', 'req/s', 'p50 ms', 'p99 ms', 'RSS MB', 'errors', 'p50 of each round'], ...served]),
    `  p50 with the rules ${(Number(served[1][2]) / Number(served[0][2])).toFixed(2)}x without (RSS: the server thread and each search worker hold the rules)`,
  ].join('\n');
}
