/**
 * A document's row, owned here: the docs table's columns (one list, in the table's order, with
 * their SQL types), the capture fields among them (where a version's record lies and what it
 * is), and a version's capture dates as an index keeps them (a space-separated list, merged
 * sorted and each date once). The schema, the index writer, merge, dedup, add-dates, dumpindex,
 * the searcher and collapse take them from here: a new stored field is a column here (and a
 * capture field, if it is one) and its value where the index job makes the document.
 */

/** Where a version's record lies and what it is: the capture fields of its row, and of a hit. */
export interface CaptureFields {
  mime: string;
  status: number | null;
  /** The payload's length in bytes. */
  length: number;
  collection: string;
  /** The segment that holds the version. */
  segment: string;
  /** The archive's name as CDX lines give it, and where it is read (a path, a URL, PACKAGE#ENTRY). */
  file: string;
  location: string;
  /** The record's offset in the archive and its length there (compressed). */
  offset: number;
  clen: number;
}

/** The capture fields' columns, in the table's order, with their SQL types (every field, checked by the compiler). */
const CAPTURE_COLUMNS = {
  mime: 'TEXT',
  status: 'INTEGER',
  length: 'INTEGER',
  collection: 'TEXT',
  segment: 'TEXT',
  file: 'TEXT',
  location: 'TEXT',
  offset: 'INTEGER',
  clen: 'INTEGER',
} as const satisfies Record<keyof CaptureFields, string>;

/** The capture fields' names, in the table's order. */
export const CAPTURE_FIELDS = Object.keys(CAPTURE_COLUMNS) as (keyof CaptureFields)[];

/** The docs table's columns, in order: the version's key and dates, its capture fields, what the ranking and filters read. */
export const DOC_COLUMNS: readonly { name: string; sql: string }[] = [
  { name: 'id', sql: 'INTEGER PRIMARY KEY' },
  { name: 'url', sql: 'TEXT NOT NULL' },
  { name: 'digest', sql: 'TEXT NOT NULL' },
  { name: 'date', sql: 'TEXT NOT NULL' },
  { name: 'dates', sql: 'TEXT NOT NULL' },
  ...CAPTURE_FIELDS.map((name) => ({ name, sql: CAPTURE_COLUMNS[name] })),
  { name: 'title', sql: 'TEXT' },
  { name: 'host', sql: 'TEXT' },
  { name: 'inlinks', sql: 'INTEGER' },
  { name: 'boost', sql: 'REAL NOT NULL' },
  { name: 'anchors', sql: 'TEXT' },
  // The language after the stored fields a hit shows (open-set.ts reads it with the text).
  { name: 'lang', sql: "TEXT NOT NULL DEFAULT ''" },
  // Marked by dedup; never inserted.
  { name: 'deleted', sql: 'INTEGER NOT NULL DEFAULT 0' },
  { name: 'urlkey', sql: 'INTEGER NOT NULL' },
];

/** The columns a document is inserted with (all but dedup's mark). */
export const INSERTED_COLUMNS = DOC_COLUMNS.map((c) => c.name).filter((n) => n !== 'deleted');

/** The columns dumpindex shows (all but the document number, which opens each line, and the URL's hash). */
export const SHOWN_COLUMNS = DOC_COLUMNS.map((c) => c.name).filter((n) => n !== 'id' && n !== 'urlkey');

/**
 * The docs table's CREATE statement, its columns wrapped at 110 characters: the text SQLite
 * keeps in the index file, so it is the same, byte for byte, as when it was written out by hand.
 */
export function docsTable(): string {
  const lines: string[] = [];
  let line = '';
  DOC_COLUMNS.forEach((c, i) => {
    const piece = `${c.name} ${c.sql}${i < DOC_COLUMNS.length - 1 ? ',' : ''}`;
    if (line && line.length + 1 + piece.length > 110) {
      lines.push(line);
      line = `  ${piece}`;
    } else line = line ? `${line} ${piece}` : `  ${piece}`;
  });
  lines.push(line);
  return `CREATE TABLE docs(\n${lines.join('\n')});`;
}

/** The capture fields of a row that has them and more (a hit or a document made from a row). */
export function captureFieldsOf(r: CaptureFields): CaptureFields {
  const out = {} as Record<keyof CaptureFields, unknown>;
  for (const f of CAPTURE_FIELDS) out[f] = r[f];
  return out as CaptureFields;
}

/** A row's dates (its space-separated list) as a list. */
export function datesOf(text: string): string[] {
  return text.split(' ').filter(Boolean);
}

/** Dates merged as an index keeps them: each once, in order. */
export function mergeDates(...lists: Iterable<string>[]): string[] {
  const all = new Set<string>();
  for (const l of lists) for (const d of l) all.add(d);
  return [...all].sort();
}

/** The first of a row's dates ('' for none). */
export function firstDate(text: string): string {
  return datesOf(text).sort()[0] ?? '';
}
