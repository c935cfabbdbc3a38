/**
 * A word-level diff of two texts (two versions of a page), by diff-match-patch's Myers diff over
 * words written as characters, as its own line mode writes lines (diff_linesToChars).
 *
 * Done in two passes, because Myers' work grows with the length of the texts times the edits
 * between them: two 200 KB texts with 1% of their words changed took diff-match-patch 150 ms
 * word by word (jsdiff's diffWords: 425 ms). First the texts' runs of words are compared, each
 * run ending at a sentence's end or at a word that a hash of it marks (boundaries set by the
 * words themselves, so an edit moves none of the boundaries around it); then, word by word, only
 * the runs replaced. Both passes share one deadline: past it, what is left is shown as deleted
 * and inserted whole, still a true account of the two texts, only not the shortest
 * (bench/compare.mjs measures it).
 */
import { DIFF_DELETE, DIFF_EQUAL, DIFF_INSERT, cleanupSemantic, makeDiff, type Diff } from '@sanity/diff-match-patch';

/** One part of a diff: words kept, deleted (only in the first text) or inserted (only in the second). */
export interface WordChange {
  op: 'equal' | 'delete' | 'insert';
  /** The words, separated by single spaces. */
  text: string;
}

export interface WordDiff {
  changes: WordChange[];
  /** The deadline came first: some of the parts are whole runs replaced rather than their words compared. */
  cut: boolean;
}

/** Character codes a word may take: below the surrogates, which diff-match-patch would treat as halves of a pair. */
const CODES = 0xd800;
/** Run boundaries: about one word in RUN_WORDS ends a run, besides sentence ends. */
const RUN_WORDS = 12;
const SENTENCE_END = /[.!?]$/;

/** Each distinct string as one character; the codes given in first-seen order. */
class Codes {
  private readonly ids = new Map<string, number>();
  readonly items: string[] = [];

  code(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.items.length;
      this.ids.set(s, id);
      this.items.push(s);
    }
    return id;
  }

  get full(): boolean {
    return this.items.length >= CODES;
  }
}

const UTF16 = new TextDecoder('utf-16le');

function charsOf(codes: Uint16Array): string {
  return UTF16.decode(codes);
}

/** A text's words (split at white space) as characters, one per word; undefined when the words outnumber the codes. */
function wordChars(words: readonly string[], codes: Codes): string | undefined {
  const out = new Uint16Array(words.length);
  for (let i = 0; i < words.length; i++) {
    out[i] = codes.code(words[i]);
    if (codes.full) return undefined;
  }
  return charsOf(out);
}

/** The text's runs of words, each as one character of `runs` (the runs' word characters in `runs.items`). */
function runChars(chars: string, words: readonly string[], runs: Codes): string {
  const out = new Uint16Array(chars.length);
  let n = 0;
  let start = 0;
  for (let i = 0; i < chars.length; i++) {
    const last = i === chars.length - 1 || (Math.imul(chars.charCodeAt(i), 0x9e3779b1) >>> 0) % RUN_WORDS === 0 || SENTENCE_END.test(words[i]);
    if (last) {
      out[n++] = runs.code(chars.slice(start, i + 1));
      start = i + 1;
    }
  }
  return charsOf(out.subarray(0, n));
}

/** Seconds left until `deadline` (performance.now() milliseconds), at least a millisecond's worth. */
function left(deadline: number): number {
  return Math.max(0.001, (deadline - performance.now()) / 1000);
}

/**
 * The words of `a` and `b` (white space is not compared) as a list of kept, deleted and
 * inserted runs, in order: the kept and deleted ones spell `a`, the kept and inserted ones `b`.
 * `budgetMs`: the time the comparison may take before it settles for a longer diff.
 */
export function wordDiff(a: string, b: string, budgetMs = 60): WordDiff {
  const deadline = performance.now() + budgetMs;
  const wa = a.split(/\s+/).filter(Boolean);
  const wb = b.split(/\s+/).filter(Boolean);
  const vocabulary = new Codes();
  const ca = wordChars(wa, vocabulary);
  const cb = ca === undefined ? undefined : wordChars(wb, vocabulary);
  // More distinct words than codes (some 55,000): the texts are compared as wholes.
  if (ca === undefined || cb === undefined)
    return {
      changes: spelled([
        [DIFF_DELETE, wa.join(' ')],
        [DIFF_INSERT, wb.join(' ')],
      ]),
      cut: true,
    };

  const runs = new Codes();
  const top = makeDiff(runChars(ca, wa, runs), runChars(cb, wb, runs), { checkLines: false, timeout: left(deadline) });
  // Each run's words are where the diff has got to in its text: a slice of the text's word characters.
  const words = (s: string) => {
    let n = 0;
    for (let i = 0; i < s.length; i++) n += runs.items[s.charCodeAt(i)].length;
    return n;
  };
  const coded: Diff[] = [];
  let cut = false;
  let [pa, pb] = [0, 0];
  for (let i = 0; i < top.length; i++) {
    const [op, s] = top[i];
    const next = top[i + 1];
    if (op === DIFF_DELETE && next?.[0] === DIFF_INSERT) {
      // A run replaced: its words compared, while there is time.
      const da = ca.slice(pa, (pa += words(s)));
      const db = cb.slice(pb, (pb += words(next[1])));
      if (performance.now() >= deadline) {
        cut = true;
        coded.push([DIFF_DELETE, da], [DIFF_INSERT, db]);
      } else coded.push(...makeDiff(da, db, { checkLines: false, timeout: left(deadline) }));
      i++;
    } else if (op === DIFF_INSERT) coded.push([op, cb.slice(pb, (pb += words(s)))]);
    else {
      const n = words(s);
      coded.push([op, ca.slice(pa, pa + n)]);
      pa += n;
      if (op === DIFF_EQUAL) pb += n;
    }
  }
  if (performance.now() >= deadline) cut = true;
  // Short kept words between changes folded into them ("the" kept amid a rewritten sentence);
  // each part then spelled from the words of its text, where the diff has got to in it.
  [pa, pb] = [0, 0];
  const changes: WordChange[] = [];
  for (const [op, s] of cleanupSemantic(coded)) {
    if (s === '') continue;
    const text = op === DIFF_INSERT ? wb.slice(pb, pb + s.length).join(' ') : wa.slice(pa, pa + s.length).join(' ');
    if (op !== DIFF_INSERT) pa += s.length;
    if (op !== DIFF_DELETE) pb += s.length;
    const last = changes[changes.length - 1];
    // Parts of one kind side by side (runs kept on either side of the first pass's boundary) as one.
    if (last?.op === opName(op)) last.text += ` ${text}`;
    else changes.push({ op: opName(op), text });
  }
  return { cut, changes };
}

function opName(op: number): WordChange['op'] {
  return op === DIFF_EQUAL ? 'equal' : op === DIFF_DELETE ? 'delete' : 'insert';
}

function spelled(diffs: Diff[]): WordChange[] {
  return diffs.filter(([, s]) => s !== '').map(([op, s]) => ({ op: opName(op), text: s }));
}
