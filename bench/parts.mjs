// One collection however it is cut: the bench corpus's crawl indexed as 1, 3 and 8 parts (the
// same segment, CrawlDb and LinkDb; `--reduces`), the 8 parts merged into one index, and the 8
// parts served by two `nwax serve` backends (4 each) behind a shard front (over HTTP); the
// relevance benchmark's known-item queries (title, passage, navigational) and single words run
// through nwax's searcher in each. Prints, per layout, the queries whose top 10 (version and
// order) or scores (past 1e-9) differ from the one-part index's, and the query latency
// (median and p99 over the queries, same run). No network: the searcher in process.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { CORPUS_DIR, NWAX, ROOT, indexIsCurrent, median, startServe, table } from './lib.mjs';
import { buildCrawl } from './serve-ops.mjs';
import { querySets, textReader } from './relevance.mjs';

const require = createRequire(import.meta.url);

/** The crawl indexed as `reduces` parts, with every part's dates; its directory. */
async function cut(crawl, reduces) {
  const dir = `${crawl}-parts-${reduces}`;
  if (existsSync(join(dir, 'indexes', '_SUCCESS')) && (await indexIsCurrent(join(dir, 'indexes', 'part-00000')))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const d of ['crawldb', 'linkdb', 'segments']) symlinkSync(join(crawl, d), join(dir, d));
  const run = (...args) => execFileSync('node', [NWAX, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const seg = join(dir, 'segments', readdirSync(join(crawl, 'segments'))[0]);
  run('index', '--reduces', String(reduces), join(dir, 'indexes'), join(dir, 'crawldb'), join(dir, 'linkdb'), seg);
  run('add-dates', join(dir, 'indexes'), join(dir, 'indexes'), join(dir, 'pindexes'), join(crawl, 'all.dup'));
  return dir;
}

/** The parts of `from` merged into one index (nwax merge). */
function merged(from) {
  const dir = `${from}-merged`;
  if (existsSync(join(dir, 'indexes', 'part-00000'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'indexes'), { recursive: true });
  const parts = readdirSync(join(from, 'indexes'))
    .filter((p) => p.startsWith('part-'))
    .map((p) => join(from, 'indexes', p));
  execFileSync('node', [NWAX, 'merge', join(dir, 'indexes', 'part-00000'), ...parts], { stdio: ['ignore', 'ignore', 'inherit'] });
  return dir;
}

/** The 8 parts of `from` as two backends' directories (4 parts each, linked). */
function halves(from) {
  return [0, 1].map((h) => {
    const dir = `${from}-half-${h}`;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'indexes'), { recursive: true });
    for (let i = 4 * h; i < 4 * h + 4; i++) symlinkSync(join(from, 'indexes', `part-0000${i}`), join(dir, 'indexes', `part-0000${i}`));
    return dir;
  });
}

/** The queries through a shard front's /api/search, as answers() gives them. */
async function frontAnswers(front, queries) {
  const out = [];
  const ms = [];
  for (const q of queries) {
    const t0 = performance.now();
    const res = await fetch(`${front}/api/search?${new URLSearchParams({ query: q, hitsPerSite: '0' })}`);
    const body = await res.json();
    ms.push(performance.now() - t0);
    out.push((body.hits ?? []).map((h) => ({ key: `${h.url} ${h.digest}`, score: h.score })));
  }
  return { out, ms };
}

function answers(searcher, queries) {
  const out = [];
  const ms = [];
  for (const q of queries) {
    const t0 = performance.now();
    let hits;
    try {
      hits = searcher.view().search(q, { hits: 10, snippets: false, cache: false, budgetMs: 0 }).hits;
    } catch {
      hits = [];
    }
    ms.push(performance.now() - t0);
    out.push(hits.map((h) => ({ key: `${h.url} ${h.digest}`, score: h.score })));
  }
  return { out, ms };
}

function p99(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))];
}

export async function benchParts() {
  const crawl = join(CORPUS_DIR, 'serve-ops-crawl');
  await buildCrawl(crawl);
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const { words } = await import(join(ROOT, 'dist', 'search', 'query.js'));
  const { Searcher } = await import(join(ROOT, 'dist', 'search', 'searcher.js'));
  const db = new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true });
  await textReader();
  const sets = querySets(db, words);
  db.close();
  // And common words, alone and in pairs: past nwax.search.max.scored matches, the capped ranking.
  const common = ['the', 'and the', 'linux', 'software', 'usb', 'manual page', 'index', 'of', 'to', 'is a', 'for the', 'with'];
  const queries = [...Object.values(sets).flatMap((s) => s.map((q) => q.query)), ...common];
  const one = new Searcher(crawl);
  const base = answers(one, queries);
  one.close();
  const layouts = [
    ['1 part', crawl],
    ['3 parts', await cut(crawl, 3)],
    ['8 parts', await cut(crawl, 8)],
  ];
  layouts.push(['8 parts merged into 1', merged(layouts[2][1])]);
  const rows = [['layout', 'queries', 'top 10 differ', 'scores differ (>1e-9)', 'p50 ms', 'p99 ms']];
  const budget = ['-D', 'nwax.search.time.budget=0', '-D', 'nwax.search.cache=false'];
  const backends = await Promise.all(halves(layouts[2][1]).map((d) => startServe(['-dir', d, '--port', '0', ...budget])));
  const front = await startServe(['--port', '0', '--shards', backends.map((b) => b.url).join(','), ...budget]);
  layouts.push(['8 parts, 2 backends behind a shard front (HTTP)', front.url]);
  for (const [name, dir] of layouts) {
    let a;
    if (dir.startsWith('http')) a = await frontAnswers(dir, queries);
    else {
      const s = new Searcher(dir);
      a = name === '1 part' ? base : answers(s, queries);
      s.close();
    }
    let order = 0;
    let score = 0;
    a.out.forEach((hits, i) => {
      const b = base.out[i];
      if (hits.length !== b.length || hits.some((h, j) => h.key !== b[j].key)) order++;
      else if (hits.some((h, j) => Math.abs(h.score - b[j].score) > 1e-9)) score++;
    });
    rows.push([name, String(queries.length), String(order), String(score), median(a.ms).toFixed(2), p99(a.ms).toFixed(2)]);
  }
  for (const s of [front, ...backends]) await s.stop();
  return `## One collection however it is cut (bench corpus, ${queries.length} queries: the searcher in process, the front over HTTP)\n\n${table(rows)}`;
}
