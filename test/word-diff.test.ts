import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';
import { wordDiff, type WordChange } from '../src/util/word-diff.js';
import { compareVersions } from '../src/search/version-compare.js';

/** The two texts a diff spells: kept and deleted words, kept and inserted ones. */
function sides(changes: WordChange[]): [string, string] {
  const of = (skip: string) =>
    changes
      .filter((c) => c.op !== skip)
      .map((c) => c.text)
      .join(' ');
  return [of('insert'), of('delete')];
}

/** The project's own docs as a long text of prose: some 200 KB of words. */
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => readFileSync(join(ROOT, 'docs', f), 'utf8'))
  .join(' ')
  .replace(/\s+/g, ' ')
  .trim();

describe('wordDiff', () => {
  it('marks the words changed between two versions of the worked example, and nothing else', () => {
    expect(wordDiff('My homepage Hello, welcome to my page.', "My homepage Sorry I haven't updated this in a while.").changes).toEqual([
      { op: 'equal', text: 'My homepage' },
      { op: 'delete', text: 'Hello, welcome to my page.' },
      { op: 'insert', text: "Sorry I haven't updated this in a while." },
    ]);
    expect(wordDiff('the quick brown fox jumps over the lazy dog', 'the quick brown fox jumps over the lazy cat today').changes).toEqual([
      { op: 'equal', text: 'the quick brown fox jumps over the lazy' },
      { op: 'delete', text: 'dog' },
      { op: 'insert', text: 'cat today' },
    ]);
    expect(wordDiff('same  words\nhere', 'same words here')).toEqual({ cut: false, changes: [{ op: 'equal', text: 'same words here' }] });
    expect(wordDiff('', 'new page').changes).toEqual([{ op: 'insert', text: 'new page' }]);
  });

  it('finds one changed word in 200 KB of text, and spells both texts back from a diff of many changes', () => {
    // Cut at a word's end: white space is not compared, so neither text ends in it.
    const a = DOCS.slice(0, 200_000).trim();
    const words = a.split(' ');
    const i = Math.floor(words.length / 2);
    const one = [...words.slice(0, i), 'CHANGED', ...words.slice(i + 1)].join(' ');
    const d = wordDiff(a, one, 5_000);
    expect(d.changes.filter((c) => c.op !== 'equal')).toEqual([
      { op: 'delete', text: words[i] },
      { op: 'insert', text: 'CHANGED' },
    ]);
    // Every 50th word rewritten, every 70th dropped: whatever the diff, it spells both texts.
    const many = words.flatMap((w, k) => (k % 70 === 0 ? [] : k % 50 === 0 ? [`${w}-edited`] : [w])).join(' ');
    const m = wordDiff(a, many, 5_000);
    expect(sides(m.changes)).toEqual([a, many]);
    expect(m.cut).toBe(false);
    const inserted = m.changes.filter((c) => c.op === 'insert').reduce((n, c) => n + c.text.split(' ').length, 0);
    // About one word in 50 rewritten: a diff that marks few more than those.
    expect(inserted).toBeLessThan(words.length / 50 + words.length / 100);
  });

  it('past its budget, still spells both texts: what was not compared is shown replaced whole', () => {
    const a = DOCS.slice(0, 100_000);
    const b = DOCS.slice(100_000, 200_000);
    const d = wordDiff(a, b, 0);
    expect(d.cut).toBe(true);
    expect(sides(d.changes)).toEqual([a.trim(), b.trim()]);
  });
});

describe('compareVersions', () => {
  it('says which words, title and links changed', () => {
    const c = compareVersions(
      { url: 'http://x.example/', digest: 'sha1:A', title: 'Old', text: 'one two three', links: ['http://a.example/', 'http://b.example/'] },
      { url: 'http://x.example/', digest: 'sha1:B', title: 'New', text: 'one three four five', links: ['http://b.example/', 'http://c.example/'] },
    );
    expect([c.inserted, c.deleted, c.title]).toEqual([2, 1, { from: 'Old', to: 'New' }]);
    expect(c.links).toEqual({ added: ['http://c.example/'], removed: ['http://a.example/'] });
    const unknown = compareVersions(
      { url: 'u', digest: 'a', title: 'T', text: 'x', links: undefined },
      { url: 'u', digest: 'b', title: 'T', text: 'x', links: [] },
    );
    expect([unknown.title, unknown.links]).toEqual([undefined, undefined]);
  });
});
