/**
 * One collection, however it is cut (issue 48): BM25 scored with the collection's statistics.
 *
 * - nwax_bm25 (the SQLite extension) and its JavaScript twin agree to the bit, and give FTS5's
 *   own bm25() (to its last bits: FTS5 takes the IDF's logarithm from C's log(), nwax from
 *   Math.log) when handed one table's own statistics, for every kind of MATCH text the query
 *   language writes (words, phrases, title:, site:, -words, date: years, CJK prefixes).
 * - An archive of 600 pages indexed as 1, 3 and 8 parts, and the 8 merged into one: the same
 *   top 10 (versions and order) and the same scores (1e-9) for every query, capped or not.
 * - dedup then merge (deleted documents dropped) scores as dedup alone (documents marked).
 * - A part added to a running searcher changes every score at the reload, to the whole's.
 * - Two `nwax serve` backends, each holding 4 of the 8 parts, behind a shard front: the
 *   statistics exchanged (shard-protocol.ts), the same hits, order and scores, and totals.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { nwaxAsync, seededRandom, serveCli, tempDir } from './helpers.js';
import { request } from 'undici';
import { Searcher } from '../src/search/searcher.js';
import type { SearchOptions } from '../src/search/types.js';
import { OpenSet } from '../src/search/open-set.js';
import { findIndexSets } from '../src/search/index-sets.js';
import { parseQuery } from '../src/search/query.js';
import { compileQuery } from '../src/search/query-plan.js';
import { idf } from '../src/search/bm25.js';
import { ftsPhrases } from '../src/search/fts-phrases.js';
import { tableTotals } from '../src/search/fts-stats.js';
import { scoreRows } from '../src/search/js-bm25.js';
import { nativeWanted, rankExtension } from '../src/native/addon.js';

// (Under CI the extension is built; a run with NWAX_NATIVE leaving `rank` to JavaScript tests the twin alone.)
if (!rankExtension() && process.env.CI === 'true' && nativeWanted('rank'))
  throw new Error('the ranking extension (build/Release/nwax_rank.node) is not built: npm install runs node-gyp');

const VOCAB = [
  ...'alligator swamp river delta estuary marsh heron egret reed cypress mangrove tide flood bank channel levee bayou creek pond lake'.split(' '),
  ...'archive crawl index search version capture digest record harvest snapshot replay collection manifest segment partition shard'.split(' '),
  ...'linux kernel driver usb module device network socket memory process thread signal file system mount volume disk block'.split(' '),
  ...'the of and to in is for on with as by at from that this be are was it an or'.split(' '),
];
const CJK = ['東京', '東京都', '大阪', '京都', '日本語'];
const HOSTS = ['swamp.example', 'archive.example', 'linux.example', 'www.mixed.example', 'cjk.example', 'tiny.example'];

/** A word drawn with a Zipf-like skew (the common ones common, as in text). */
function zipf(rand: () => number, list: string[]): string {
  return list[Math.floor(list.length * rand() ** 2.2)];
}

async function makeArchive(dir: string): Promise<string> {
  const rand = seededRandom(48);
  const records = [];
  const urls: string[] = [];
  for (let i = 0; i < 600; i++) {
    const host = HOSTS[i % HOSTS.length];
    urls.push(`http://${host}/${zipf(rand, VOCAB)}/${i}.html`);
  }
  let previous = '';
  for (const [i, url] of urls.entries()) {
    const words = (n: number) => Array.from({ length: n }, () => (url.includes('cjk') && rand() < 0.3 ? zipf(rand, CJK) : zipf(rand, VOCAB))).join(' ');
    const links = Array.from({ length: 3 }, () => urls[Math.floor(rand() * urls.length)]);
    // Every 25th page the one before it again under another URL (dedup --by digest's duplicates).
    const html =
      i % 25 === 24
        ? previous
        : `<html><head><title>${words(1 + Math.floor(rand() * 6))}</title></head><body><p>${words(20 + Math.floor(rand() * 300))}</p>${links
            .map((l) => `<a href="${l}">${words(1 + Math.floor(rand() * 3))}</a>`)
            .join(' ')}</body></html>`;
    previous = html;
    records.push({
      type: 'response',
      url,
      date: `20${String(10 + (i % 8)).padStart(2, '0')}0101000000`,
      body: html,
      id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
      headers: { 'Content-Type': 'text/html', 'Content-Length': String(Buffer.byteLength(html)) },
    });
  }
  const warc = join(dir, 'pages.warc.gz');
  await writeWarc(warc, records);
  return warc;
}

async function run(args: string[]): Promise<void> {
  const r = await nwaxAsync(args);
  expect([0, 3], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
}

/** The queries: words, pairs, phrases, title:, site:, -words, date:, CJK; common enough to pass a small cap. */
function queries(): string[] {
  const rand = seededRandom(7);
  const out = [
    'the',
    'the and',
    'alligator',
    'linux usb',
    '"usb driver"',
    'title:swamp',
    'the site:swamp.example',
    'river -the',
    'archive date:2012',
    '東',
    '東京',
    'kernel 京',
  ];
  for (let i = 0; i < 150; i++) {
    const n = 1 + Math.floor(rand() * 3);
    const ws = Array.from({ length: n }, () => zipf(rand, VOCAB));
    const kind = i % 6;
    if (kind === 1) out.push(`"${ws.join(' ')}"`);
    else if (kind === 2) out.push(`${ws.join(' ')} site:${HOSTS[i % HOSTS.length]}`);
    else if (kind === 3) out.push(`${ws.join(' ')} -${zipf(rand, VOCAB)}`);
    else if (kind === 4) out.push(`title:${ws[0]} ${ws.slice(1).join(' ')}`);
    else out.push(ws.join(' '));
  }
  return out;
}

type Answer = { key: string; score: number }[];

function answers(dir: string, opts: SearchOptions, totals?: number[]): Answer[] {
  const s = new Searcher(dir);
  try {
    return queries().map((q) => {
      const r = s.view().search(q, { hits: 10, snippets: false, cache: false, budgetMs: 0, ...opts });
      totals?.push(r.total);
      return r.hits.map((h) => ({ key: `${h.url} ${h.digest}`, score: h.score }));
    });
  } finally {
    s.close();
  }
}

function expectSame(a: Answer[], b: Answer[], what: string): void {
  const qs = queries();
  for (const [i, hits] of a.entries()) {
    expect(
      hits.map((h) => h.key),
      `${what}: ${qs[i]}`,
    ).toEqual(b[i].map((h) => h.key));
    for (const [j, h] of hits.entries()) expect(Math.abs(h.score - b[i][j].score), `${what}: ${qs[i]} #${j + 1}`).toBeLessThan(1e-9);
  }
}

describe('the phrases of a MATCH text', () => {
  it('come in the order written, each with the columns its filter or its group’s allows', () => {
    const texts = (m: string) => ftsPhrases(m).map((p) => p.text);
    expect(texts('("a" AND title : "b c" AND "東" *) NOT ("x" OR "y")')).toEqual(['"a"', '{title} : "b c"', '"東" *', '"x"', '"y"']);
    expect(texts('("a") AND {title anchors urlwords} : ("a" AND "b") AND years : ("2007" OR "2008")')).toEqual([
      '"a"',
      '{title anchors urlwords} : "a"',
      '{title anchors urlwords} : "b"',
      '{years} : "2007"',
      '{years} : "2008"',
    ]);
    expect(texts('"say ""hi"""')).toEqual(['"say ""hi"""']);
    expect(() => ftsPhrases('"a" AND b')).toThrow(/a bare word b/);
  });
});

describe('BM25 over the whole collection', () => {
  const dir = tempDir();
  const crawl = (parts: number) => join(dir, `crawl-${parts}`);
  beforeAll(async () => {
    const warc = await makeArchive(dir);
    writeFileSync(join(dir, 'manifest'), `${warc} pages\n`);
    const base = join(dir, 'base');
    const seg = join(base, 'segments', '20200101000000');
    await run(['import', join(dir, 'manifest'), seg]);
    await run(['updatedb', join(base, 'crawldb'), seg]);
    await run(['invertlinks', join(base, 'linkdb'), seg]);
    for (const parts of [1, 3, 8]) {
      await run(['index', '--reduces', String(parts), join(crawl(parts), 'indexes'), join(base, 'crawldb'), join(base, 'linkdb'), seg]);
    }
    const eight = join(crawl(8), 'indexes');
    const parts = Array.from({ length: 8 }, (_, i) => join(eight, `part-0000${i}`));
    await run(['merge', join(dir, 'merged', 'indexes', 'part-00000'), ...parts]);
  }, 180_000);

  it('nwax_bm25 and its JavaScript twin agree to the bit, and give bm25() with one table’s own statistics', () => {
    const [set] = findIndexSets(crawl(1));
    const open = new OpenSet(set);
    const db = new Database(set.main, { readonly: true });
    const native = rankExtension();
    if (native) (db.loadExtension as (p: string, e: string) => unknown).call(db, native, 'sqlite3_nwaxrank_init');
    try {
      const totals = tableTotals(db);
      const hits = (text: string) => (db.prepare('SELECT count(*) AS n FROM fts WHERE fts MATCH ?').get(text) as { n: number }).n;
      let compared = 0;
      for (const query of queries()) {
        const p = open.wordPlan(compileQuery(parseQuery(query)));
        if (!p) continue;
        const s = { weights: open.scoring.weights, avgdl: totals.tokens / totals.rows, idf: p.phrases.map((ph) => idf(totals.rows, hits(ph.text))) };
        const w = open.scoring.weights.join(', ');
        const rows = db.prepare(`SELECT rowid AS id, bm25(fts, ${w}) AS r FROM fts WHERE fts MATCH ?`).all(p.match) as { id: number; r: number }[];
        const ids = rows.map((r) => r.id);
        const js = new Map(scoreRows(db, p.phrases, s, ids, { ...totals, hits }).map((x) => [x.id, x.r]));
        for (const r of rows) expect(Math.abs(js.get(r.id)! - r.r), `${query} (JavaScript), row ${r.id}`).toBeLessThanOrEqual(Math.abs(r.r) * 1e-14);
        if (native) {
          const args = [...s.weights, s.avgdl, ...s.idf];
          const ours = db
            .prepare(`SELECT rowid AS id, nwax_bm25(fts, ${args.map(() => '?').join(', ')}) AS r FROM fts WHERE fts MATCH ?`)
            .all(...args, p.match) as {
            id: number;
            r: number;
          }[];
          for (const o of ours) expect(o.r, `${query} (native = JavaScript), row ${o.id}`).toBe(js.get(o.id));
        }
        compared += rows.length;
      }
      expect(compared).toBeGreaterThan(5000);
    } finally {
      db.close();
      open.close();
    }
  });

  it('gives the same top 10 and scores from 1, 3 and 8 parts and the 8 merged, capped or not', () => {
    for (const opts of [{}, { maxScored: 40 }, { hitsPerSite: 2 }]) {
      const one = answers(crawl(1), opts);
      // The queries find something, and the cap is reached: the comparison is not of empty lists.
      expect(one.filter((a) => a.length === 10).length).toBeGreaterThan(100);
      for (const other of [crawl(3), crawl(8), join(dir, 'merged')]) expectSame(answers(other, opts), one, `${other} ${JSON.stringify(opts)}`);
    }
  });

  it('scores dedup’s deleted documents out, as a merge that drops them does', async () => {
    const marked = join(dir, 'deduped');
    cpSync(join(crawl(3), 'indexes'), join(marked, 'indexes'), { recursive: true });
    const parts = [0, 1, 2].map((i) => join(marked, 'indexes', `part-0000${i}`));
    await run(['dedup', '--by', 'digest', ...parts]);
    const deleted = parts.reduce((n, p) => {
      const db = new Database(p, { readonly: true });
      const d = (db.prepare('SELECT count(*) AS n FROM docs WHERE deleted = 1').get() as { n: number }).n;
      db.close();
      return n + d;
    }, 0);
    expect(deleted).toBeGreaterThan(0);
    await run(['merge', join(dir, 'deduped-merged', 'indexes', 'part-00000'), ...parts]);
    expectSame(answers(join(dir, 'deduped-merged'), {}), answers(marked, {}), 'dedup then merge');
  });

  it('rescores every answer at the reload that adds a part', () => {
    const growing = join(dir, 'growing');
    mkdirSync(join(growing, 'indexes'), { recursive: true });
    for (const p of ['part-00000', 'part-00001']) cpSync(join(crawl(3), 'indexes', p), join(growing, 'indexes', p));
    const s = new Searcher(growing);
    try {
      const before = s
        .view()
        .search('the and', { cache: false, budgetMs: 0 })
        .hits.map((h) => h.score);
      cpSync(join(crawl(3), 'indexes', 'part-00002'), join(growing, 'indexes', 'part-00002'));
      expect(s.refresh(true).changed).toBe(true);
      const after = s
        .view()
        .search('the and', { hits: 10, snippets: false, cache: false, budgetMs: 0 })
        .hits.map((h) => ({ key: `${h.url} ${h.digest}`, score: h.score }));
      expect(after.map((h) => h.score)).not.toEqual(before);
      const whole = answers(crawl(1), {})[queries().indexOf('the and')];
      expect(after.map((h) => h.key)).toEqual(whole.map((h) => h.key));
      for (const [j, h] of after.entries()) expect(Math.abs(h.score - whole[j].score)).toBeLessThan(1e-9);
    } finally {
      s.close();
    }
  });

  it('gives the same hits, scores and totals through a shard front of two backends', async () => {
    const halves = [0, 1].map((h) => {
      const d = join(dir, `shard-${h}`);
      mkdirSync(join(d, 'indexes'), { recursive: true });
      for (let i = 4 * h; i < 4 * h + 4; i++) cpSync(join(crawl(8), 'indexes', `part-0000${i}`), join(d, 'indexes', `part-0000${i}`));
      return d;
    });
    const backends = await Promise.all(halves.map((d) => serveCli(['-dir', d, '--port', '0', '-D', 'nwax.search.time.budget=0'])));
    // The fronts' caps are their own configuration, which the backends take from them.
    const fronts = await Promise.all(
      ['10000', '40'].map((cap) =>
        serveCli(['--port', '0', '--shards', backends.map((b) => b.url).join(','), '-D', 'nwax.search.time.budget=0', '-D', `nwax.search.max.scored=${cap}`]),
      ),
    );
    try {
      for (const [f, maxScored] of [
        [0, 10_000],
        [1, 40],
      ]) {
        const totals: number[] = [];
        const one = answers(crawl(1), { maxScored }, totals);
        const via: Answer[] = [];
        for (const [i, q] of queries().entries()) {
          const r = await request(`${fronts[f].url}/api/search?${new URLSearchParams({ query: q, hitsPerSite: '0' })}`);
          const body = (await r.body.json()) as { total: number; hits: { url: string; digest: string; score: number }[] };
          expect(body.total, `${q} (cap ${maxScored})`).toBe(totals[i]);
          via[i] = body.hits.map((h) => ({ key: `${h.url} ${h.digest}`, score: h.score }));
        }
        expectSame(via, one, `shard front, cap ${maxScored}`);
      }
    } finally {
      for (const s of [...fronts, ...backends]) await s.close();
    }
  });
});
