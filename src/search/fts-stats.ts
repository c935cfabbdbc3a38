/**
 * An FTS5 table's own statistics, read from its shadow tables: its rows and tokens (the
 * averages record, `fts_data` id 1: a varint of rows, then one of tokens per column) and a
 * row's length in tokens (`fts_docsize`: a varint per column). These are the numbers FTS5's
 * bm25() uses; the collection's statistics are their sums over the index sets (bm25.ts).
 */
import type { Db } from '../index/schema.js';

/** SQLite's varints (big-endian, seven bits a byte, the ninth byte whole), as FTS5 writes them. */
export function varints(buf: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < buf.length) {
    let x = 0;
    for (let n = 1; ; n++) {
      const b = buf[i++];
      if (n === 9) {
        x = x * 256 + b;
        break;
      }
      x = x * 128 + (b & 0x7f);
      if (!(b & 0x80) || i >= buf.length) break;
    }
    out.push(x);
  }
  return out;
}

/** The table's rows and tokens as FTS5 counts them (every row, deleted or not). */
export function tableTotals(db: Db): { rows: number; tokens: number } {
  const rec = db.prepare('SELECT block FROM fts_data WHERE id = 1').pluck().get() as Uint8Array | undefined;
  if (!rec) return { rows: 0, tokens: 0 };
  const [rows = 0, ...cols] = varints(rec);
  return { rows, tokens: cols.reduce((a, b) => a + b, 0) };
}

/** The table's tokens in each column, as FTS5 counts them (every row). */
export function columnTotals(db: Db): number[] {
  const rec = db.prepare('SELECT block FROM fts_data WHERE id = 1').pluck().get() as Uint8Array | undefined;
  return rec ? varints(rec).slice(1) : [];
}

/** The tokens of column `col` over rows `ids`. */
export function columnTokens(db: Db, ids: readonly number[], col: number): number {
  if (ids.length === 0) return 0;
  const rows = db.prepare('SELECT sz FROM fts_docsize WHERE id IN (SELECT value FROM json_each(?))').pluck().all(JSON.stringify(ids)) as Uint8Array[];
  let n = 0;
  for (const sz of rows) n += varints(sz)[col] ?? 0;
  return n;
}

/** Each row's length in tokens over every column, by row number. */
export function rowLengths(db: Db, ids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  const rows = db.prepare('SELECT id, sz FROM fts_docsize WHERE id IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify(ids)) as [
    number,
    Uint8Array,
  ][];
  for (const [id, sz] of rows)
    out.set(
      id,
      varints(sz).reduce((a, b) => a + b, 0),
    );
  return out;
}
