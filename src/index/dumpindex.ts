/** dumpindex: a parallel set of indexes, joined by document number, as lines. */
import { openIndex, TEXT_IN_SEGMENTS, type Db } from './schema.js';
import { SegmentTexts, textRoots } from '../segment/segment-texts.js';
import { NwaxError } from '../util/errors.js';
import { SHOWN_COLUMNS } from './document.js';

export interface DumpOptions {
  count: boolean;
  list: boolean;
  field?: string;
}

/** A main index's fields, as its rows hold them (document.ts), and its text. */
const MAIN_FIELDS = SHOWN_COLUMNS;

export function* dumpIndexes(paths: string[], opts: DumpOptions): Generator<string> {
  const open = paths.map((p) => ({ path: p, ...openIndex(p) }));
  try {
    const n = open[0].info.docCount;
    for (const o of open) {
      if (o.info.docCount !== n) throw new NwaxError('NWAX_FORMAT', `${o.path} holds ${o.info.docCount} documents, ${open[0].path} ${n}: not a parallel set`);
    }
    if (opts.count) {
      yield String(n);
      return;
    }
    // Field name -> the index that holds it (a later index's field of the same name is shown
    // as NAME.N, N its position: the dates of a dates index next to the main index's own).
    const fields: { name: string; db: Db; table: string; column: string }[] = [];
    const texts = new SegmentTexts();
    open.forEach((o, i) => {
      const cols = o.info.kind === 'main' ? [...MAIN_FIELDS, 'text'] : ['dates'];
      for (const c of cols) {
        const name = fields.some((f) => f.name === c) ? `${c}.${i}` : c;
        let column = c;
        if (c === 'text' && o.info.version >= TEXT_IN_SEGMENTS) {
          // The text is in the document's segment, beside the index: read there, row by row.
          const near = textRoots(o.path, o.info.segmentRoots);
          o.db.function('nwax_text', (seg: unknown, url: unknown, digest: unknown) => texts.text(String(seg ?? ''), String(url), String(digest), near) ?? '');
          column = 'nwax_text(segment, url, digest)';
        }
        fields.push({ name, db: o.db, table: o.info.kind === 'main' ? 'docs' : 'dates', column });
      }
    });
    if (opts.list) {
      for (const f of fields) yield f.name;
      return;
    }
    const chosen = opts.field ? fields.filter((f) => f.name === opts.field) : fields.filter((f) => f.name !== 'text' && !f.name.startsWith('text.'));
    if (chosen.length === 0) throw new NwaxError('NWAX_USAGE', `no field ${opts.field} (fields: ${fields.map((f) => f.name).join(', ')})`, 2);
    // One cursor per database (a connection runs one query at a time), in document order.
    const dbs = [...new Set(chosen.map((f) => f.db))];
    const cursors = dbs.map((db) => {
      const mine = chosen.filter((f) => f.db === db);
      return db
        .prepare(`SELECT ${mine.map((f, i) => `${f.column} AS c${i}`).join(', ')} FROM ${mine[0].table} ORDER BY id`)
        .raw()
        .iterate() as Iterator<unknown[]>;
    });
    for (let id = 1; id <= n; id++) {
      const rows = cursors.map((c) => (c.next().value as unknown[] | undefined) ?? []);
      const values = dbs.flatMap((_, i) => rows[i]);
      const cells = values.map((v, i) => (opts.field ? String(v ?? '') : `${chosen[i].name}=${String(v ?? '')}`));
      yield `${id}\t${cells.join(opts.field ? '' : ' ')}`;
    }
    for (const c of cursors) c.return?.();
  } finally {
    for (const o of open) o.db.close();
  }
}
