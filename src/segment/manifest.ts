/**
 * The import manifest: one archive per line, `<path or URL> [<collection>]`; blank lines and
 * `#` comments are skipped (as NutchWAX's manifests). A path that holds spaces is quoted as in
 * CSV (`"/data/crawl 2007/a.warc.gz" october`, `""` for a quote inside); a line with a tab is
 * read as TSV (`path<TAB>collection`, quotes as in CSV), so a path may hold spaces unquoted
 * there. Quoted and TSV lines are read by csv-parse; a plain line is split at white space.
 */
import { parse } from 'csv-parse/sync';
import { NwaxError } from '../util/errors.js';

export interface ManifestEntry {
  location: string;
  collection: string;
}

export function parseManifestLine(line: string): ManifestEntry | undefined {
  const t = line.trim();
  if (t === '' || t.startsWith('#')) return undefined;
  const tsv = t.includes('\t');
  if (!tsv && !t.includes('"')) {
    const [location, collection = ''] = t.split(/\s+/, 2);
    return { location, collection };
  }
  let rows: string[][];
  try {
    rows = parse(t, { delimiter: tsv ? '\t' : ' ', quote: '"', relax_column_count: true, relax_quotes: true, skip_empty_lines: true });
  } catch (err) {
    throw new NwaxError('NWAX_FORMAT', `not "path [collection]" (${(err as Error).message.replace(/^Invalid Record Length: |^Quote Not Closed: /, '')})`);
  }
  // A space-delimited line gives an empty field per extra space.
  const fields = (rows[0] ?? []).filter((f, i) => (tsv ? i < 2 : f !== ''));
  if (!fields[0]) return undefined;
  return { location: fields[0], collection: (fields[1] ?? '').trim() };
}
