/**
 * A document's row has one owner (src/index/document.ts): the docs table an index is made
 * with holds its columns in its order, a document written and read back keeps every capture
 * field, and capture dates merge as every reader of an index merges them.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tempDir } from './helpers.js';
import { CAPTURE_FIELDS, DOC_COLUMNS, captureFieldsOf, datesOf, docsTable, firstDate, mergeDates } from '../src/index/document.js';
import { IndexWriter } from '../src/index/index-writer.js';

describe("a document's row", () => {
  it('is the docs table of an index written, column for column, and keeps every capture field', () => {
    const path = join(tempDir(), 'part-00000');
    const w = new IndexWriter(path);
    const capture = {
      mime: 'text/html',
      status: 200,
      length: 1234,
      collection: 'c',
      segment: '20070101000000',
      file: 'a.warc.gz',
      location: '/archives/a.warc.gz',
      offset: 42,
      clen: 900,
    };
    w.add({
      url: 'http://a.example/',
      digest: 'sha1:AAAA',
      date: '20070101000000',
      dates: ['20070101000000', '20080101000000'],
      ...capture,
      title: 'A page',
      text: 'words of a page',
      anchors: ['an anchor'],
      inlinks: 1,
      boost: 1,
      lang: 'en',
    });
    w.close();
    const db = new Database(path, { readonly: true });
    try {
      const columns = db.prepare('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(\'docs\')').all() as { name: string }[];
      expect(columns.map((c) => c.name)).toEqual(DOC_COLUMNS.map((c) => c.name));
      expect((db.prepare("SELECT sql FROM sqlite_master WHERE name = 'docs'").pluck().get() as string) + ';').toBe(docsTable());
      const row = db.prepare('SELECT * FROM docs WHERE id = 1').get() as typeof capture & { dates: string };
      expect(captureFieldsOf(row)).toEqual(capture);
      expect(Object.keys(captureFieldsOf(row))).toEqual(CAPTURE_FIELDS);
      expect(row.dates).toBe('20070101000000 20080101000000');
    } finally {
      db.close();
    }
  });

  it("merges capture dates each once and in order, and reads a row's list as the index keeps it", () => {
    expect(datesOf(' 20080101000000  20070101000000 ')).toEqual(['20080101000000', '20070101000000']);
    expect(mergeDates(['2008', '2007'], new Set(['2007', '2009']))).toEqual(['2007', '2008', '2009']);
    expect(firstDate('20080101000000 20070101000000')).toBe('20070101000000');
    expect(firstDate('')).toBe('');
  });
});
