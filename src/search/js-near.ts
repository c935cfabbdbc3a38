/**
 * nwax_near's JavaScript twin (where the ranking extension is not built, or NWAX_NATIVE leaves
 * `rank` to JavaScript). An auxiliary function cannot be written in JavaScript, but FTS5's NEAR
 * answers the same question: NEAR(p_1 .. p_n, k) matches a column exactly when its gap
 * (proximity.ts) is at most k. Each step of the ladder is asked once of the rows not yet
 * placed, so a row's step is the least that matches: what nwax_near's gap cut to the ladder
 * gives. The passage's place is not found this way: a snippet without it starts at the first
 * match, as before proximity.
 */
import type { Db } from '../index/schema.js';
import { LADDER } from './proximity.js';

/**
 * The step of rows `ids` (those with a window within the ladder) for the phrases `phrases`
 * (each in FTS5's syntax) in any of `columns`.
 */
export function nearSteps(db: Db, phrases: readonly string[], columns: readonly string[], ids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  if (phrases.length < 2 || columns.length === 0) return out;
  const filter = `{${columns.join(' ')}} : `;
  // `rowid IN`: each row looked up by FTS5 (a seek in each phrase's doclist), not the whole match.
  const stmt = db.prepare('SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))').pluck();
  let left = [...ids];
  for (const k of LADDER) {
    if (left.length === 0) break;
    const found = new Set(stmt.all(`${filter}NEAR(${phrases.join(' ')}, ${k})`, JSON.stringify(left)) as number[]);
    for (const id of found) out.set(id, k);
    left = left.filter((id) => !found.has(id));
  }
  return out;
}
