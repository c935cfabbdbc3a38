// The index and the searcher against their engine's limit, same run, medians:
// - index build: `nwax index` over the bench corpus's import (documents/s with both cores,
//   bytes on disk per document), and one part's FTS5 load by the fts kernel against FTS5's own
//   inserts of the same rows;
// - search latency p50/p95/p99 over 500 queries (1-3 words from the titles' vocabulary, a third
//   with site:, a third with date:), first pass and warm, with and without snippets, against the
//   same queries on one bare FTS5 table holding the same rows (title, content, host, dates),
//   the engine's own limit.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { CORPUS_DIR, NWAX, ROOT, measure, table, q } from './lib.mjs';

const require = createRequire(import.meta.url);

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
}

/** 500 queries drawn (deterministically) from the titles' words, hosts and years. */
export function makeQueries(db) {
  const rows = db.prepare("SELECT title, host, date FROM docs WHERE title != ''").all();
  const words = [...new Set(rows.flatMap((r) => r.title.toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter((w) => w.length > 3))].sort();
  let seed = 42;
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const out = [];
  for (let i = 0; i < 500; i++) {
    const n = 1 + rnd(3);
    const ws = Array.from({ length: n }, () => words[rnd(words.length)]);
    const r = rows[rnd(rows.length)];
    const filter = i % 3 === 1 ? { site: r.host } : i % 3 === 2 ? { year: r.date.slice(0, 4) } : {};
    out.push({ words: ws, ...filter });
  }
  return out;
}

/** The bench corpus imported once (with its CrawlDb and LinkDb): the index's input. */
export function ensureSegment() {
  const file = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  if (!existsSync(file)) throw new Error(`no corpus at ${file}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  const crawl = join(CORPUS_DIR, 'index-crawl');
  const seg = join(crawl, 'segments', '20200101000000');
  if (!existsSync(join(seg, '_SUCCESS'))) {
    mkdirSync(crawl, { recursive: true });
    writeFileSync(join(crawl, 'manifest'), `${file} bench\n`);
    for (const args of [
      ['import', '--force', join(crawl, 'manifest'), seg],
      ['updatedb', '--force', join(crawl, 'crawldb'), seg],
      ['invertlinks', '--force', join(crawl, 'linkdb'), seg],
    ]) {
      execFileSync('node', [NWAX, ...args], { stdio: 'ignore' });
    }
  }
  return { crawl, seg };
}

/** One bare FTS5 table with the rows of the index parts (title, content; host and dates stored). */
export async function buildBare(parts, path) {
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const { SegmentTexts, textRoots } = await import(join(ROOT, 'dist', 'segment', 'segment-texts.js'));
  const { readInfo } = await import(join(ROOT, 'dist', 'index', 'schema.js'));
  rmSync(path, { force: true });
  const b = new Database(path);
  b.pragma('journal_mode = OFF');
  b.pragma('synchronous = OFF');
  b.exec("CREATE VIRTUAL TABLE t USING fts5(title, content, host UNINDEXED, dates UNINDEXED, tokenize='unicode61 remove_diacritics 2')");
  // The index keeps no text since schema 4: the bare table takes it from the segments, as the searcher does.
  const texts = new SegmentTexts();
  let near = [];
  b.function('seg_text', (seg, url, digest) => texts.text(seg ?? '', url, digest, near) ?? '');
  const t0 = Date.now();
  for (const p of parts) {
    const src = new Database(p, { readonly: true });
    const info = readInfo(src, p);
    const stored = src
      .prepare('PRAGMA table_info(docs)')
      .all()
      .some((c) => c.name === 'text');
    src.close();
    near = textRoots(p, info.segmentRoots);
    b.prepare('ATTACH DATABASE ? AS src').run(p);
    b.exec(`INSERT INTO t(title, content, host, dates) SELECT title, ${stored ? 'text' : 'seg_text(segment, url, digest)'}, host, dates FROM src.docs`);
    b.exec('DETACH DATABASE src');
  }
  const seconds = (Date.now() - t0) / 1000;
  b.close();
  return { seconds, bytes: statSync(path).size };
}

/** Latency rows (p50/p95/p99 ms) of nwax search over `crawl` and of the bare table at `bare`. */
export async function latencyRows(crawl, parts, bare, root = ROOT) {
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const b = bare ? new Database(bare, { readonly: true }) : undefined;
  const queries = makeQueries(new Database(parts[0], { readonly: true }));
  const bareStmt = b && {
    plain: b.prepare('SELECT rowid, title, host, dates FROM t WHERE t MATCH ? ORDER BY rank LIMIT 10'),
    site: b.prepare("SELECT rowid, title, host, dates FROM t WHERE t MATCH ? AND (host = ? OR host LIKE '%.' || ?) ORDER BY rank LIMIT 10"),
    year: b.prepare("SELECT rowid, title, host, dates FROM t WHERE t MATCH ? AND instr(' ' || dates, ' ' || ?) > 0 ORDER BY rank LIMIT 10"),
  };
  const bareRun = (qq) => {
    const match = qq.words.map((w) => `"${w}"`).join(' ');
    return qq.site ? bareStmt.site.all(match, qq.site, qq.site) : qq.year ? bareStmt.year.all(match, qq.year) : bareStmt.plain.all(match);
  };
  const { Searcher } = await import(join(root, 'dist', 'search', 'searcher.js'));
  const searcher = new Searcher(crawl);
  const nwaxQuery = (qq) => `${qq.words.join(' ')}${qq.site ? ` site:${qq.site}` : ''}${qq.year ? ` date:${qq.year}` : ''}`;
  const time = (fn) =>
    queries.map((qq) => {
      const s = process.hrtime.bigint();
      fn(qq);
      return Number(process.hrtime.bigint() - s) / 1e6;
    });
  const rows = [];
  const lat = (name, xs) => rows.push([name, pct(xs, 0.5).toFixed(2), pct(xs, 0.95).toFixed(2), pct(xs, 0.99).toFixed(2)]);
  // cache: false: every pass does the query's work (the service's cache of recent answers is not measured here).
  lat(
    'nwax search, first pass (snippets)',
    time((qq) => searcher.view().search(nwaxQuery(qq), { hits: 10, cache: false })),
  );
  if (b) lat('bare FTS5, first pass', time(bareRun));
  const warm = { nwax: [], snip: [], bare: [] };
  for (let r = 0; r < 3; r++) {
    warm.nwax.push(...time((qq) => searcher.view().search(nwaxQuery(qq), { hits: 10, snippets: false, cache: false })));
    warm.snip.push(...time((qq) => searcher.view().search(nwaxQuery(qq), { hits: 10, cache: false })));
    if (b) warm.bare.push(...time(bareRun));
  }
  // The capped ranking (the default) against the exact one: time, and the top 10 they give,
  // at the default cap and at a low one (most common-word queries capped).
  const exact = [];
  const low = Number(process.env.NWAX_BENCH_LOW_CAP ?? 1000);
  const compare = (maxScored) => {
    const cmp = { capped: 0, sameList: 0, sameSet: 0, overlap: 0 };
    for (const qq of queries) {
      const a = searcher.view().search(nwaxQuery(qq), { hits: 10, snippets: false, cache: false, maxScored });
      const e = searcher.view().search(nwaxQuery(qq), { hits: 10, snippets: false, cache: false, exact: true });
      const key = (h) => `${h.set} ${h.doc}`;
      const got = a.hits.map(key);
      const want = e.hits.map(key);
      if (a.rankedAmong !== undefined) cmp.capped++;
      if (got.join() === want.join()) cmp.sameList++;
      const ws = new Set(want);
      if (got.length === want.length && got.every((k) => ws.has(k))) cmp.sameSet++;
      cmp.overlap += want.length ? got.filter((k) => ws.has(k)).length / want.length : 1;
    }
    const n = queries.length;
    return `${cmp.capped} of ${n} queries capped; top 10 the same list for ${((100 * cmp.sameList) / n).toFixed(1)}%, the same set ${((100 * cmp.sameSet) / n).toFixed(1)}%, mean overlap ${((100 * cmp.overlap) / n).toFixed(1)}%`;
  };
  for (let r = 0; r < 3; r++) {
    for (const qq of queries) {
      const s = process.hrtime.bigint();
      searcher.view().search(nwaxQuery(qq), { hits: 10, snippets: false, cache: false, exact: true });
      exact.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
  }
  // p99 by kind of query (the default ranking, warm): words alone, with site:, with date:.
  const kinds = ['words', 'site:', 'date:']
    .map(
      (k, i) =>
        `${k} ${pct(
          warm.nwax.filter((_, j) => (j % queries.length) % 3 === i),
          0.99,
        ).toFixed(1)}`,
    )
    .join(', ');
  const overlap = [
    `  capped ranking vs exact, default cap (10,000): ${compare(undefined)}`,
    `  the same at a cap of ${low}: ${compare(low)}`,
    `  warm p99 by kind (default ranking), ms: ${kinds}`,
  ];
  lat('nwax search, warm, no snippets', warm.nwax);
  lat('nwax search, warm, no snippets, exact ranking', exact);
  lat('nwax search, warm, snippets', warm.snip);
  if (b) lat('bare FTS5, warm', warm.bare);
  searcher.close();
  b?.close();
  rows.overlap = overlap.join('\n');
  return rows;
}

/**
 * One part's rows (their texts from the segments) loaded into an index's FTS5 table by the
 * `fts` kernel and by FTS5's own inserts (its twin), alternated, in one transaction each with
 * the index's hash size: the part's FTS5 load against SQLite's, same rows, same records.
 */
async function ftsLoadPeer(part, runs) {
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const { ftsLoad } = await import(join(ROOT, 'dist', 'index', 'fts-load.js'));
  const { createIndex, FTS_COLUMNS, readInfo } = await import(join(ROOT, 'dist', 'index', 'schema.js'));
  const { SegmentTexts, textRoots } = await import(join(ROOT, 'dist', 'segment', 'segment-texts.js'));
  const { urlWords, captureYears } = await import(join(ROOT, 'dist', 'index', 'index-writer.js'));
  const src = new Database(part, { readonly: true });
  const near = textRoots(part, readInfo(src, part).segmentRoots);
  const texts = new SegmentTexts();
  const rows = src
    .prepare('SELECT id, url, digest, segment, title, anchors, host, dates FROM docs ORDER BY id')
    .all()
    .map((r) => [r.id, [r.title, texts.text(r.segment, r.url, r.digest, near) ?? '', r.anchors, urlWords(r.url), r.host, captureYears(r.dates.split(' '))]]);
  src.close();
  const times = { true: [], false: [] };
  for (let r = 0; r < runs; r++) {
    for (const native of [true, false]) {
      const path = join(CORPUS_DIR, 'fts-load-peer.db');
      rmSync(path, { force: true });
      const db = createIndex(path, 'main');
      const t0 = process.hrtime.bigint();
      const fts = ftsLoad(db, path, FTS_COLUMNS, 64 << 20, native);
      db.exec('BEGIN');
      for (const [id, t] of rows) fts.add(id, t);
      fts.beforeCommit();
      db.exec('COMMIT');
      fts.afterCommit();
      times[native].push(Number(process.hrtime.bigint() - t0) / 1e9);
      db.close();
      rmSync(path, { force: true });
    }
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const [a, b] = [med(times.true), med(times.false)];
  return `  FTS5 load of part-00000 (${rows.length} rows, texts analyzed), same rows alternated, medians of ${runs}: fts kernel ${a.toFixed(2)} s, FTS5's insert ${b.toFixed(2)} s: ${(a / b).toFixed(2)}x`;
}

function du(path) {
  return existsSync(path) ? Number(execFileSync('du', ['-sb', path]).toString().split('\t')[0]) : 0;
}

/**
 * NWAX_BENCH_BASELINE_INDEX=REF: the same index step by an earlier nwax (a worktree built under
 * the corpus folder), alternated with this one's in the same run, its bytes beside these.
 */
async function baseline() {
  const ref = process.env.NWAX_BENCH_BASELINE_INDEX;
  if (!ref) return undefined;
  const { baselineCheckout } = await import('./serve-baseline.mjs');
  return { ref, bin: join(baselineCheckout(ref), 'bin', 'run.js') };
}

export async function benchIndex({ runs = 5 } = {}) {
  const { crawl, seg } = ensureSegment();
  const before = await baseline();
  const step = (bin, out) =>
    `node ${q(bin)} index --force --reduces 2 --threads 2 ${q(out)} ${q(join(crawl, 'crawldb'))} ${q(join(crawl, 'linkdb'))} ${q(seg)} 2>/dev/null`;
  const NAME = 'nwax index (2 partitions, 2 threads)';
  const OLD = before && `nwax ${before.ref} index, same run`;
  const oldOut = join(CORPUS_DIR, 'index-crawl-baseline-indexes');
  const m = measure({ [NAME]: step(NWAX, join(crawl, 'indexes')), ...(before ? { [OLD]: step(before.bin, oldOut) } : {}) }, runs);
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const parts = [0, 1].map((p) => join(crawl, 'indexes', `part-0000${p}`));
  const docs = parts.reduce((n, p) => n + new Database(p, { readonly: true }).prepare('SELECT count(*) n FROM docs').get().n, 0);
  const bytes = parts.reduce((n, p) => n + statSync(p).size, 0);
  const idx = m[NAME];
  // The index's bytes beside the archive's, and the whole crawl folder's (segments, CrawlDb, LinkDb, indexes).
  const warc = statSync(join(CORPUS_DIR, 'nwax-bench.warc.gz')).size;
  const rest = ['segments', 'crawldb', 'linkdb'].reduce((n, d) => n + du(join(crawl, d)), 0);
  const sizes = [['index', 'MB', 'bytes/document', 'x the WARC', 'crawl folder x the WARC']];
  sizes.push(['nwax (this)', (bytes / 1e6).toFixed(1), Math.round(bytes / docs), (bytes / warc).toFixed(3), ((bytes + rest) / warc).toFixed(2)]);
  if (before) {
    const old = du(oldOut);
    sizes.push([`nwax ${before.ref}`, (old / 1e6).toFixed(1), Math.round(old / docs), (old / warc).toFixed(3), ((old + rest) / warc).toFixed(2)]);
  }
  const peer = await ftsLoadPeer(parts[0], runs);
  const bare = join(CORPUS_DIR, 'bare-fts5.db');
  const bb = await buildBare(parts, bare);
  const rows = await latencyRows(crawl, parts, bare);
  rmSync(bare, { force: true });
  const builds = [['build', 'seconds', 'documents/s', 'bytes/document', 'peak RSS MB']];
  builds.push([NAME, idx.seconds.toFixed(2), Math.round(docs / idx.seconds), Math.round(bytes / docs), idx.rssMB.toFixed(0)]);
  if (before) builds.push([OLD, m[OLD].seconds.toFixed(2), Math.round(docs / m[OLD].seconds), Math.round(du(oldOut) / docs), m[OLD].rssMB.toFixed(0)]);
  builds.push(['bare FTS5 insert of the same rows (1 thread)', bb.seconds.toFixed(2), Math.round(docs / bb.seconds), Math.round(bb.bytes / docs), '-']);
  return [
    `nwax index benchmark: the bench corpus's import (${docs} documents, ${(warc / 1e6).toFixed(1)} MB of WARC); medians of ${runs}`,
    table(builds),
    ...(before ? [`  index step / ${before.ref}'s, same run: ${(idx.seconds / m[OLD].seconds).toFixed(2)}x the time (target 0.6)`] : []),
    peer,
    table(sizes),
    `  search latency over 500 queries (1-3 title words; a third with site:, a third with date:), ms:`,
    table([['run', 'p50', 'p95', 'p99'], ...rows]),
    rows.overlap,
  ].join('\n');
}
