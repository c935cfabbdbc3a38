// Relevance on the bench corpus (18,250 pages): known-item queries made reproducibly from the
// index itself, each with the one page that answers it, run through nwax's searcher in
// process: title queries (a page's title, as a user types it), passage queries (2 to 5 rare
// words of one sentence, as a searcher remembers it), and navigational queries (a section's path words, answered by
// the section's home page: "linux usb" -> /linux/usb/index.html). MRR@10, success@1 and @10 for
// nwax's ranking, plain BM25 on the same index, and each feature alone; then title and passage
// queries on a corpus of prose (bench/make-prose-corpus.sh: Debian's manuals). Beside them, on
// the same text, a bare FTS5 table and Lucene. No timing here.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { CORPUS_DIR, NWAX, ROOT, indexIsCurrent, table } from './lib.mjs';
import { buildCrawl } from './serve-ops.mjs';
import { lucene } from './multilingual.mjs';

const require = createRequire(import.meta.url);

function rng(seed) {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

/**
 * The SQL of a document's text over `db` (an index opened by the bench): its `text` column
 * before schema 4, since then nwax_text(segment, url, digest), read from the segments by
 * dist's SegmentTexts (`texts`, loaded by the caller: textReader()).
 */
export function textColumn(db) {
  if (
    db
      .prepare('PRAGMA table_info(docs)')
      .all()
      .some((c) => c.name === 'text')
  )
    return 'text';
  if (!textReader.loaded) throw new Error('await textReader() before reading texts of a schema 4 index');
  const { SegmentTexts, textRoots, readInfo } = textReader.loaded;
  const texts = new SegmentTexts();
  const near = textRoots(db.name, readInfo(db, db.name).segmentRoots);
  db.function('nwax_text', (seg, url, digest) => texts.text(seg ?? '', url, digest, near) ?? '');
  return 'nwax_text(segment, url, digest)';
}

/** Loads what textColumn needs from dist. */
export async function textReader() {
  const { SegmentTexts, textRoots } = await import(join(ROOT, 'dist', 'segment', 'segment-texts.js'));
  const { readInfo } = await import(join(ROOT, 'dist', 'index', 'schema.js'));
  textReader.loaded = { SegmentTexts, textRoots, readInfo };
}

/** A 32-bit FNV-1a of a string (sentences counted without keeping them). */
function fnv(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A text's sentences: cut after . ! ? where a capital or a digit follows, and at the ends of CJK sentences. */
export function sentences(text) {
  return text
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}])|(?<=[。！？])/u)
    .map((x) => x.trim())
    .filter(Boolean);
}

/**
 * Passage queries as a searcher remembers a sentence: one sentence of a page (8 to 40 words,
 * found in no other page), 2 to 5 of its rarer words (the rarer half by the pages that hold
 * them, each in fewer than 2% of the pages, none a number), in the sentence's order or not
 * (half of them shuffled); the page is the answer.
 */
export function rememberedPassages(rows, words, pick, rnd, n, all = rows) {
  const df = new Map();
  const seen = new Map();
  for (const r of all) {
    for (const w of new Set(words(`${r.title ?? ''} ${r.text ?? ''}`))) df.set(w, (df.get(w) ?? 0) + 1);
    for (const x of new Set(sentences(r.text ?? ''))) seen.set(fnv(x), (seen.get(fnv(x)) ?? 0) + 1);
  }
  const split = rows.map((r) => sentences(r.text ?? ''));
  const rare = all.length / 50;
  const out = [];
  for (const i of pick(
    rows.map((_, i) => i).filter((i) => split[i].length > 3),
    n * 2,
  )) {
    const fit = split[i].filter((x) => {
      const k = words(x).length;
      return k >= 8 && k <= 40 && seen.get(fnv(x)) === 1;
    });
    if (fit.length === 0) continue;
    const sentence = fit[rnd(fit.length)];
    const ws = [...new Set(words(sentence))].filter((w) => !/^\d+$/.test(w) && w.length >= 2 && df.get(w) <= rare);
    if (ws.length < 2) continue;
    const rarer = [...ws].sort((a, b) => df.get(a) - df.get(b) || (a < b ? -1 : 1)).slice(0, Math.max(2, Math.ceil(ws.length / 2)));
    const k = Math.min(rarer.length, 2 + rnd(4));
    const chosen = new Set();
    while (chosen.size < k) chosen.add(rarer[rnd(rarer.length)]);
    let q = ws.filter((w) => chosen.has(w));
    if (rnd(2) === 1)
      q = q
        .map((w) => [rnd(1000), w])
        .sort((a, b) => a[0] - b[0])
        .map((x) => x[1]);
    out.push({ query: q.join(' '), url: rows[i].url, sentence });
    if (out.length >= n) break;
  }
  return out;
}

/** The three query sets, each a list of { query, url }. */
export function querySets(db, words, n = 300) {
  const all = pagesOf(db, true);
  return querySetsOf(
    all.filter((r) => r.mime === 'text/html'),
    words,
    n,
    all,
  );
}

/**
 * The HTML pages of an index (with `all`, every document it serves): URL, MIME type, title and
 * text. Since schema 4 the text is in the segments (textColumn registers nwax_text where the
 * rows lack it).
 */
export function pagesOf(db, all = false) {
  return db.prepare(`SELECT url, mime, title, ${textColumn(db)} AS text FROM docs WHERE deleted = 0${all ? '' : " AND mime = 'text/html'"}`).all();
}

/** The three query sets of pages `rows` (the answers), among the documents `all` (word and sentence counts). */
export function querySetsOf(rows, words, n = 300, all = rows) {
  const rnd = rng(7);
  const byTitle = new Map();
  for (const r of rows) if (r.title) byTitle.set(r.title, (byTitle.get(r.title) ?? 0) + 1);
  const pick = (list, k) => {
    const out = [];
    const seen = new Set();
    while (out.length < Math.min(k, list.length)) {
      const i = rnd(list.length);
      if (!seen.has(i)) {
        seen.add(i);
        out.push(list[i]);
      }
    }
    return out;
  };
  // Titles that name one page only (a title shared by several pages has no one right answer).
  const title = pick(
    rows.filter((r) => r.title && byTitle.get(r.title) === 1 && words(r.title).length >= 1),
    n,
  ).map((r) => ({ query: words(r.title).slice(0, 32).join(' '), url: r.url }));
  const passage = rememberedPassages(rows, words, pick, rnd, n, all);
  const navigational = rows
    .filter((r) => /\/index\.html$/.test(r.url))
    .map((r) => {
      const dirs = new URL(r.url).pathname.split('/').filter(Boolean).slice(0, -1);
      return { query: dirs.flatMap((d) => words(d)).join(' '), url: r.url, depth: dirs.length };
    })
    .filter((q) => q.depth >= 1 && q.depth <= 2 && q.query);
  return { title, passage, navigational };
}

export function evaluate(searcher, set, ranking, extra = {}) {
  let rr = 0;
  let s1 = 0;
  let s10 = 0;
  for (const q of set) {
    let hits;
    try {
      hits = searcher.view().search(q.query, { hits: 10, snippets: false, ranking, cache: false, ...extra }).hits;
    } catch {
      hits = [];
    }
    const at = hits.findIndex((h) => h.url === q.url);
    if (at >= 0) {
      rr += 1 / (at + 1);
      if (at === 0) s1++;
      s10++;
    }
  }
  const n = set.length || 1;
  return { mrr: rr / n, s1: s1 / n, s10: s10 / n };
}

/**
 * The peers on the same documents' titles and texts: a bare SQLite FTS5 table (unicode61, the words ANDed,
 * BM25 alone, title and text weighed alike) and Lucene 8 (bench/lucene/MultilingualLucene.java:
 * its best analysis chain by MRR@10, BM25, the title boosted 2, the words ORed as its query
 * parser does), where a JDK and Debian's liblucene8-java are installed.
 */
export function peers(rows, sets, work, Database) {
  const db = new Database(':memory:');
  db.exec('CREATE VIRTUAL TABLE t USING fts5(url UNINDEXED, title, body)');
  const put = db.prepare('INSERT INTO t(url, title, body) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const r of rows) put.run(r.url, r.title ?? '', r.text ?? '');
  })();
  const find = db.prepare('SELECT url FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10').pluck();
  const bare = {};
  for (const [kind, set] of Object.entries(sets)) {
    let rr = 0;
    let s1 = 0;
    let s10 = 0;
    for (const q of set) {
      const terms = q.query
        .split(/\s+/)
        .filter(Boolean)
        .map((w) => `"${w.replace(/"/g, '""')}"`);
      let urls = [];
      try {
        urls = terms.length ? find.all(terms.join(' AND ')) : [];
      } catch {
        urls = [];
      }
      const at = urls.indexOf(q.url);
      if (at >= 0) {
        rr += 1 / (at + 1);
        if (at === 0) s1++;
        s10++;
      }
    }
    const n = set.length || 1;
    bare[kind] = { mrr: rr / n, s1: s1 / n, s10: s10 / n };
  }
  db.close();
  mkdirSync(work, { recursive: true });
  const queries = Object.entries(sets).flatMap(([kind, set]) => set.map((q) => ({ lang: 'en', kind, query: q.query, relevant: [q.url] })));
  const best = lucene(
    rows.map((r) => ({ lang: 'en', url: r.url, title: r.title ?? '', text: r.text ?? '' })),
    queries,
    work,
  );
  const luc = best && Object.fromEntries(Object.keys(sets).map((kind) => [kind, best.get(`en ${kind}`)]));
  return { bare, lucene: luc };
}

/**
 * The same crawl indexed with the defaults (one partition per thread): its crawldb, linkdb and
 * segment linked, the index and dates made anew unless current. Returns its directory.
 */
async function defaultPartitions(crawl) {
  const dir = `${crawl}-default-parts`;
  if (
    existsSync(join(dir, 'indexes', '_SUCCESS')) &&
    (await indexIsCurrent(join(dir, 'indexes', 'part-00000'))) &&
    existsSync(join(dir, 'pindexes', 'part-00000', 'dates'))
  )
    return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const d of ['crawldb', 'linkdb', 'segments']) symlinkSync(join(crawl, d), join(dir, d));
  const run = (...args) => execFileSync('node', [NWAX, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const seg = join(dir, 'segments', readdirSync(join(crawl, 'segments'))[0]);
  run('index', join(dir, 'indexes'), join(dir, 'crawldb'), join(dir, 'linkdb'), seg);
  for (const part of readdirSync(join(dir, 'indexes')).filter((p) => p.startsWith('part-'))) {
    run('add-dates', join(dir, 'indexes', part), join(dir, 'indexes', part), join(dir, 'pindexes', part, 'dates'), join(crawl, 'all.dup'));
  }
  return dir;
}

/** The prose corpus (bench/make-prose-corpus.sh; NWAX_PROSE_DIR, default /tmp/nwax-prose). */
const PROSE_DIR = process.env.NWAX_PROSE_DIR ?? '/tmp/nwax-prose';

/**
 * A prose corpus (bench/make-prose-corpus.sh into `dir`, in language `lang`) imported and
 * indexed by this nwax (one partition), made anew unless current. Returns its crawl.
 */
export async function proseCrawl(dir = PROSE_DIR, lang = 'en') {
  execFileSync('bash', [join(ROOT, 'bench', 'make-prose-corpus.sh'), dir], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NWAX_PROSE_LANG: lang },
  });
  const crawl = join(dir, 'crawl');
  const part = join(crawl, 'indexes', 'part-00000');
  // Made anew where the archive was (its .done line names its pages, size and time).
  const made = readFileSync(join(dir, 'prose.done'), 'utf8');
  const stamp = join(crawl, 'made-from');
  if (existsSync(join(crawl, 'indexes', '_SUCCESS')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === made && (await indexIsCurrent(part))) return crawl;
  rmSync(crawl, { recursive: true, force: true });
  mkdirSync(crawl, { recursive: true });
  const seg = join(crawl, 'segments', '20200101000000');
  writeFileSync(join(crawl, 'manifest'), `${join(dir, 'prose.warc.gz')} prose\n`);
  const run = (...args) => execFileSync('node', [NWAX, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  run('import', join(crawl, 'manifest'), seg);
  run('updatedb', join(crawl, 'crawldb'), seg);
  run('invertlinks', join(crawl, 'linkdb'), seg);
  run('index', '--reduces', '1', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg);
  writeFileSync(stamp, made);
  return crawl;
}

/** Title and passage queries on the prose corpus: nwax, its variants, and the peers on the same text. */
export async function proseRelevance(Database, words, ranking, Searcher) {
  const crawl = await proseCrawl();
  const db = new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true });
  const all = pagesOf(db, true);
  const { title, passage } = querySetsOf(
    all.filter((r) => r.mime === 'text/html'),
    words,
    300,
    all,
  );
  db.close();
  const sets = { title, passage };
  const peer = peers(all, sets, join(PROSE_DIR, 'relevance-peers'), Database);
  const searcher = new Searcher(crawl);
  const cells = (r) => [r.mrr.toFixed(3), r.s1.toFixed(2), r.s10.toFixed(2)];
  const rows = [['ranking', ...Object.keys(sets).flatMap((k) => [`${k} MRR@10`, 'S@1', 'S@10'])]];
  const variants = ranking
    ? {
        'nwax (defaults)': ranking.DEFAULT_WEIGHTS,
        'nwax without near': { ...ranking.DEFAULT_WEIGHTS, near: 0 },
        'nwax without titled': { ...ranking.DEFAULT_WEIGHTS, titled: 0 },
        'plain BM25 (field weights)': ranking.BM25_ONLY,
      }
    : { 'nwax (this build)': undefined };
  for (const [name, w] of Object.entries(variants)) rows.push([name, ...Object.values(sets).flatMap((set) => cells(evaluate(searcher, set, w)))]);
  searcher.close();
  rows.push(['bare FTS5 BM25 (unicode61, same text)', ...Object.keys(sets).flatMap((k) => cells(peer.bare[k]))]);
  if (peer.lucene)
    rows.push(['Lucene 8, best chain (same text)', ...Object.keys(sets).flatMap((k) => (peer.lucene[k] ? cells(peer.lucene[k]) : ['-', '-', '-']))]);
  const nwaxPassage = Number(rows[1][4]);
  return [
    `prose (${crawl}: ${all.length} documents: manuals): ${title.length} title queries, ${passage.length} passage queries`,
    table(rows),
    `passage MRR@10: nwax ${nwaxPassage.toFixed(3)} / bare FTS5 BM25 ${peer.bare.passage.mrr.toFixed(3)} = ${(nwaxPassage / peer.bare.passage.mrr).toFixed(2)}x (target >= 1.15x)`,
  ].join('\n');
}

export async function benchRelevance() {
  const crawl = join(CORPUS_DIR, 'serve-ops-crawl');
  await buildCrawl(crawl);
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const { words } = await import(join(ROOT, 'dist', 'search', 'query.js'));
  const { Searcher } = await import(join(ROOT, 'dist', 'search', 'searcher.js'));
  const ranking = await import(join(ROOT, 'dist', 'search', 'ranking.js')).catch(() => undefined);
  const db = new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true });
  await textReader();
  const all = pagesOf(db, true);
  const sets = querySetsOf(
    all.filter((r) => r.mime === 'text/html'),
    words,
    300,
    all,
  );
  db.close();
  const peer = peers(all, sets, join(CORPUS_DIR, 'relevance-peers'), Database);
  const searcher = new Searcher(crawl);
  const variants = ranking
    ? {
        'nwax (defaults)': ranking.DEFAULT_WEIGHTS,
        'plain BM25 (field weights)': ranking.BM25_ONLY,
        ...Object.fromEntries(Object.keys(ranking.BM25_ONLY).map((f) => [`BM25 + ${f} alone`, { ...ranking.BM25_ONLY, [f]: ranking.DEFAULT_WEIGHTS[f] }])),
        // Each feature's share: the defaults without it.
        ...Object.fromEntries(Object.keys(ranking.BM25_ONLY).map((f) => [`nwax without ${f}`, { ...ranking.DEFAULT_WEIGHTS, [f]: 0 }])),
      }
    : { 'nwax (this build)': undefined };
  const rows = [['ranking', ...Object.keys(sets).flatMap((k) => [`${k} MRR@10`, 'S@1', 'S@10'])]];
  for (const [name, w] of Object.entries(variants)) {
    const cells = [];
    for (const set of Object.values(sets)) {
      const r = evaluate(searcher, set, w);
      cells.push(r.mrr.toFixed(3), r.s1.toFixed(2), r.s10.toFixed(2));
    }
    rows.push([name, ...cells]);
  }
  if (ranking) {
    // The defaults with every match ranked, and with the ranking capped at 1,000 matches (the
    // default cap, 10,000, caps few queries on a corpus of this size).
    for (const [name, extra] of [
      ['nwax (defaults), exact ranking', { exact: true }],
      ['nwax (defaults), capped at 1,000', { maxScored: 1000 }],
    ]) {
      rows.push([
        name,
        ...Object.values(sets).flatMap((set) => {
          const r = evaluate(searcher, set, ranking.DEFAULT_WEIGHTS, extra);
          return [r.mrr.toFixed(3), r.s1.toFixed(2), r.s10.toFixed(2)];
        }),
      ]);
    }
  }
  searcher.close();
  // The index as a user now gets it: one partition per thread, each ranked on its own
  // statistics and the hits merged (the same queries, drawn from the one-partition index).
  const parted = await defaultPartitions(crawl);
  const partCount = readdirSync(join(parted, 'indexes')).filter((p) => p.startsWith('part-')).length;
  const partedSearcher = new Searcher(parted);
  rows.push([
    `nwax (defaults), index in ${partCount} partitions`,
    ...Object.values(sets).flatMap((set) => {
      const r = evaluate(partedSearcher, set, ranking?.DEFAULT_WEIGHTS);
      return [r.mrr.toFixed(3), r.s1.toFixed(2), r.s10.toFixed(2)];
    }),
  ]);
  partedSearcher.close();
  const cells = (r) => [r.mrr.toFixed(3), r.s1.toFixed(2), r.s10.toFixed(2)];
  rows.push(['bare FTS5 BM25 (unicode61, same text)', ...Object.keys(sets).flatMap((k) => cells(peer.bare[k]))]);
  if (peer.lucene)
    rows.push(['Lucene 8, best chain (same text)', ...Object.keys(sets).flatMap((k) => (peer.lucene[k] ? cells(peer.lucene[k]) : ['-', '-', '-']))]);
  const nwaxPassage = rows.find((r) => r[0] === 'nwax (defaults)');
  const passageAt = 1 + Object.keys(sets).indexOf('passage') * 3;
  const ratio = nwaxPassage ? Number(nwaxPassage[passageAt]) / peer.bare.passage.mrr : Number.NaN;
  const prose = await proseRelevance(Database, words, ranking, Searcher);
  return [
    `relevance on ${crawl}: ${Object.entries(sets)
      .map(([k, v]) => `${v.length} ${k} queries`)
      .join(', ')}; hitsPerSite 0 (the searcher's own default)`,
    table(rows),
    `passage MRR@10: nwax ${nwaxPassage?.[passageAt]} / bare FTS5 BM25 ${peer.bare.passage.mrr.toFixed(3)} = ${ratio.toFixed(2)}x (target >= 1.15x)${peer.lucene ? '' : '; Lucene not measured (needs default-jdk-headless liblucene8-java libicu4j-java)'}`,
    '',
    prose,
  ].join('\n');
}

if (!existsSync(join(ROOT, 'dist', 'search', 'searcher.js'))) throw new Error('build first: npm run build');
