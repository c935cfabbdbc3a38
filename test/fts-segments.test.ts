/**
 * The `fts` kernel writes an index part's FTS5 table as FTS5 writes it: the same rows loaded
 * through the addon's segment writer and through FTS5's own inserts (its twin) give the same
 * %_data, %_idx and %_docsize records, byte for byte, but the structure record's configuration
 * cookie (the twin sets FTS5 options, each of which counts). Rows are chosen to reach every
 * branch of FTS5's leaf layout: doclists and poslists spread over many leaves, doclist
 * indexes of more than one level, terms longer than a leaf and longer than FTS5 keeps, bytes
 * above 0x7f, upper case, empty columns, rowids far apart; and small hash sizes, where each
 * side writes many segments that FTS5's `optimize` then merges.
 */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createIndex } from '../src/index/schema.js';
import { FTS_COLUMNS } from '../src/index/schema.js';
import { ftsLoad } from '../src/index/fts-load.js';
import { FtsSegmentBuilder } from '../src/native/fts.js';
import { awkwardStrings, seededRandom, tempDir } from './helpers.js';
import { JsonText } from '../src/util/json-bytes.js';

const NATIVE = FtsSegmentBuilder.create(1, 4050) !== undefined;

type Row = [number, (string | JsonText)[]];

/** The FTS5 tables of an index part loaded with `rows`, natively or through FTS5. */
function load(path: string, rows: Row[], hashSize: number | undefined, native: boolean): void {
  const db = createIndex(path, 'main');
  const fts = ftsLoad(db, path, FTS_COLUMNS, hashSize, native);
  db.exec('BEGIN');
  for (const [id, texts] of rows) fts.add(id, texts);
  fts.beforeCommit();
  db.exec('COMMIT');
  fts.afterCommit();
  db.close();
}

/**
 * Every record of the part's FTS5 tables, the structure record without its 4-byte cookie.
 * `anySegid`: segment ids left out (of the records' ids, the %_idx rows and the structure): where
 * several segments were merged, FTS5 numbers the merged one after those it had on disk, and it
 * merges 64 on one level ('crisismerge') as it goes, where the kernel leaves all to `optimize`.
 */
function records(path: string, anySegid = false): Record<string, string[]> {
  const db = new Database(path, { readonly: true });
  const hex = (rows: unknown[][]) => rows.map((r) => r.map((v) => (Buffer.isBuffer(v) ? v.toString('hex') : String(v))).join(' '));
  const data = db.prepare('SELECT id, block FROM fts_data ORDER BY id').raw().all() as [number, Buffer][];
  const page = (id: number) => (anySegid && id > 10 ? id % 2 ** 37 : id);
  const out = {
    data: hex(data.filter(([id]) => !anySegid || id !== 10).map(([id, block]) => [page(id), id === 10 ? block.subarray(4) : block])).sort(),
    idx: hex(
      db
        .prepare(`SELECT ${anySegid ? '' : 'segid, '}term, pgno, typeof(segid), typeof(pgno) FROM fts_idx ORDER BY segid, term`)
        .raw()
        .all() as unknown[][],
    ),
    docsize: hex(db.prepare('SELECT id, sz FROM fts_docsize ORDER BY id').raw().all() as unknown[][]),
  };
  db.close();
  return out;
}

function integrity(path: string): void {
  const db = new Database(path);
  db.exec("INSERT INTO fts(fts) VALUES('integrity-check')");
  db.close();
}

function words(rnd: () => number, n: number, vocabulary: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = Math.floor(vocabulary * rnd() ** 3);
    out.push(i % 17 === 0 ? `W${w.toString(36).toUpperCase()}` : `w${w.toString(36)}`);
  }
  return out.join(rnd() < 0.5 ? ' ' : ', ');
}

/** Rows that reach every branch of FTS5's leaf layout (see above). */
function awkwardRows(): Row[] {
  const rnd = seededRandom(49);
  const rows: Row[] = [];
  let id = 0;
  for (let i = 0; i < 600; i++) {
    id += 1 + Math.floor(rnd() * (i % 50 === 0 ? 1e6 : 300));
    const content =
      i === 7
        ? 'repeat '.repeat(20000) // one poslist over several leaves
        : i === 8
          ? `${'k'.repeat(5000)} ${'L'.repeat(40000)} after` // a term longer than a leaf, one longer than FTS5 keeps
          : `${words(rnd, 50 + Math.floor(rnd() * 400), 5000)} common Ünïcödé 東京都 ${i % 3 ? '' : 'rare'}`;
    rows.push([
      id,
      [i % 11 ? `Title ${i} common` : '', content, i % 4 ? 'anchor TEXT common' : '', `example org path ${i}`, 'example org', i % 2 ? '2009 2011' : '2010'],
    ]);
  }
  return rows;
}

/** A term on every row with a poslist near a leaf's size: a doclist index of two levels. */
function deepDoclistRows(): Row[] {
  const rows: Row[] = [];
  const body = 'deep '.repeat(3990);
  for (let i = 0; i < 1400; i++) rows.push([1 + i * 20000, ['', body, '', '', '', '']]);
  return rows;
}

/**
 * More rows than a structure record holds segments (2000), each its own segment under a hash of
 * one byte: the kernel's segments must be merged as they are written, as FTS5 merges its own.
 */
function manyRows(): Row[] {
  const rnd = seededRandom(2000);
  return Array.from({ length: 2100 }, (_, i) => [i + 1, [`t${i % 7}`, words(rnd, 3, 300), '', `p${i}`, 'example org', '2010']]);
}

describe.skipIf(!NATIVE)('FTS5 segments written by the fts kernel', () => {
  const cases: [string, () => Row[], number | undefined, boolean][] = [
    ['one segment (FTS5 hash of 64 MB)', awkwardRows, 64 << 20, false],
    ['a few segments merged by optimize (hash of 256 kB)', awkwardRows, 256 << 10, false],
    ['many segments merged by optimize (hash of 16 kB), the merged one numbered apart', awkwardRows, 16 << 10, true],
    ["FTS5's own hash size (1 MB)", awkwardRows, undefined, false],
    ['doclist indexes of two levels', deepDoclistRows, 64 << 20, false],
    ['more segments than a structure record holds, merged as they are written (hash of 1 byte)', manyRows, 1, true],
  ];
  for (const [name, rows, hash, anySegid] of cases) {
    it(`${name}: the records FTS5 writes for the same rows`, () => {
      const dir = tempDir();
      const r = rows();
      load(join(dir, 'native'), r, hash, true);
      load(join(dir, 'fts5'), r, hash, false);
      const [a, b] = [records(join(dir, 'native'), anySegid), records(join(dir, 'fts5'), anySegid)];
      expect(a.data.length).toBeGreaterThan(2);
      expect(a.docsize.length).toBe(r.length);
      expect(a).toEqual(b);
      integrity(join(dir, 'native'));
    });
  }

  it('reaches the layouts it is meant to: several leaves per doclist, doclist indexes, several segments', () => {
    const dir = tempDir();
    load(join(dir, 'deep'), deepDoclistRows(), 64 << 20, true);
    const db = new Database(join(dir, 'deep'), { readonly: true });
    // %_data ids: segid << 37 | dlidx << 36 | height << 31 | page
    const heights = db.prepare('SELECT DISTINCT (id >> 31) & 31 AS h FROM fts_data WHERE (id >> 36) & 1 = 1').pluck().all();
    expect(heights).toEqual([0, 1]);
    db.close();
    // small hashes: FTS5 would have written several segments, which optimize merged into one
    const segments = (hash: number) => {
      const builder = FtsSegmentBuilder.create(FTS_COLUMNS.length, 4050)!;
      let n = 0;
      for (const [id, texts] of awkwardRows()) {
        if (builder.pending() > hash && builder.flush(n + 1)) n++;
        builder.add(id, texts);
      }
      if (builder.flush(n + 1)) n++;
      builder.free();
      return n;
    };
    expect(segments(64 << 20)).toBe(1);
    expect(segments(256 << 10)).toBeGreaterThan(2);
    expect(segments(256 << 10)).toBeLessThan(64);
    expect(segments(16 << 10)).toBeGreaterThan(64);
  });

  it('answers queries as FTS5 would: phrase, prefix and BM25 over the loaded rows', () => {
    const dir = tempDir();
    const r = awkwardRows();
    load(join(dir, 'native'), r, 16 << 10, true);
    load(join(dir, 'fts5'), r, 16 << 10, false);
    const ask = (path: string) => {
      const db = new Database(path, { readonly: true });
      const out = ['"common unicode"', '"東京 京都"', 'w1*', 'rare OR repeat', 'title:common', 'kkkk*'].map((q) =>
        db.prepare('SELECT rowid, round(bm25(fts), 6) AS s FROM fts WHERE fts MATCH ? ORDER BY rank, rowid LIMIT 50').raw().all(q),
      );
      db.close();
      return out;
    };
    const got = ask(join(dir, 'native'));
    expect(got.every((hits) => hits.length > 0)).toBe(true);
    expect(got).toEqual(ask(join(dir, 'fts5')));
  });

  it('reads a text kept as JSON bytes as JSON.parse would: escapes, pairs, lone surrogates, bytes that are not UTF-8', () => {
    const texts = [
      ...awkwardStrings(),
      'Caf\u00e9 na\u00efve \ud83d\ude00 \ud800 alone a\ud845b \ud845 x \udfff \u0000 tab\tquote" back\\slash / \b\f\r\n',
      'Ａｂｃ 東京都の天気 서울에서 ภาษาไทย',
    ];
    const rows: Row[] = texts.map((t, i) => [i + 1, ['', new JsonText(Buffer.from(JSON.stringify(t))), '', '', '', '']]);
    // bytes that are not UTF-8: the kernel leaves them to JSON.parse, after a decode that replaces them
    rows.push([texts.length + 1, ['', new JsonText(Buffer.from([0x22, 0x61, 0xff, 0x62, 0xc3, 0x28, 0x20, 0x63, 0x22])), '', '', '', '']]);
    const dir = tempDir();
    load(join(dir, 'native'), rows, undefined, true);
    load(join(dir, 'fts5'), rows, undefined, false);
    expect(records(join(dir, 'native'))).toEqual(records(join(dir, 'fts5')));
  });

  it('names the document whose JSON text cannot be read', () => {
    const dir = tempDir();
    const db = createIndex(join(dir, 'part'), 'main');
    const fts = ftsLoad(db, join(dir, 'part'), FTS_COLUMNS, undefined, true);
    expect(() => fts.add(1, ['', new JsonText(Buffer.from('"cut \\x short"')), '', '', '', ''])).toThrow(/not a JSON string/);
    db.close();
  });

  it('refuses a row that does not follow the row before', () => {
    const b = FtsSegmentBuilder.create(2, 4050)!;
    b.add(5, ['a', 'b']);
    expect(() => b.add(5, ['a', 'b'])).toThrow(/row 5 does not follow/);
    b.free();
    expect(() => b.add(6, ['a', 'b'])).toThrow(/after free/);
  });
});

describe("FTS5's structure record", () => {
  it('reads what FTS5 writes and writes it back to the same bytes; a damaged one is named', async () => {
    const { readStructure, writeStructure } = await import('../src/index/fts5-structure.js');
    const dir = tempDir();
    // FTS5's own inserts with a small hash and its merges on: several levels, segments under merge.
    const path = join(dir, 'fts5');
    const db = createIndex(path, 'main');
    db.exec("INSERT INTO fts(fts, rank) VALUES('hashsize', 2048)");
    const insert = db.prepare(`INSERT INTO fts(rowid, ${FTS_COLUMNS.join(', ')}) VALUES (?${', ?'.repeat(FTS_COLUMNS.length)})`);
    for (const [id, texts] of manyRows().slice(0, 900)) insert.run(id, ...texts);
    const block = db.prepare('SELECT block FROM fts_data WHERE id = 10').pluck().get() as Buffer;
    db.close();
    const s = readStructure(block, path);
    expect(s.levels.length).toBeGreaterThan(1);
    expect(s.levels.flatMap((l) => l.segments).length).toBeGreaterThan(2);
    expect(writeStructure(s).equals(block)).toBe(true);
    expect(() => readStructure(block.subarray(0, block.length - 2), path)).toThrow(`${path}: FTS5 structure record: `);
  });
});
