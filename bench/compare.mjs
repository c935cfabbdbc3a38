// Two versions of a page compared (/compare, issue: a researcher's search page): nwax's word
// diff (src/util/word-diff.ts: diff-match-patch over runs of words, then words) against jsdiff's
// diffWords on the same two texts, same run. The texts: 200 KB of real prose (the project's
// docs), against itself with one word changed, with one word in a hundred rewritten (and one in
// two hundred dropped, one in a hundred and fifty added), and against the docs' last 200 KB (other prose but for a
// stretch that the first text ends with).
// Medians of `runs` (default 5) after one warming call. Target: under 100 ms each.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { diffWords } from 'diff';
import { ROOT, median, table } from './lib.mjs';

const JSDIFF_TIMEOUT_MS = 10_000;

function time(fn, runs) {
  fn();
  const ms = [];
  let out;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    out = fn();
    ms.push(performance.now() - t);
  }
  return { ms: median(ms), out };
}

export async function benchCompare({ runs = 5 } = {}) {
  const { wordDiff } = await import(join(ROOT, 'dist', 'util', 'word-diff.js'));
  const prose = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => readFileSync(join(ROOT, 'docs', f), 'utf8'))
    .join(' ')
    .replace(/\s+/g, ' ');
  if (prose.length < 300_000) throw new Error(`docs/ holds ${prose.length} characters of prose; the bench needs 300,000`);
  const a = prose.slice(0, 200_000).trim();
  const words = a.split(' ');
  const half = words.length >> 1;
  const cases = [
    ['one word changed', [...words.slice(0, half), 'CHANGED', ...words.slice(half + 1)].join(' ')],
    ['1 word in 100 rewritten', words.flatMap((w, i) => (i % 200 === 7 ? [] : i % 150 === 3 ? [w, 'added'] : i % 100 === 0 ? [`${w}-x`] : [w])).join(' ')],
    ['the last 200 KB of the docs (mostly other prose)', prose.slice(-200_000).trim()],
  ];
  const rows = [['texts (200 KB each)', 'nwax ms', 'words marked', 'cut', 'jsdiff diffWords ms', 'jsdiff / nwax']];
  for (const [name, b] of cases) {
    const n = time(() => wordDiff(a, b), runs);
    const marked = n.out.changes.filter((c) => c.op !== 'equal').reduce((k, c) => k + c.text.split(' ').length, 0);
    // jsdiff gives up (undefined) past its timeout: its time then is a lower bound.
    const j = time(() => diffWords(a, b, { timeout: JSDIFF_TIMEOUT_MS }), Math.min(runs, 3));
    const jms = j.out === undefined ? `> ${JSDIFF_TIMEOUT_MS}` : j.ms.toFixed(1);
    rows.push([name, n.ms.toFixed(1), marked, n.out.cut ? 'yes' : 'no', jms, `${(j.ms / n.ms).toFixed(1)}x`]);
  }
  return `compare: two versions' texts, word by word (medians of ${runs}; target < 100 ms)\n${table(rows)}`;
}
