/**
 * The cheaper paths of an uncached search (issue: nothing slows) hold to what they replace:
 * a snippet's first match found as written and by the analyzer over the runs past ASCII only is
 * where the analyzer's pass over the whole text finds it; and a site: query scores a page by
 * its words alone, whether the site's phrase narrowed the match (a site that is a small part
 * of the index) or the SQL test did (a site that holds most of it), and finds every page.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { awkwardStrings, seededRandom, tempDir } from './helpers.js';
import { pipeline } from './example-pipeline.js';
import { firstMatchOf } from '../src/search/snippet.js';
import { markTerms, tokens, isCjkUnit } from '../src/analysis/analyzer.js';
import { Searcher } from '../src/search/searcher.js';
import type { OpenSet } from '../src/search/open-set.js';
import { searchWords } from '../src/search/word-search.js';
import { parseQuery } from '../src/search/query.js';
import { compileQuery } from '../src/search/query-plan.js';

/** The first match as it was found before: the /iu pattern, else the analyzer over the whole text. */
function reference(text: string, highlight: string[]): number | undefined {
  const terms = new Set(highlight.filter(Boolean));
  const prefixes = [...terms].filter(isCjkUnit);
  const hit = (t: { term: string }) => terms.has(t.term) || prefixes.some((p) => t.term.startsWith(p));
  const spacedRe = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Armenian}\p{Script=Devanagari}\p{N}]/u;
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const byLength = [...terms].sort((a, b) => b.length - a.length);
  const spaced = byLength.filter((t) => spacedRe.test(t)).map(esc);
  const inRuns = byLength.filter((t) => !spacedRe.test(t)).map(esc);
  const alts = [...(spaced.length ? [`(?<![\\p{L}\\p{N}])(?:${spaced.join('|')})(?![\\p{L}\\p{M}\\p{N}])`] : []), ...inRuns];
  const m = new RegExp(alts.join('|'), 'iu').exec(text);
  if (m) return m.index;
  for (const t of tokens(text)) if (hit(t)) return t.start;
  return undefined;
}

describe('snippets: the first match', () => {
  it('is where the analyzer over the whole text finds it, on mixed scripts, marks, case, surrogates and hostile strings', () => {
    const rand = seededRandom(17);
    const pool = [
      'resume',
      'résumé',
      'RÉSUMÉ',
      'Resume',
      'straße',
      'STRASSE',
      'café',
      'CAFE',
      '\u212Aelvin',
      'kelvin',
      'ſtar',
      'star',
      '東京都',
      '東京',
      'キャプション',
      'ｷｬﾌﾟｼｮﾝ',
      'ภาษาไทย',
      'Ελληνικά',
      'ελληνικα',
      'İstanbul',
      'istanbul',
      'x2',
      'naïve',
      'naive',
      '—',
      '“',
      '”',
      '©',
      '😀',
      '\ud800',
      'data_set',
      'a-b',
      'über',
      'uber',
      '123',
      'ⅻ',
      'ﬁle',
      'file',
      'Ǆ',
      'ǆ',
    ];
    const seps = [' ', ' ', ', ', '. ', '\n', '', '—', '-', '/', '\u00a0'];
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    let checked = 0;
    let found = 0;
    for (let i = 0; i < 3000; i++) {
      const parts: string[] = [];
      const n = 1 + Math.floor(rand() * 40);
      for (let k = 0; k < n; k++) parts.push(pick(pool), pick(seps));
      const text = parts.join('');
      const query = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(pool));
      const highlight = query.flatMap((w) => markTerms(w));
      if (highlight.length === 0) continue;
      const want = reference(text, highlight);
      expect(firstMatchOf(text, highlight), `${JSON.stringify(text)} for ${JSON.stringify(highlight)}`).toBe(want);
      checked++;
      if (want !== undefined) found++;
    }
    for (const s of awkwardStrings()) {
      for (const q of [['resume'], markTerms('résumé'), markTerms('東京'), ['x']]) {
        const text = `${s} résumé ${s} x 東京都 ${s}`;
        expect(firstMatchOf(text, q), JSON.stringify([text, q])).toBe(reference(text, q));
      }
    }
    expect(checked).toBeGreaterThan(2500);
    expect(found).toBeGreaterThan(1000);
  });
});

describe('site: scores a page by its words, however the site was found', () => {
  it('gives every page of a site with the BM25 of its words alone, for a site that is most of the index and for a rare one', async () => {
    const dir = tempDir();
    let n = 0;
    const rec = (url: string, title: string, body: string) => {
      const html = `<html><head><title>${title}</title></head><body>${body}</body></html>`;
      return {
        type: 'response',
        url,
        date: '20200101000000',
        body: html,
        id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
        headers: { 'Content-Type': 'text/html', 'Content-Length': String(Buffer.byteLength(html)) },
      };
    };
    const records = [];
    // big.example: most pages; rare.example: three.
    for (let i = 0; i < 40; i++)
      records.push(rec(`http://big.example/p${i}.html`, `Page ${i}`, `<p>${'alligator '.repeat(1 + (i % 5))} swamp number ${i} ${'filler '.repeat(i)}</p>`));
    for (let i = 0; i < 3; i++) records.push(rec(`http://rare.example/r${i}.html`, `Rare ${i}`, `<p>alligator ${'river '.repeat(i + 1)}</p>`));
    await writeWarc(join(dir, 'sites.warc.gz'), records);
    writeFileSync(join(dir, 'manifest'), `${join(dir, 'sites.warc.gz')}\n`);
    const crawl = join(dir, 'crawl');
    await pipeline(crawl, join(dir, 'manifest'), { reduces: 1 });
    const index = join(crawl, 'indexes', 'part-00000');
    // The words' BM25 of every page, as FTS5 gives it with no site in the match.
    const db = new Database(index, { readonly: true });
    const weights =
      (db.prepare("SELECT value FROM info WHERE key = 'version'").pluck().get() as string) >= '3' ? '4.0, 1.0, 2.0, 1.0, 0.5, 0.0' : '4.0, 1.0, 2.0, 1.0, 0.5';
    const bm25 = new Map(
      (
        db.prepare(`SELECT docs.url AS url, bm25(fts, ${weights}) AS r FROM fts JOIN docs ON docs.id = fts.rowid WHERE fts MATCH '"alligator"'`).all() as {
          url: string;
          r: number;
        }[]
      ).map((x) => [x.url, x.r]),
    );
    db.close();
    expect(bm25.size).toBe(43);
    const searcher = new Searcher(crawl);
    try {
      for (const [site, count] of [
        ['big.example', 40],
        ['rare.example', 3],
      ] as const) {
        const set = (searcher as unknown as { sets: OpenSet[] }).sets[0];
        const plan = set.wordPlan(compileQuery(parseQuery(`alligator site:${site}`)))!;
        // Whether the site's phrase narrowed the match: it does for the rare site only.
        expect(plan.narrow !== plan.match, site).toBe(site === 'rare.example');
        const r = searchWords([set], [plan], 100, {});
        expect(r.total, site).toBe(count);
        expect(r.rows.map((x) => x.url).sort()).toEqual([...bm25.keys()].filter((u) => u.includes(site)).sort());
        for (const row of r.rows) expect(row.rank, row.url).toBeCloseTo(bm25.get(row.url)!, 9);
      }
      // And through the whole searcher: every page of the rare site, in the order of its own words' scores.
      const hits = searcher.view().search('alligator site:rare.example', { hits: 10, cache: false }).hits;
      expect(hits.map((h) => h.url).sort()).toEqual(['http://rare.example/r0.html', 'http://rare.example/r1.html', 'http://rare.example/r2.html']);
      // Each query reads in one transaction per set (one lock, not one a statement), ended with
      // it: a writer can take the index at once after any of them.
      searcher.view().shardStats('alligator', 10, true);
      searcher.view().shardCandidates('alligator swamp', {});
      for (const query of ['alligator', 'alligator site:big.example', 'site:rare.example']) searcher.view().search(query, { cache: false });
      const writer = new Database(index, { timeout: 0 });
      try {
        writer.exec('BEGIN EXCLUSIVE');
        writer.exec('COMMIT');
      } finally {
        writer.close();
      }
    } finally {
      searcher.close();
    }
  });
});
