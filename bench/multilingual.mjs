// npm run bench -- multilingual: search in eleven languages and scripts, nwax beside Lucene 8.
//
// The corpus: the same 300 LibreOffice help pages in en-US de vi tr ru el hi ko ja zh-CN km,
// crawled by wget into one WARC (bench/make-multilingual-corpus.sh; NWAX_ML_DIR, default
// /tmp/nwax-multilingual). nwax imports and indexes it (the index build timed, its size taken).
// Two queries per page, as a user types them: its title (known item), and one rare word of the
// title (the title's word, by ICU's word breaks, that the fewest pages of its language hold; for
// the scripts without spaces a dictionary word shorter than the title). A hit is right when it
// is a page of that language with that title. Per language: MRR@10, success@1 and @10, the
// queries with no hit, for nwax (in the language's pages: `lang:XX`; and over all eleven) and for
// Lucene 8 from Debian (liblucene8-java, a JDK: bench/lucene/MultilingualLucene.java, one index
// per language and chain; the best chain by MRR@10 shown). Then query latency p50/p99, and the
// language detector's agreement with the pages' own `<html lang>` (eld, tinyld, franc when
// installed in NWAX_ML_DETECTORS, a node_modules directory), and charset detection on the pages
// re-encoded in eight legacy encodings with no declaration.
//
// NWAX_ML_BEFORE=DIR: an older nwax checkout (built), measured beside this one (all languages).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, median, table } from './lib.mjs';

const DIR = process.env.NWAX_ML_DIR ?? '/tmp/nwax-multilingual';
const LUCENE_JARS = ['core', 'analyzers-common', 'analyzers-icu', 'analyzers-kuromoji', 'analyzers-nori', 'analyzers-smartcn', 'queryparser'];

function decodeEntities(s) {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/gi, (_m, e) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }[e.toLowerCase()];
  });
}

/** Title and visible text of a help page (for the queries' document frequencies and Lucene). */
export function readPage(file) {
  const html = readFileSync(file, 'utf8');
  const title = decodeEntities(/<title>([^<]*)<\/title>/i.exec(html)?.[1] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  const body = html
    .slice(html.search(/<body/i))
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ');
  return { title, text: decodeEntities(body).replace(/\s+/g, ' ').trim() };
}

const langCode = (dir) => dir.split('-')[0].toLowerCase();
const NO_SPACES = new Set(['ja', 'zh', 'km', 'th']);

/** The two queries of each page: its title, and its rarest word. */
export function makeQueries(pages) {
  const byLang = new Map();
  for (const p of pages) (byLang.get(p.lang) ?? byLang.set(p.lang, []).get(p.lang)).push(p);
  const queries = [];
  for (const [lang, list] of byLang) {
    const seg = new Intl.Segmenter(langCode(lang), { granularity: 'word' });
    const haystacks = list.map((p) => `${p.title} ${p.text}`.toLowerCase());
    for (const p of list) {
      const relevant = list.filter((o) => o.title === p.title).map((o) => o.url);
      if (!p.title) continue;
      queries.push({ lang, kind: 'title', query: p.title, relevant });
      const min = NO_SPACES.has(langCode(lang)) ? 2 : 3;
      const words = [...seg.segment(p.title)].filter(
        (s) => s.isWordLike && [...s.segment].length >= min && !/^\d+$/.test(s.segment) && s.segment !== p.title.trim(),
      );
      let best;
      for (const w of words) {
        const df = haystacks.filter((h) => h.includes(w.segment.toLowerCase())).length;
        if (!best || df < best.df || (df === best.df && w.segment.length > best.word.length)) best = { word: w.segment, df };
      }
      if (best) queries.push({ lang, kind: 'word', query: best.word, relevant });
    }
  }
  return queries;
}

function nwaxRun(root, args) {
  const r = spawnSync('node', [join(root, 'bin', 'run.js'), ...args], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 3) throw new Error(`nwax ${args.join(' ')}: ${r.stderr}`);
  return r;
}

/** import, updatedb, invertlinks once; index `runs` times (timed). */
export function build(root, crawl, runs) {
  const seg = join(crawl, 'segments', '20200101000000');
  mkdirSync(crawl, { recursive: true });
  writeFileSync(join(crawl, 'manifest'), `${join(DIR, 'multilingual.warc.gz')} multilingual\n`);
  nwaxRun(root, ['import', '--force', join(crawl, 'manifest'), seg]);
  nwaxRun(root, ['updatedb', '--force', join(crawl, 'crawldb'), seg]);
  nwaxRun(root, ['invertlinks', '--force', join(crawl, 'linkdb'), seg]);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    // One partition, as the figures were measured: the size below is that part's.
    nwaxRun(root, ['index', '--force', '--reduces', '1', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg]);
    times.push((performance.now() - t0) / 1000);
  }
  const part = join(crawl, 'indexes', 'part-00000');
  return { seconds: median(times), bytes: statSync(part).size };
}

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
}

/** Scores of one engine: per language and kind, { n, mrr, s1, s10, zero }. */
export async function evaluate(root, crawl, queries, withLang, ranking) {
  const { Searcher } = await import(join(root, 'dist', 'search', 'searcher.js'));
  const s = new Searcher(crawl);
  const scores = new Map();
  const ms = [];
  for (const q of queries) {
    const key = `${q.lang} ${q.kind}`;
    const a = scores.get(key) ?? scores.set(key, { n: 0, rr: 0, s1: 0, s10: 0, zero: 0 }).get(key);
    a.n++;
    // The query as typed; quotes would make it a phrase, so they are left out as a user's box would.
    const text = `${q.query.replace(/"/g, ' ')}${withLang ? ` lang:${langCode(q.lang)}` : ''}`;
    let r;
    const t0 = performance.now();
    try {
      r = s.view().search(text, { hits: 10, hitsPerSite: 0, snippets: false, cache: false, ranking });
    } catch {
      a.zero++;
      continue;
    }
    ms.push(performance.now() - t0);
    if (r.hits.length === 0) a.zero++;
    const at = r.hits.findIndex((h) => q.relevant.includes(h.url));
    if (at >= 0) {
      a.rr += 1 / (at + 1);
      if (at === 0) a.s1++;
      a.s10++;
    }
  }
  s.close();
  const out = new Map([...scores].map(([k, a]) => [k, { n: a.n, mrr: a.rr / a.n, s1: a.s1 / a.n, s10: a.s10 / a.n, zero: a.zero }]));
  return { scores: out, p50: pct(ms, 0.5), p99: pct(ms, 0.99) };
}

/** Lucene's scores, best chain per language and kind (by MRR@10), or undefined without a JDK and Lucene. */
export function lucene(pages, queries, work) {
  const all = luceneChains(pages, queries, work);
  if (!all) return undefined;
  const best = new Map();
  for (const r of all) {
    const key = `${r.lang} ${r.kind}`;
    if (!best.has(key) || r.mrr > best.get(key).mrr) best.set(key, r);
  }
  return best;
}

/** Lucene's scores of every analysis chain: { lang, chain, kind, n, mrr, s1, s10, zero } each, or undefined without a JDK and Lucene. */
export function luceneChains(pages, queries, work) {
  const jars = LUCENE_JARS.map((j) => `/usr/share/java/lucene-${j}-8.7.0.jar`);
  jars.push('/usr/share/java/icu4j.jar');
  if (!jars.every(existsSync) || spawnSync('javac', ['-version']).status !== 0) return undefined;
  const cls = join(work, 'lucene-classes');
  mkdirSync(cls, { recursive: true });
  const cp = jars.join(':');
  execFileSync('javac', ['-d', cls, '-cp', cp, join(ROOT, 'bench', 'lucene', 'MultilingualLucene.java')]);
  const flat = (s) => s.replace(/[\t\n\r]/g, ' ');
  writeFileSync(join(work, 'lucene-pages.tsv'), pages.map((p) => [p.lang, p.url, flat(p.title), flat(p.text)].join('\t')).join('\n') + '\n');
  writeFileSync(join(work, 'lucene-queries.tsv'), queries.map((q) => [q.lang, q.kind, flat(q.query), q.relevant.join(' ')].join('\t')).join('\n') + '\n');
  const out = execFileSync('java', ['-cp', `${cls}:${cp}`, 'MultilingualLucene', join(work, 'lucene-pages.tsv'), join(work, 'lucene-queries.tsv')], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

/** Agreement of the language detectors with the pages' own declarations. */
async function detectors(pages) {
  const { detectLanguage } = await import(join(ROOT, 'dist', 'analysis', 'language.js'));
  const rows = [['detector', 'ms/page', ...[...new Set(pages.map((p) => p.lang))].map(langCode)]];
  const run = (name, fn) => {
    const ok = new Map();
    const t0 = performance.now();
    for (const p of pages) if (fn(`${p.title}\n${p.text}`) === langCode(p.lang)) ok.set(p.lang, (ok.get(p.lang) ?? 0) + 1);
    const per = (performance.now() - t0) / pages.length;
    const langs = [...new Set(pages.map((p) => p.lang))];
    rows.push([name, per.toFixed(3), ...langs.map((l) => ((ok.get(l) ?? 0) / pages.filter((p) => p.lang === l).length).toFixed(2))]);
  };
  run('nwax (script, then eld extrasmall)', detectLanguage);
  const mods = process.env.NWAX_ML_DETECTORS;
  if (mods) {
    const iso3 = { eng: 'en', deu: 'de', vie: 'vi', tur: 'tr', rus: 'ru', ell: 'el', hin: 'hi', kor: 'ko', jpn: 'ja', cmn: 'zh', khm: 'km' };
    const sample = (t) => t.slice(0, 1000);
    try {
      const { eld } = await import(join(mods, 'eld', 'src', 'entries', 'static.extrasmall.js'));
      run('eld extrasmall alone', (t) => eld.detect(sample(t)).language);
    } catch {
      /* not installed */
    }
    try {
      const tinyld = await import(join(mods, 'tinyld', 'dist', 'tinyld.normal.node.mjs'));
      run('tinyld', (t) => tinyld.detect(sample(t)));
    } catch {
      /* not installed */
    }
    try {
      const { franc } = await import(join(mods, 'franc-min', 'index.js'));
      run('franc-min', (t) => iso3[franc(sample(t))] ?? '');
    } catch {
      /* not installed */
    }
  }
  return rows;
}

/**
 * Pages that declare their charset nowhere: the corpus's pages re-encoded (glibc iconv, `-c`
 * dropping what an encoding cannot hold), their `<meta charset>` removed, parsed by nwax with a
 * Content-Type without charset. Right when the text extracted is the text of the same bytes
 * with their charset declared.
 */
export async function charsets(pages) {
  const { ContentParser } = await import(join(ROOT, 'dist', 'parse', 'parse.js'));
  const parse = async (bytes, charset) => {
    const contentType = charset ? `text/html; charset=${charset}` : 'text/html';
    const p = new ContentParser({ url: 'http://x/', mime: 'text/html', contentType, textLimit: 1 << 20, byteLimit: 1 << 24, maxOutlinks: 0 });
    for (let i = 0; i < bytes.length; i += 65536) p.write(bytes.subarray(i, i + 65536));
    return p.finish();
  };
  const cases = [
    ['windows-1251', 'ru'],
    ['KOI8-R', 'ru'],
    ['ISO-8859-2', 'de'],
    ['windows-1252', 'de'],
    ['windows-1252', 'en-US'],
    ['SHIFT_JIS', 'ja'],
    ['EUC-KR', 'ko'],
    ['GB18030', 'zh-CN'],
    ['BIG5', 'zh-CN'],
  ];
  const rows = [['encoding', 'pages of', 'pages', 'decoded right', 'detected as (most)']];
  for (const [enc, lang] of cases) {
    const list = pages.filter((p) => p.lang === lang).slice(0, 50);
    let right = 0;
    const labels = new Map();
    for (const p of list) {
      const html = readFileSync(p.file, 'utf8').replace(/<meta[^>]*charset[^>]*>/gi, '');
      const encoded = spawnSync('iconv', ['-c', '-f', 'UTF-8', '-t', enc], { input: html, maxBuffer: 1 << 26 }).stdout;
      // The truth: the same bytes with their charset declared (WHATWG's tables, as a browser).
      const [got, want] = [await parse(encoded), await parse(encoded, enc)];
      if (got.text === want.text && got.title === want.title) right++;
      labels.set(got.charset, (labels.get(got.charset) ?? 0) + 1);
    }
    const top = [...labels]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 2)
      .map(([l, n]) => `${l} ${n}`)
      .join(', ');
    rows.push([enc, lang, list.length, (right / list.length).toFixed(2), top]);
  }
  return rows;
}

export async function benchMultilingual({ runs = 3 } = {}) {
  execFileSync('bash', [join(ROOT, 'bench', 'make-multilingual-corpus.sh'), DIR], { stdio: ['ignore', 'ignore', 'inherit'] });
  const pages = readFileSync(join(DIR, 'pages.tsv'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const [lang, url, file] = l.split('\t');
      return { lang, url, file, ...readPage(file) };
    });
  const queries = makeQueries(pages);
  const work = join(DIR, 'work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const indexRuns = Math.min(runs, 3);
  const after = build(ROOT, join(work, 'after'), indexRuns);
  const nwaxLang = await evaluate(ROOT, join(work, 'after'), queries, true);
  const nwaxAll = await evaluate(ROOT, join(work, 'after'), queries, false);
  const before = process.env.NWAX_ML_BEFORE ? build(process.env.NWAX_ML_BEFORE, join(work, 'before'), indexRuns) : undefined;
  const nwaxBefore = before ? await evaluate(process.env.NWAX_ML_BEFORE, join(work, 'before'), queries, false) : undefined;
  const luc = lucene(pages, queries, work);
  const f = (x) => x.toFixed(2);
  const rows = [
    [
      'language',
      'kind',
      'queries',
      'nwax lang: MRR / S@1 / S@10 / zero',
      'nwax all langs MRR / S@10 / zero',
      ...(nwaxBefore ? ['before MRR / S@10 / zero'] : []),
      ...(luc ? ['Lucene best chain: MRR / S@1 / S@10 / zero'] : []),
    ],
  ];
  let worstS10 = 1;
  let worstGap = -1;
  for (const lang of [...new Set(pages.map((p) => p.lang))]) {
    for (const kind of ['title', 'word']) {
      const key = `${lang} ${kind}`;
      const a = nwaxLang.scores.get(key);
      if (!a) continue;
      const b = nwaxAll.scores.get(key);
      const o = nwaxBefore?.scores.get(key);
      const l = luc?.get(key);
      worstS10 = Math.min(worstS10, a.s10);
      if (l) worstGap = Math.max(worstGap, l.mrr - a.mrr);
      rows.push([
        lang,
        kind,
        a.n,
        `${f(a.mrr)} / ${f(a.s1)} / ${f(a.s10)} / ${a.zero}`,
        `${f(b.mrr)} / ${f(b.s10)} / ${b.zero}`,
        ...(nwaxBefore ? [o ? `${f(o.mrr)} / ${f(o.s10)} / ${o.zero}` : '-'] : []),
        ...(luc ? [l ? `${f(l.mrr)} / ${f(l.s1)} / ${f(l.s10)} / ${l.zero} (${l.chain})` : '-'] : []),
      ]);
    }
  }
  const lines = [
    `multilingual benchmark: ${pages.length} pages (${new Set(pages.map((p) => p.lang)).size} languages), ${queries.length} queries; index medians of ${indexRuns}`,
    table(rows),
    `  worst nwax success@10 (lang:): ${f(worstS10)} (target >= 0.90)${luc ? `; largest Lucene MRR@10 lead: ${f(worstGap)} (target <= 0.02)` : '; Lucene not measured (needs default-jdk-headless liblucene8-java libicu4j-java)'}`,
    table([
      ['index', 'build s (median)', 'size MB', 'query p50 ms', 'query p99 ms'],
      ['nwax (this)', after.seconds.toFixed(2), (after.bytes / 1e6).toFixed(1), nwaxLang.p50.toFixed(2), nwaxLang.p99.toFixed(2)],
      ...(before ? [['nwax (before)', before.seconds.toFixed(2), (before.bytes / 1e6).toFixed(1), nwaxBefore.p50.toFixed(2), nwaxBefore.p99.toFixed(2)]] : []),
    ]),
    "  language detection: share of pages where the detector agrees with the page's <html lang> (the help pages are partly untranslated English, so these are lower bounds):",
    table(await detectors(pages)),
    '  charsets declared nowhere (the pages re-encoded, their meta charset removed): text decoded as the page was written',
    table(await charsets(pages)),
  ];
  return lines.join('\n');
}
