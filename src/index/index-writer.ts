/**
 * Writes documents into a main index, in one transaction. Stored
 * fields are what a hit shows and what filters read; the text is indexed, not stored: snippets
 * read it from the document's segment (segment/segment-texts.ts).
 *
 * The text index is loaded by fts-load.ts: FTS5's segments written by the addon, or the rows
 * inserted through FTS5, the same records either way. Terms are held in memory until they pass
 * `hashsize`, then written as a segment; `optimize` merges the segments at the end. One
 * transaction and a larger hash write fewer, larger segments: on the bench corpus a part of 9k
 * documents is one segment. A reader never sees the index before it is renamed into place, so
 * nothing waits on a commit.
 */
import { createIndex, finishIndex, urlKey, FTS_COLUMNS, type Db } from './schema.js';
import { ftsLoad, type FtsLoad } from './fts-load.js';
import type { JsonText } from '../util/json-bytes.js';
import { NwaxError } from '../util/errors.js';
import type Database from 'better-sqlite3';
import { INSERTED_COLUMNS, captureFieldsOf, type CaptureFields } from './document.js';

export interface IndexDocument extends CaptureFields {
  url: string;
  digest: string;
  /** The first capture date; `dates` holds all of them known at index time. */
  date: string;
  dates: string[];
  title: string;
  /** Indexed, not stored: the segment named by `segment` keeps it under `url digest`. As JSON bytes from the index job's shuffle. */
  text: string | JsonText;
  anchors: string[];
  inlinks: number;
  boost: number;
  /** The language (ISO 639-1 where there is one, else 639-3), '' when unknown. */
  lang: string;
  /** The folder holding the segment (`crawl/segments`): recorded once for the index, not per row. */
  segmentRoot?: string;
}

/** Host for site: (lower case, without `www.`). */
export function siteHost(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\d*\./, '');
  } catch {
    return '';
  }
}

/** The words of a URL (host parts, path segments, %-escapes undone), so a query for them finds the page. */
export function urlWords(url: string): string {
  const rest = url.replace(/^[a-z]+:\/\//i, '');
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

/** The distinct years of capture dates (YYYY...), as the `years` column holds them: `2007 2009`. */
export function captureYears(dates: readonly string[]): string {
  return [...new Set(dates.map((d) => d.slice(0, 4)).filter((y) => /^\d{4}$/.test(y)))].sort().join(' ');
}

export interface IndexWriterOptions {
  /**
   * Bytes of new terms FTS5 holds in memory before it writes them as a segment (its `hashsize`
   * option; FTS5's own default is 1 MiB). Default: FTS5's.
   * @example { ftsHashSize: 64 << 20 }
   */
  ftsHashSize?: number;
}

export class IndexWriter {
  private readonly db: Db;
  private readonly insertDoc: Database.Statement;
  private readonly fts: FtsLoad;
  private count = 0;
  /** Where the documents' segments lie (segment_roots in the index's info). */
  private readonly segmentRoots = new Set<string>();

  constructor(
    readonly path: string,
    opts: IndexWriterOptions = {},
  ) {
    this.db = createIndex(path, 'main');
    this.insertDoc = this.db.prepare(`INSERT INTO docs(${INSERTED_COLUMNS.join(', ')}) VALUES (${INSERTED_COLUMNS.map((c) => `@${c}`).join(', ')})`);
    this.fts = ftsLoad(this.db, path, FTS_COLUMNS, opts.ftsHashSize);
    this.db.exec('BEGIN');
  }

  add(d: IndexDocument): void {
    const id = ++this.count;
    const host = siteHost(d.url);
    if (d.segmentRoot) this.segmentRoots.add(d.segmentRoot);
    this.insertDoc.run({
      id,
      url: d.url,
      digest: d.digest,
      date: d.date,
      dates: d.dates.join(' '),
      ...captureFieldsOf(d),
      title: d.title,
      host,
      inlinks: d.inlinks,
      boost: d.boost,
      anchors: d.anchors.join('\n'),
      lang: d.lang,
      urlkey: urlKey(d.url),
    });
    try {
      this.fts.add(id, [d.title, d.text, d.anchors.join('\n'), urlWords(d.url), host, captureYears(d.dates)]);
    } catch (e) {
      // A text kept as JSON bytes is read here first: say whose it was.
      if (e instanceof NwaxError && e.code === 'NWAX_BAD_JSON') throw new NwaxError(e.code, `the text of ${d.url} ${d.digest}: ${e.message}`);
      throw e;
    }
  }

  /** Folders where the documents' segments lie, beside those the documents named (merge: its inputs'). */
  addSegmentRoots(roots: readonly string[]): void {
    for (const r of roots) this.segmentRoots.add(r);
  }

  close(): number {
    this.fts.beforeCommit();
    this.db.exec('COMMIT');
    this.fts.afterCommit();
    finishIndex(this.db, this.count, { deleted: '0', segment_roots: JSON.stringify([...this.segmentRoots].sort()) });
    return this.count;
  }
}
