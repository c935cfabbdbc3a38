// npm run bench -- korean: Korean words with their particles, nwax beside Lucene 8's analyzers
// (StandardAnalyzer, CJK bigrams, ICU, Nori: bench/lucene/MultilingualLucene.java) on the same
// pages. The pages: Debian's Korean manuals (bench/make-prose-corpus.sh with NWAX_PROSE_LANG=ko:
// the Debian Administrator's Handbook's ko-KR and the installation guide's ko), imported and
// indexed by nwax. Single-word queries made from the pages' own words, each a noun as Korean
// writes it, joined to a particle (서식을, 데이터에서):
// - noun: the noun alone (서식): found inside every form of it;
// - written: the word as the page writes it (서식을);
// - other particle: the noun with a particle the page never joins to it (서식이 where the page
//   has 서식을): a searcher types the form that comes to mind.
// The answers: every page holding the noun. Nouns held by at most 3 pages, so each query has
// few answers. MRR@10, success@1 and @10, and queries with no hit. No timing here.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CORPUS_DIR, ROOT, table } from './lib.mjs';
import { pagesOf, proseCrawl, textReader } from './relevance.mjs';
import { luceneChains } from './multilingual.mjs';

const require = createRequire(import.meta.url);
const DIR = process.env.NWAX_PROSE_KO_DIR ?? '/tmp/nwax-prose-ko';

/** Whether a Hangul syllable ends in a consonant (batchim): 을, 이, 은 follow it, 를, 가, 는 follow a vowel. */
function closed(syllable) {
  const c = syllable.charCodeAt(0) - 0xac00;
  return c >= 0 && c < 11172 && c % 28 !== 0;
}

function rng(seed) {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

/**
 * Query sets of the pages: { kind, query, relevant: [url] }. `particleStem`: a word's noun where
 * it ends in a particle (nwax's own list, src/analysis/korean.ts: the words it would search by
 * their nouns; a noun typed bare or as written does not depend on it).
 */
export function koreanQueries(pages, particleStem, perKind = 150) {
  const rnd = rng(75);
  // Every word written as noun + particle, by noun: the forms seen and the pages.
  const nouns = new Map();
  for (const p of pages)
    for (const w of new Set(`${p.title} ${p.text}`.split(/[^\uac00-\ud7a3]+/))) {
      const noun = particleStem(w);
      if (noun === undefined) continue;
      const n = nouns.get(noun) ?? nouns.set(noun, { forms: new Set(), pages: new Set() }).get(noun);
      n.forms.add(w);
    }
  const texts = pages.map((p) => `${p.title} ${p.text}`);
  for (const [noun, n] of nouns) for (const [i, t] of texts.entries()) if (t.includes(noun)) n.pages.add(pages[i].url);
  const rare = [...nouns].filter(([noun, n]) => n.pages.size >= 1 && n.pages.size <= 3 && noun.length >= 2).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const pick = (k) => {
    const out = [];
    const seen = new Set();
    while (out.length < Math.min(k, rare.length)) {
      const i = rnd(rare.length);
      if (!seen.has(i)) {
        seen.add(i);
        out.push(rare[i]);
      }
    }
    return out;
  };
  const queries = [];
  for (const [noun, n] of pick(perKind)) queries.push({ kind: 'noun', query: noun, relevant: [...n.pages] });
  for (const [, n] of pick(perKind)) {
    const forms = [...n.forms].sort();
    queries.push({ kind: 'written', query: forms[rnd(forms.length)], relevant: [...n.pages] });
  }
  for (const [noun, n] of pick(perKind * 2)) {
    const fit = closed(noun[noun.length - 1]) ? ['을', '이', '은', '과', '으로', '에서', '의'] : ['를', '가', '는', '와', '로', '에서', '의'];
    const other = fit.filter((x) => !n.forms.has(noun + x));
    if (other.length === 0) continue;
    queries.push({ kind: 'other particle', query: noun + other[rnd(other.length)], relevant: [...n.pages] });
    if (queries.filter((q) => q.kind === 'other particle').length >= perKind) break;
  }
  return queries;
}

/** nwax's scores per kind: { n, mrr, s1, s10, zero }. */
export async function nwaxScores(crawl, queries, root = ROOT) {
  const { Searcher } = await import(join(root, 'dist', 'search', 'searcher.js'));
  const s = new Searcher(crawl);
  const out = new Map();
  for (const q of queries) {
    const a = out.get(q.kind) ?? out.set(q.kind, { n: 0, rr: 0, s1: 0, s10: 0, zero: 0 }).get(q.kind);
    a.n++;
    const hits = s.view().search(q.query, { hits: 10, hitsPerSite: 0, snippets: false, cache: false }).hits;
    if (hits.length === 0) a.zero++;
    const at = hits.findIndex((h) => q.relevant.includes(h.url));
    if (at >= 0) {
      a.rr += 1 / (at + 1);
      if (at === 0) a.s1++;
      a.s10++;
    }
  }
  s.close();
  return new Map([...out].map(([k, a]) => [k, { n: a.n, mrr: a.rr / a.n, s1: a.s1 / a.n, s10: a.s10 / a.n, zero: a.zero }]));
}

export async function benchKorean() {
  const crawl = await proseCrawl(DIR, 'ko');
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  await textReader();
  const db = new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true });
  // The pages mostly in Hangul (the handbook's ko-KR leaves some sections in English).
  const pages = pagesOf(db).filter((p) => (`${p.title} ${p.text}`.match(/[\uac00-\ud7a3]/g)?.length ?? 0) > 200);
  db.close();
  const { particleStem } = await import(join(ROOT, 'dist', 'analysis', 'korean.js'));
  const queries = koreanQueries(pages, particleStem);
  const nwax = await nwaxScores(crawl, queries);
  const luc = luceneChains(
    pages.map((p) => ({ lang: 'ko', url: p.url, title: p.title ?? '', text: p.text ?? '' })),
    queries.map((q) => ({ lang: 'ko', ...q })),
    join(CORPUS_DIR, 'korean-lucene'),
  );
  const kinds = [...new Set(queries.map((q) => q.kind))];
  const f = (r) => (r ? `${r.mrr.toFixed(3)} / ${r.s1.toFixed(2)} / ${r.s10.toFixed(2)} / ${r.zero}` : '-');
  const chains = luc ? [...new Set(luc.map((r) => r.chain))] : [];
  const rows = [
    ['analysis', ...kinds.map((k) => `${k} (${queries.filter((q) => q.kind === k).length}): MRR@10 / S@1 / S@10 / zero`)],
    ['nwax', ...kinds.map((k) => f(nwax.get(k)))],
    ...chains.map((c) => [`Lucene ${c}`, ...kinds.map((k) => f(luc.find((r) => r.chain === c && r.kind === k)))]),
  ];
  const gap = luc ? Math.max(...kinds.map((k) => Math.max(...luc.filter((r) => r.kind === k).map((r) => r.mrr)) - (nwax.get(k)?.mrr ?? 0))) : Number.NaN;
  return [
    `Korean words and particles: ${pages.length} Korean pages of Debian's manuals (${crawl}), ${queries.length} single-word queries`,
    table(rows),
    luc
      ? `  largest lead of Lucene's best analyzer over nwax, MRR@10: ${gap.toFixed(3)} (target <= 0.05)`
      : '  Lucene not measured (needs default-jdk-headless liblucene8-java libicu4j-java)',
  ].join('\n');
}
