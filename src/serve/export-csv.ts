/**
 * A query's versions as CSV, to take away for analysis (SolrWayback's "export to CSV"): every
 * version the query finds that the request's user class may see, one row each, in the
 * collection's order (not ranked: a researcher wants all of them, not the best ten), with the
 * fields asked for. Rows are made as the view hands them over, so an answer of any size holds
 * one batch; the service bounds how many rows one answer has and how many stream at once.
 */
import { stringify } from 'csv-stringify/sync';
import { datesOf, mergeDates } from '../index/document.js';
import type { Row } from '../search/types.js';
import { replayUrl } from './render-text.js';

/** The fields a row can have, in their default order. */
export const CSV_FIELDS = ['url', 'digest', 'title', 'first', 'last', 'captures', 'dates', 'type', 'status', 'size', 'collection', 'replay'] as const;
export type CsvField = (typeof CSV_FIELDS)[number];

/** The fields of `fields=` (comma-separated), or why they are not fields. */
export function csvFields(param: string | null): CsvField[] | string {
  if (!param) return [...CSV_FIELDS];
  const asked = param.split(',').map((f) => f.trim());
  const unknown = asked.filter((f) => !(CSV_FIELDS as readonly string[]).includes(f));
  if (unknown.length || asked.length === 0) return `fields: ${unknown.join(', ') || '(none)'}: not a field; the fields are ${CSV_FIELDS.join(', ')}`;
  return asked as CsvField[];
}

/** One field of a version's row; `dates`: its capture dates, sorted, each once. */
function value(row: Row, dates: string[], field: CsvField, template: string): string | number {
  switch (field) {
    case 'url':
      return row.url;
    case 'digest':
      return row.digest;
    case 'title':
      return row.title;
    case 'first':
      return dates[0] ?? '';
    case 'last':
      return dates[dates.length - 1] ?? '';
    case 'captures':
      return dates.length;
    case 'dates':
      return dates.join(' ');
    case 'type':
      return row.mime;
    case 'status':
      return row.status ?? '';
    case 'size':
      return row.length;
    case 'collection':
      return row.collection;
    case 'replay':
      return template ? replayUrl(template, row, dates[0] ?? '') : '';
  }
}

/**
 * The CSV lines (without their line ends) of the versions `rows` gives, the header first, at
 * most `limit` of them, each version once where several index sets hold it. Gives the event
 * loop a turn every thousand rows (the rows are read on the service's thread).
 */
export async function* csvLines(rows: Iterable<Row>, fields: CsvField[], template: string, limit: number): AsyncGenerator<string> {
  yield stringify([fields]).trimEnd();
  const seen = new Set<string>();
  let n = 0;
  for (const row of rows) {
    const key = `${row.url} ${row.digest}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (n++ >= limit) return;
    // A record of its own, quoted where it must be (a title with a comma, a quote or a newline).
    const dates = mergeDates(datesOf(row.dates));
    yield stringify([fields.map((f) => value(row, dates, f, template))]).replace(/\r?\n$/, '');
    if (n % 1000 === 0) await new Promise((r) => setImmediate(r));
  }
}
