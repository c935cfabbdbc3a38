/**
 * Two versions of a page compared, as the Wayback Machine's "Changes" shows them: the text's
 * words inserted and deleted, the title if it changed, the links added and removed.
 */
import { type WordDiff, wordDiff } from '../util/word-diff.js';
import type { VersionParse } from './types.js';

export interface VersionComparison {
  text: WordDiff;
  /** Words inserted and deleted. */
  inserted: number;
  deleted: number;
  /** The titles where they differ. */
  title: { from: string; to: string } | undefined;
  /** Outlinks in the later version only, and in the earlier only (page order); undefined where either's links are unknown. */
  links: { added: string[]; removed: string[] } | undefined;
}

const count = (s: string) => (s ? s.split(' ').length : 0);

/** What changed from version `from` to version `to`; `budgetMs`: the time the text's diff may take (word-diff.ts). */
export function compareVersions(from: VersionParse, to: VersionParse, budgetMs?: number): VersionComparison {
  const text = wordDiff(from.text, to.text, budgetMs);
  let inserted = 0;
  let deleted = 0;
  for (const c of text.changes) {
    if (c.op === 'insert') inserted += count(c.text);
    else if (c.op === 'delete') deleted += count(c.text);
  }
  const title = from.title === to.title ? undefined : { from: from.title, to: to.title };
  let links: VersionComparison['links'];
  if (from.links && to.links) {
    const [before, after] = [new Set(from.links), new Set(to.links)];
    links = { added: [...after].filter((u) => !before.has(u)), removed: [...before].filter((u) => !after.has(u)) };
  }
  return { text, inserted, deleted, title, links };
}
