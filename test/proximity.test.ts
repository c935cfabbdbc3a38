/**
 * Passages found (issue 75): the words of one sentence bring its page first.
 *
 * - nwax_near (the ranking extension) and its JavaScript twin (NEAR queries) give every row
 *   the same step, and both the least gap that a search over every choice of occurrences
 *   finds; the extension's passage, and the snippet's own search for it, is where the first
 *   least-gap window of the text starts.
 * - tokenStart numbers a text's terms as the text index does (the positions FTS5 keeps).
 * - Proximity asked only of the candidates that can reach the page gives the page of asking
 *   every candidate: its hits, their order and their scores, with hits per site or without.
 * - A real archive, imported and indexed: the page holding the query's words in one sentence
 *   comes before a hub page holding them far apart (which BM25 alone puts first), its snippet
 *   is that sentence, and a query of one word ranks as BM25 and the other features alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { indexedCollection, seededRandom, tempDir } from './helpers.js';
import { nativeWanted, rankExtension } from '../src/native/addon.js';
import { nearSteps } from '../src/search/js-near.js';
import { LADDER, passageIn, step } from '../src/search/proximity.js';
import { indexText, tokenStart } from '../src/analysis/analyzer.js';
import { Searcher } from '../src/search/searcher.js';
import { BM25_ONLY, DEFAULT_WEIGHTS } from '../src/search/ranking.js';
import { addNearness } from '../src/search/near-bonus.js';
import { collapse, dedupKey, duplicateVersions, mergeVersions, showsAtLeast } from '../src/search/collapse.js';

if (!rankExtension() && process.env.CI === 'true' && nativeWanted('rank'))
  throw new Error('the ranking extension (build/Release/nwax_rank.node) is not built: npm install runs node-gyp');

/** The least gap over every choice of one occurrence per phrase (NEAR's measure), by brute force, and where the first such window starts. */
function leastGap(tokens: string[], phrases: string[][]): { gap: number; start: number } | undefined {
  const at = phrases.map((p) => tokens.flatMap((_, i) => (p.every((w, j) => tokens[i + j] === w) ? [i] : [])));
  if (at.some((a) => a.length === 0)) return undefined;
  let best: { gap: number; start: number; end: number } | undefined;
  const choose = (k: number, starts: number[]) => {
    if (k === phrases.length) {
      const maxStart = Math.max(...starts);
      const gap = maxStart - Math.min(...starts.map((s, i) => s + phrases[i].length));
      const start = Math.min(...starts);
      // The first window: the one whose last-starting occurrence comes first (the extension reads
      // them in order), made of each phrase's latest occurrence before it.
      if (!best || gap < best.gap || (gap === best.gap && (maxStart < best.end || (maxStart === best.end && start > best.start))))
        best = { gap, start, end: maxStart };
      return;
    }
    for (const s of at[k]) choose(k + 1, [...starts, s]);
  };
  choose(0, []);
  return best && { gap: Math.max(0, best.gap), start: best.start };
}

describe('nwax_near and its twin', () => {
  const ext = rankExtension();
  it.runIf(ext !== undefined)('give every row the least gap of NEAR, cut to the ladder, and the passage where its window starts', () => {
    const db = new Database(':memory:');
    (db.loadExtension as (path: string, entry: string) => unknown).call(db, ext!, 'sqlite3_nwaxrank_init');
    db.exec("CREATE VIRTUAL TABLE fts USING fts5(title, content, anchors, content='', tokenize='ascii')");
    const rand = seededRandom(75);
    const vocab = 'a b c d e f g h'.split(' ');
    const docs: string[][] = [];
    for (let i = 0; i < 300; i++) {
      // Mostly filler, so that some windows are wide; some long enough to pass the ladder.
      const n = 5 + Math.floor(rand() * (i % 10 === 0 ? 200 : 40));
      docs.push(Array.from({ length: n }, () => (rand() < 0.25 ? vocab[Math.floor(rand() * vocab.length)] : 'x')));
      db.prepare('INSERT INTO fts(rowid, title, content, anchors) VALUES (?, ?, ?, ?)').run(i + 1, 'a b', docs[i].join(' '), 'c d');
    }
    const ids = docs.map((_, i) => i + 1);
    const steps = new Set<number | 'past'>();
    for (const phrases of [
      [['a'], ['b']],
      [['a'], ['b'], ['c']],
      [['a', 'b'], ['c']],
      [['d'], ['e'], ['f'], ['g']],
      [['h'], ['a', 'x']],
    ]) {
      const fts = phrases.map((p) => `"${p.join(' ')}"`);
      const native = new Map(
        (
          db
            .prepare('SELECT rowid AS id, nwax_near(fts, 0, 1, 0, 1) AS n FROM fts WHERE fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))')
            .raw()
            .all(fts.join(' OR '), JSON.stringify(ids)) as [number, string][]
        ).map(([id, n]) => [id, n.split(' ').map(Number)]),
      );
      const twin = nearSteps(db, fts, ['content'], ids);
      for (const [i, tokens] of docs.entries()) {
        const want = leastGap(tokens, phrases);
        const [gap, start] = native.get(i + 1) ?? [-1, -1];
        expect(gap).toBe(want ? want.gap : -1);
        expect(start).toBe(want ? want.start : -1);
        expect(twin.get(i + 1)).toBe(want ? step(want.gap) : undefined);
        // The snippet's own search (where the twin gives no place) finds the same passage.
        expect(passageIn(tokens.join(' '), phrases)).toBe(want ? want.start : undefined);
        if (want) steps.add(step(want.gap) ?? 'past');
      }
    }
    // Windows of most widths were compared, and some past the ladder.
    expect(steps.size).toBeGreaterThan(LADDER.length / 2);
    expect(steps.has('past')).toBe(true);
    db.close();
  });
});

describe('proximity asked of the candidates that can reach the page', () => {
  interface Cand {
    rank: number;
    title: string;
    url: string;
    digest: string;
    host: string;
    dates: string;
    near?: number;
    asked?: boolean;
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const final = (a: Cand, b: Cand) => a.rank - b.rank || cmp(a.url, b.url) || cmp(a.dates, b.dates);
  /** The page the searcher shows of candidates whose final scores are set: merged, cut per site, sliced. */
  const pageOf = (cands: Cand[], start: number, want: number, perSite: number) =>
    collapse(mergeVersions([...cands].sort(final)), perSite, dedupKey(undefined))
      .shown.slice(start, start + want)
      .map((c) => `${c.url} ${c.digest} ${c.rank}`);

  it('gives the page of asking every candidate, with hits per site and without, over 400 random collections', () => {
    const rand = seededRandom(11);
    let asked = 0;
    let all = 0;
    for (let round = 0; round < 400; round++) {
      const n = 5 + Math.floor(rand() * 120);
      const hosts = 1 + Math.floor(rand() * 12);
      const rarity = rand();
      const base: Cand[] = Array.from({ length: n }, (_, i) => {
        const url = `http://h${Math.floor(rand() * hosts)}.example/p${Math.floor(rand() * n)}`;
        return { rank: -Math.round(rand() * 40) / 4, title: '', url, digest: `D${i % 7}`, host: new URL(url).host, dates: `2020010100000${i % 10}` };
      });
      // Each candidate's nearness, as the index would give it: at most the query's rarity (its
      // words adjacent), often that (the bound met exactly), often none.
      const nearness = base.map(() => {
        const r = rand();
        return r < 0.3 ? 0 : r < 0.6 ? rarity : rand() * rarity;
      });
      const asker = (cands: Cand[]) => ({
        rarity,
        ask: (rows: Cand[]) => {
          for (const r of rows) {
            r.near = nearness[cands.indexOf(r)];
            r.asked = true;
          }
        },
      });
      const start = rand() < 0.3 ? 10 : 0;
      const want = 10;
      const perSite = rand() < 0.5 ? 0 : 1 + Math.floor(rand() * 2);
      const scale = 0.5 + rand() * 3;
      const limit = (start + want) * (perSite ? 10 : 1);
      const every = base.map((c) => ({ ...c }));
      addNearness(every, asker(every), scale, every.length);
      const some = base.map((c) => ({ ...c }));
      const filled = perSite ? (settled: Cand[]) => showsAtLeast([...settled].sort(final), start + want, perSite, dedupKey(undefined)) : undefined;
      addNearness(some, asker(some), scale, limit + duplicateVersions(some), filled);
      expect(pageOf(some, start, want, perSite), `round ${round}`).toEqual(pageOf(every, start, want, perSite));
      asked += some.filter((c) => c.asked).length;
      all += n;
    }
    // The rules leave some candidates unasked (else they would test nothing).
    expect(asked).toBeLessThan(all);
  });
});

describe('tokenStart', () => {
  it('numbers the terms as the text index does, in every script', () => {
    const texts = ['Plain words, and numbers 42 too.', 'Ein Wort über Straße und résumé.', '東京都の天気 and Tokyo 서울에서 만나요', 'mixed東京abc ＡＢＣ 123'];
    for (const text of texts) {
      const terms = indexText(text)
        .split(/[^a-zA-Z0-9\u0080-\uffff]+/)
        .filter(Boolean);
      for (let n = 0; n < terms.length; n++) {
        const at = tokenStart(text, n);
        expect(at, `${text} #${n}`).toBeDefined();
        // The n-th term comes from where tokenStart says: the index's terms of the rest begin with it.
        const rest = indexText(text.slice(at!))
          .split(/[^a-zA-Z0-9\u0080-\uffff]+/)
          .filter(Boolean);
        expect(rest[0], `${text} #${n}`).toBe(terms[n]);
      }
      expect(tokenStart(text, terms.length)).toBeUndefined();
    }
  });
});

describe('a sentence before a hub', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  let searcher: Searcher;
  const sentence = 'The heron nests in the mangrove beside the estuary every spring.';
  beforeAll(async () => {
    const rand = seededRandom(7);
    const filler = (n: number) => Array.from({ length: n }, () => `word${Math.floor(rand() * 400)}`).join(' ');
    const page = (title: string, body: string) => `<html><head><title>${title}</title></head><body><p>${body}</p></body></html>`;
    const records = [
      // The hub: an index of birds and places, each word many times, far apart.
      {
        url: 'http://birds.example/index-of-names.html',
        body: page('Index of names', Array.from({ length: 4 }, () => `heron ${filler(40)} mangrove ${filler(40)} estuary ${filler(40)}`).join(' ')),
      },
      // The page that holds them in one sentence (and the first word alone at its top, where a
      // snippet of the first match would start).
      { url: 'http://birds.example/coast/herons.html', body: page('Coastal notes', `Heron. ${filler(150)} ${sentence} ${filler(150)}`) },
      ...Array.from({ length: 20 }, (_, i) => ({ url: `http://birds.example/other/${i}.html`, body: page(`Other ${i}`, filler(200)) })),
    ].map((r, i) => ({
      ...r,
      type: 'response',
      date: '20200101000000',
      id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
      headers: { 'Content-Type': 'text/html', 'Content-Length': String(Buffer.byteLength(r.body)) },
    }));
    const warc = join(dir, 'birds.warc.gz');
    await writeWarc(warc, records);
    await indexedCollection(warc, crawl, join(dir, 'birds.cdx'));
    searcher = new Searcher(crawl);
  });
  afterAll(() => searcher?.close());

  const urls = (query: string, ranking = DEFAULT_WEIGHTS) => searcher.view().search(query, { hits: 10, cache: false, ranking }).hits;

  it('BM25 alone puts the hub first; with proximity the sentence comes first, in any order of the words', () => {
    expect(urls('heron mangrove estuary', BM25_ONLY)[0].url).toBe('http://birds.example/index-of-names.html');
    for (const q of ['heron mangrove estuary', 'estuary heron', 'mangrove estuary heron']) {
      const hits = urls(q);
      expect(hits.map((h) => h.url).slice(0, 2), q).toEqual(['http://birds.example/coast/herons.html', 'http://birds.example/index-of-names.html']);
    }
  });

  it("the snippet is the passage that scored, not the page's first match", () => {
    const [hit] = urls('estuary heron');
    expect(hit.snippet.text).toContain(sentence);
    const marked = hit.snippet.marks.map(([a, b]) => hit.snippet.text.slice(a, b).toLowerCase());
    expect(marked).toEqual(expect.arrayContaining(['heron', 'estuary']));
  });

  it('a query of one word ranks as without proximity', () => {
    for (const q of ['heron', 'estuary']) {
      expect(urls(q).map((h) => h.url)).toEqual(urls(q, { ...DEFAULT_WEIGHTS, near: 0 }).map((h) => h.url));
      expect(urls(q).map((h) => h.score)).toEqual(urls(q, { ...DEFAULT_WEIGHTS, near: 0 }).map((h) => h.score));
    }
  });
});
