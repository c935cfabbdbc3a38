/**
 * A compact index (schema 4): the text of a version is not stored in the index but read from
 * its segment's parse_text by key, where the segment was when the index was made or beside the
 * index. Snippets, merge and dumpindex read it there; an index moved away from its segments
 * still searches (without snippets); one of the previous schema, text inside, is still read.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { nwaxAsync, tempDir } from './helpers.js';
import { Searcher } from '../src/search/searcher.js';
import { SegmentTexts } from '../src/segment/segment-texts.js';
import { snippetOf } from '../src/search/snippet.js';
import { parseQuery } from '../src/search/query.js';

/** A long page: its snippet for a word near its top comes from its first kilobytes, for others from the whole. */
const FILLER = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => ['reed', 'creek', 'pond', 'delta', 'mudflat', 'sedge'][(i * 7 + seed) % 6]).join(' ');
const LONG = `Gamma shore. A bittern booms early. ${FILLER(400, 1)} café “quoted” résumé \\ back ${FILLER(3000, 2)} a plover runs late ${FILLER(200, 3)} the end.`;
const PAGES = [
  ['http://gamma.example/long', 'Gamma long', LONG],
  ['http://alpha.example/', 'Alpha page', 'The heron stood in the marsh while the tide came in over the levee.'],
  ['http://alpha.example/two', 'Second alpha', 'A cypress grove beside the bayou, and an egret fishing at dawn.'],
  ['http://beta.example/', 'Beta home', 'Mangrove roots hold the estuary bank against the flood channel.'],
];

/** A document's key and segment (the index is one part). */
function docRow(crawl: string, url: string): { url: string; digest: string; segment: string } {
  const db = new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true });
  try {
    return db.prepare('SELECT url, digest, segment FROM docs WHERE url = ?').get(url) as { url: string; digest: string; segment: string };
  } finally {
    db.close();
  }
}

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await nwaxAsync(args);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

async function ok(args: string[]): Promise<string> {
  const r = await run(args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

function snippets(dir: string, q: string): { url: string; snippet: string }[] {
  const s = new Searcher(dir);
  try {
    return s
      .view()
      .search(q, { hits: 10, snippets: true, cache: false })
      .hits.map((h) => ({ url: h.url, snippet: h.snippet.text }));
  } finally {
    s.close();
  }
}

describe('texts read from the segments, not stored in the index', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  const seg = join(crawl, 'segments', '20200101000000');
  beforeAll(async () => {
    const warc = join(dir, 'pages.warc.gz');
    await writeWarc(
      warc,
      PAGES.map(([url, title, text], i) => {
        const body = `<html><head><title>${title}</title></head><body><p>${text}</p></body></html>`;
        return {
          type: 'response',
          url,
          date: `2015010${i + 1}000000`,
          body,
          id: `00000000-0000-4000-8000-00000000000${i + 1}`,
          headers: { 'Content-Type': 'text/html', 'Content-Length': String(Buffer.byteLength(body)) },
        };
      }),
    );
    writeFileSync(join(dir, 'manifest'), `${warc} pages\n`);
    await ok(['import', join(dir, 'manifest'), seg]);
    await ok(['updatedb', join(crawl, 'crawldb'), seg]);
    await ok(['invertlinks', join(crawl, 'linkdb'), seg]);
    await ok(['index', '--reduces', '1', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg]);
  }, 120_000);

  it('stores no text: the rows have no text column, and the index names where its segments were', () => {
    const db = new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true });
    try {
      const cols = (db.prepare('PRAGMA table_info(docs)').all() as { name: string }[]).map((c) => c.name);
      expect(cols).not.toContain('text');
      expect(cols).toContain('urlkey');
      const info = Object.fromEntries((db.prepare('SELECT key, value FROM info').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
      expect(info.schema_version).toBe('4');
      expect(JSON.parse(info.segment_roots)).toEqual([join(crawl, 'segments')]);
    } finally {
      db.close();
    }
  });

  it('gives snippets from parse_text, and the same text as the segment holds, by key', () => {
    const hits = snippets(crawl, 'heron');
    expect(hits.map((h) => h.url)).toEqual(['http://alpha.example/']);
    expect(hits[0].snippet).toContain('stood in the marsh');
    const texts = new SegmentTexts([join(crawl, 'segments')]);
    const db = new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true });
    const row = db.prepare("SELECT url, digest, segment FROM docs WHERE url = 'http://beta.example/'").get() as {
      url: string;
      digest: string;
      segment: string;
    };
    db.close();
    expect(texts.text(row.segment, row.url, row.digest)).toContain('Mangrove roots hold the estuary bank');
    expect(texts.text(row.segment, row.url, 'sha1:NOTTHERE')).toBeUndefined();
    expect(texts.text('20990101000000', row.url, row.digest)).toBeUndefined();
  });

  it("gives a long page's snippet from the head of its text where that holds it, the same as from the whole", () => {
    const texts = new SegmentTexts([join(crawl, 'segments')]);
    const row = docRow(crawl, 'http://gamma.example/long');
    const whole = texts.text(row.segment, row.url, row.digest)!;
    expect(whole.length).toBeGreaterThan(20_000);
    // (Cut at 6n + 1 bytes of JSON: n from 380 to 440 cuts through the accents, quotes and escaped backslashes.)
    for (const n of [1, 10, 100, ...Array.from({ length: 60 }, (_, i) => 380 + i), 1000, 8192, 30_000]) {
      const h = texts.head(row.segment, row.url, row.digest, n)!;
      expect(whole.startsWith(h.text), `head ${n}`).toBe(true);
      expect(h.text.length >= Math.min(n, whole.length), `head ${n}`).toBe(true);
      expect(h.whole).toBe(h.text.length === whole.length);
    }
    const s = new Searcher(crawl);
    try {
      // Near the top (from the head), far down (the whole text), by the analyzer only (résumé for resume: the whole), and none.
      for (const q of ['bittern', 'plover', 'resume', 'cafe', 'gamma shore', 'sedge bittern']) {
        const hit = s
          .view()
          .search(q, { hits: 10, cache: false })
          .hits.find((h) => h.url === row.url);
        expect(hit, q).toBeDefined();
        expect(hit!.snippet, q).toEqual(snippetOf(whole, parseQuery(q).highlight));
      }
      expect(s.view().search('plover', { hits: 1, cache: false }).hits[0].snippet.text).toContain('plover runs late');
    } finally {
      s.close();
    }
  });

  it('finds a url: by its hash and the URL, and dumps the text from the segment', async () => {
    const hits = snippets(crawl, 'url:http://alpha.example/two');
    expect(hits.map((h) => h.url)).toEqual(['http://alpha.example/two']);
    const dump = await ok(['dumpindex', '-f', 'text', join(crawl, 'indexes', 'part-00000')]);
    for (const [, , text] of PAGES.slice(1)) expect(dump).toContain(text);
    expect(dump).toContain('a plover runs late');
  });

  it('finds the segments beside an index that was moved with them, and searches without snippets where they are not', () => {
    const moved = join(dir, 'moved');
    cpSync(crawl, moved, { recursive: true });
    // Where the segments were when the index was made is gone: the copy beside it is read.
    const gone = join(dir, 'crawl-gone');
    renameSync(crawl, gone);
    try {
      expect(snippets(moved, 'egret')[0].snippet).toContain('egret fishing at dawn');
      const bare = join(dir, 'bare');
      mkdirSync(bare);
      cpSync(join(moved, 'indexes'), join(bare, 'indexes'), { recursive: true });
      const hits = snippets(bare, 'egret');
      expect(hits.map((h) => h.url)).toEqual(['http://alpha.example/two']);
      expect(hits[0].snippet).toBe('');
    } finally {
      renameSync(gone, crawl);
    }
  });

  it('merges with the texts from the segments, and names the segment a merge cannot find', async () => {
    await ok(['merge', join(dir, 'merged', 'indexes', 'part-00000'), join(crawl, 'indexes', 'part-00000')]);
    expect(snippets(join(dir, 'merged'), 'mangrove')[0].snippet).toContain('Mangrove roots');
    const lonely = join(dir, 'lonely');
    mkdirSync(join(lonely, 'indexes'), { recursive: true });
    cpSync(join(crawl, 'indexes', 'part-00000'), join(lonely, 'indexes', 'part-00000'));
    const db = new Database(join(lonely, 'indexes', 'part-00000'));
    db.prepare("UPDATE info SET value = '[]' WHERE key = 'segment_roots'").run();
    db.close();
    const r = await run(['merge', join(lonely, 'out'), join(lonely, 'indexes', 'part-00000')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the texts of its documents are in segment 20200101000000, found neither where the index was made nor beside it/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('names a damaged block of parse_text by file and offset, in a crawl folder copied whole (its own copy read, not the original)', async () => {
    const copy = join(dir, 'damaged');
    cpSync(crawl, copy, { recursive: true });
    const text = join(copy, 'segments', '20200101000000', 'parse_text');
    const part = readdirSync(text).find((f) => /^part-\d{5}\.gz$/.test(f) && statSync(join(text, f)).size > 200)!;
    const bytes = readFileSync(join(text, part));
    bytes.fill(0, 40, bytes.length - 40);
    writeFileSync(join(text, part), bytes);
    const r = await run(['dumpindex', '-f', 'text', join(copy, 'indexes', 'part-00000')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(text, part)}: offset 0: corrupt block`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // The search answers on, the damaged texts' hits without snippets.
    expect(snippets(copy, 'heron').map((h) => h.url)).toEqual(['http://alpha.example/']);
  });

  it('reads an index of the previous schema, its text in its rows', () => {
    const old = join(dir, 'old');
    mkdirSync(join(old, 'indexes'), { recursive: true });
    const part = join(old, 'indexes', 'part-00000');
    cpSync(join(crawl, 'indexes', 'part-00000'), part);
    const db = new Database(part);
    db.exec(
      "ALTER TABLE docs ADD COLUMN text TEXT; UPDATE docs SET text = 'stored copy of the page with a bittern in it'; UPDATE info SET value = '3' WHERE key = 'schema_version'",
    );
    db.close();
    const hits = snippets(old, 'heron');
    expect(hits.map((h) => h.url)).toEqual(['http://alpha.example/']);
    expect(hits[0].snippet).toContain('bittern');
  });
});
