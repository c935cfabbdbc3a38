/**
 * dedup (Nutch's DeleteDuplicates for versions): the same `URL digest` indexed more than once
 * across main indexes (two imports that both held a capture, say) keeps one document, the one
 * captured first (then the first index given, then the lowest number), which gets every date of
 * all of them; the others are marked deleted, so document numbers stay aligned with parallel
 * indexes. Each index is read in URL order, the indexes merged as sorted streams, so memory
 * holds the duplicates found, not the documents; each index is updated in one transaction.
 */
import Database from 'better-sqlite3';
import { readInfo, recordDeleted } from './schema.js';
import { NwaxError } from '../util/errors.js';
import { datesOf, mergeDates } from './document.js';

export interface DedupResult {
  groups: number;
  deleted: number;
}

interface Entry {
  index: number;
  id: number;
  url: string;
  digest: string;
  date: string;
  dates: string;
}

function openMainIndexes(paths: string[]): Database.Database[] {
  return paths.map((p) => {
    const db = new Database(p, { fileMustExist: true });
    const info = readInfo(db, p);
    if (info.kind !== 'main') throw new NwaxError('NWAX_USAGE', `dedup: ${p} is a ${info.kind} index; give main indexes`, 2);
    return db;
  });
}

export function dedupIndexes(paths: string[]): DedupResult {
  const dbs = openMainIndexes(paths);
  const keep = new Map<number, { id: number; dates: string }[]>();
  const drop = new Map<number, number[]>();
  const result: DedupResult = { groups: 0, deleted: 0 };
  try {
    const cursors = dbs.map((db, index) => {
      const it = db.prepare('SELECT id, url, digest, date, dates FROM docs WHERE deleted = 0 ORDER BY url, digest, id').iterate() as Iterator<
        Omit<Entry, 'index'>
      >;
      return { index, it, head: undefined as Entry | undefined };
    });
    const advance = (c: (typeof cursors)[number]) => {
      const r = c.it.next();
      c.head = r.done ? undefined : { ...r.value, index: c.index };
    };
    cursors.forEach(advance);
    const keyOf = (e: Entry) => `${e.url} ${e.digest}`;
    for (;;) {
      const live = cursors.filter((c) => c.head);
      if (live.length === 0) break;
      // The smallest key among the heads, and every entry with it from every index.
      const key = live.map((c) => keyOf(c.head!)).reduce((a, b) => (b < a ? b : a));
      const group: Entry[] = [];
      for (const c of live) {
        while (c.head && keyOf(c.head) === key) {
          group.push(c.head);
          advance(c);
        }
      }
      if (group.length < 2) continue;
      result.groups++;
      group.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.index - b.index || a.id - b.id));
      const [first, ...rest] = group;
      const dates = mergeDates(...group.map((e) => datesOf(e.dates))).join(' ');
      keep.set(first.index, [...(keep.get(first.index) ?? []), { id: first.id, dates }]);
      for (const e of rest) drop.set(e.index, [...(drop.get(e.index) ?? []), e.id]);
      result.deleted += rest.length;
    }
    dbs.forEach((db, i) => {
      const setDates = db.prepare('UPDATE docs SET dates = ? WHERE id = ?');
      const del = db.prepare('UPDATE docs SET deleted = 1 WHERE id = ?');
      db.transaction(() => {
        for (const k of keep.get(i) ?? []) setDates.run(k.dates, k.id);
        for (const id of drop.get(i) ?? []) del.run(id);
        recordDeleted(db);
      })();
    });
    return result;
  } finally {
    for (const db of dbs) db.close();
  }
}

/**
 * dedup by content (Nutch's DeduplicationJob, for a live crawl): documents of different URLs
 * with the same digest (a page served under two URLs) keep one: the highest boost, then the
 * shortest URL, then the first in byte order; the others are marked deleted.
 */
export function dedupByDigest(paths: string[]): DedupResult {
  const dbs = openMainIndexes(paths);
  const result: DedupResult = { groups: 0, deleted: 0 };
  try {
    type Row = { index: number; id: number; url: string; digest: string; boost: number };
    const cursors = dbs.map((db, index) => ({
      index,
      it: db.prepare('SELECT id, url, digest, boost FROM docs WHERE deleted = 0 ORDER BY digest, id').iterate() as Iterator<Omit<Row, 'index'>>,
      head: undefined as Row | undefined,
    }));
    const advance = (c: (typeof cursors)[number]) => {
      const r = c.it.next();
      c.head = r.done ? undefined : { ...r.value, index: c.index };
    };
    cursors.forEach(advance);
    const drop = new Map<number, number[]>();
    for (;;) {
      const live = cursors.filter((c) => c.head);
      if (live.length === 0) break;
      const digest = live.map((c) => c.head!.digest).reduce((a, b) => (b < a ? b : a));
      const group: Row[] = [];
      for (const c of live)
        while (c.head && c.head.digest === digest) {
          group.push(c.head);
          advance(c);
        }
      if (group.length < 2) continue;
      result.groups++;
      group.sort((a, b) => b.boost - a.boost || a.url.length - b.url.length || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
      for (const e of group.slice(1)) drop.set(e.index, [...(drop.get(e.index) ?? []), e.id]);
      result.deleted += group.length - 1;
    }
    dbs.forEach((db, i) => {
      const del = db.prepare('UPDATE docs SET deleted = 1 WHERE id = ?');
      db.transaction(() => {
        for (const id of drop.get(i) ?? []) del.run(id);
        recordDeleted(db);
      })();
    });
    return result;
  } finally {
    for (const db of dbs) db.close();
  }
}
