/**
 * The on-disk index: one SQLite database per partition (better-sqlite3, FTS5), for the reasons
 * docs/decisions.md ("The first choices") gives: no load time, memory independent of size, BM25,
 * phrases. `main` holds one row per
 * document (rowid = document number) with the stored fields and a contentless FTS5 table over
 * title, content, anchors, URL words and host, holding the terms of nwax's analyzer (one term
 * per space, under FTS5's ascii tokenizer, so FTS5 neither splits nor folds them again). The
 * page's text is not stored: the segment's parse_text holds it (segment/segment-texts.ts); a
 * parallel `dates` index holds, per document number, every capture date. Each database records its kind, document count and schema
 * version; opening one of another version is a clear error. Rows are never removed (numbers
 * stay aligned with the parallel indexes): dedup marks a duplicate `deleted`.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { NwaxError } from '../util/errors.js';
import { ANALYZER } from '../analysis/analyzer.js';
import { docsTable } from './document.js';

/**
 * 2: terms from the analyzer (analysis/analyzer.ts) under FTS5's ascii tokenizer; a lang column.
 * 3: a `years` column in the text index (the capture years), so a date filter narrows the match
 *    inside FTS5 rather than reading every match's row; documents indexed by MIME type and
 *    collection, so type: and collection: alone read only their documents. Version 2 indexes are
 *    still read: those filters go through the rows, as before.
 * 4: no `text` column: a document's text is read from its segment's parse_text by key, not kept
 *    a second time, uncompressed, in every row (two thirds of a version 3 index's bytes); URLs
 *    found by a 32-bit hash of the URL (`urlkey`, urlKey()) with the URL compared after, not by an
 *    index holding every URL a second time.
 *    Versions 2 and 3 are still read, their text from their rows.
 */
export const SCHEMA_VERSION = 4;
/** The versions this nwax reads. */
const READABLE = new Set([2, 3, 4]);
/** The versions read, as a message says them: `2, 3 and 4`. */
function readable(): string {
  const v = [...READABLE];
  return `${v.slice(0, -1).join(', ')} and ${v[v.length - 1]}`;
}
/** The first version whose documents hold no text (it is read from the segments). */
export const TEXT_IN_SEGMENTS = 4;
export type IndexKind = 'main' | 'dates';

/**
 * The `urlkey` of a URL (schema 4): FNV-1a over its UTF-16 units, 32 bits, so SQLite stores it in
 * four bytes. Lookups ask `urlkey = urlKey(u) AND url = u`: a collision costs a row read, not a
 * wrong answer.
 */
export function urlKey(url: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < url.length; i++) h = Math.imul(h ^ url.charCodeAt(i), 0x01000193);
  return h | 0;
}
export type Db = Database.Database;

/** The text index's columns, in its order (a hit's MATCH filters name them). */
export const FTS_COLUMNS = ['title', 'content', 'anchors', 'urlwords', 'host', 'years'] as const;

export const MAIN_SCHEMA = `
CREATE TABLE info(key TEXT PRIMARY KEY, value TEXT NOT NULL);
${docsTable()}
CREATE INDEX docs_urlkey ON docs(urlkey);
CREATE INDEX docs_host ON docs(host);
CREATE INDEX docs_lang ON docs(lang);
CREATE INDEX docs_mime ON docs(mime);
CREATE INDEX docs_collection ON docs(collection);
CREATE VIRTUAL TABLE fts USING fts5(${FTS_COLUMNS.join(', ')}, content='', tokenize='ascii');
`;

export const DATES_SCHEMA = `
CREATE TABLE info(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE dates(id INTEGER PRIMARY KEY, dates TEXT NOT NULL);
`;

export interface IndexInfo {
  kind: IndexKind;
  /** The text analysis of a main index's terms. */
  analyzer?: string;
  docCount: number;
  version: number;
  /**
   * A dates index's capture years that some document has only there, not in its main index's
   * dates (recorded by add-dates); undefined for an older dates index, which did not record them.
   */
  extraYears?: string[];
  /** Documents dedup marked deleted, as recorded (undefined for an index made before it was). */
  deleted?: number;
  /** The folders that held the documents' segments when the index was made (schema 4). */
  segmentRoots: string[];
}

export function readInfo(db: Db, path: string): IndexInfo {
  let rows: { key: string; value: string }[];
  try {
    rows = db.prepare('SELECT key, value FROM info').all() as { key: string; value: string }[];
  } catch (err) {
    // SQLite says why: not a database at all, a file cut short ("malformed"), or no info table.
    throw new NwaxError('NWAX_FORMAT', `${path}: not an nwax index (${(err as Error).message})`);
  }
  const m = new Map(rows.map((r) => [r.key, r.value]));
  const version = Number(m.get('schema_version'));
  if (!READABLE.has(version)) {
    const older = version === 1 ? ' (its words were cut by an older text analysis, which lost Greek, Hindi, Korean, Thai and Khmer words)' : '';
    throw new NwaxError(
      'NWAX_FORMAT',
      `${path}: index schema version ${m.get('schema_version') ?? '?'}${older}, this nwax reads versions ${readable()}; rebuild it with this version: nwax index OUTDIR CRAWLDB LINKDB SEGMENT... (the segments stay as they are)`,
    );
  }
  const kind = m.get('kind') as IndexKind;
  const analyzer = m.get('analyzer');
  if (kind === 'main' && analyzer !== ANALYZER) {
    throw new NwaxError(
      'NWAX_FORMAT',
      `${path}: terms made by text analysis ${analyzer ?? '?'}, this nwax searches with ${ANALYZER}: queries would not find what the index holds; rebuild it: nwax index OUTDIR CRAWLDB LINKDB SEGMENT...`,
    );
  }
  const extra = m.get('extra_years');
  let segmentRoots: string[] = [];
  try {
    const roots = JSON.parse(m.get('segment_roots') ?? '[]') as unknown;
    if (Array.isArray(roots)) segmentRoots = roots.filter((r): r is string => typeof r === 'string');
  } catch {
    // Unreadable: the segments are looked for beside the index only.
  }
  const deleted = m.get('deleted');
  return {
    kind,
    analyzer,
    docCount: Number(m.get('doc_count')),
    version,
    segmentRoots,
    ...(extra !== undefined ? { extraYears: extra.split(' ').filter(Boolean) } : {}),
    ...(deleted !== undefined ? { deleted: Number(deleted) } : {}),
  };
}

/** Opens an index read-only and checks its version (and kind, when given). */
export function openIndex(path: string, kind?: IndexKind): { db: Db; info: IndexInfo } {
  if (!existsSync(path)) throw new NwaxError('NWAX_INPUT', `${path}: no such index`);
  let db: Db;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('query_only = ON');
  } catch (err) {
    throw new NwaxError('NWAX_FORMAT', `${path}: not an index (${(err as Error).message})`);
  }
  let info: IndexInfo;
  try {
    info = readInfo(db, path);
  } catch (err) {
    db.close();
    throw err;
  }
  if (kind && info.kind !== kind) {
    db.close();
    throw new NwaxError('NWAX_FORMAT', `${path}: a ${info.kind} index, where a ${kind} index is needed`);
  }
  return { db, info };
}

/** A new index database for writing (build settings: no journal, no fsync until the end). */
export function createIndex(path: string, kind: IndexKind): Db {
  const db = new Database(path);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(kind === 'main' ? MAIN_SCHEMA : DATES_SCHEMA);
  db.prepare('INSERT INTO info(key, value) VALUES (?, ?), (?, ?)').run('schema_version', String(SCHEMA_VERSION), 'kind', kind);
  if (kind === 'main') db.prepare('INSERT INTO info(key, value) VALUES (?, ?)').run('analyzer', ANALYZER);
  return db;
}

/**
 * Records how many documents are marked deleted (after dedup marks them), so a searcher knows
 * without a scan of the documents (seconds on a large index, at every open of a search worker).
 */
export function recordDeleted(db: Db): void {
  // The deleted documents' numbers by a partial index: the searcher reads them when it opens
  // the set (they leave the collection's statistics) without a scan of every row's text.
  db.exec('CREATE INDEX IF NOT EXISTS docs_deleted ON docs(id) WHERE deleted = 1');
  const n = (db.prepare('SELECT count(*) AS n FROM docs WHERE deleted = 1').get() as { n: number }).n;
  db.prepare('INSERT OR REPLACE INTO info(key, value) VALUES (?, ?)').run('deleted', String(n));
}

export function finishIndex(db: Db, docCount: number, more: Record<string, string> = {}): void {
  const put = db.prepare('INSERT OR REPLACE INTO info(key, value) VALUES (?, ?)');
  put.run('doc_count', String(docCount));
  for (const [k, v] of Object.entries(more)) put.run(k, v);
  db.close();
}
