/**
 * eld's `detect(text)` and `isReliable()` (eld 2.1, its extra-small database), the same answer
 * in less than half the time. Language identification was an eighth of an import's CPU on the
 * bench corpus, and most of eld's own time goes to how it keeps its data, not to the
 * arithmetic: a plain object of the text's n-grams enumerated with `for...in`, and for each
 * n-gram `for...in` over an object of language scores. Here the scores of each n-gram are an
 * Int32Array, made once from eld's database, and the text's n-grams a Set; where the addon is
 * built, the n-grams are cut, told apart and scored in C over the same table
 * (native/eld-score.c: the detection's time on the bench corpus's pages 295 -> 185 ms, the
 * rest being the text's preparation, eld's regular expression and lower-casing).
 *
 * Everything else is eld's, step for step, quirks included (an n-gram cut at 70 bytes runs to
 * the end of its word; the runner-up compared in isReliable is its language number, not its
 * score): eld's separators, byte dictionary, database and average scores are read from the
 * installed package. test/language.test.ts holds this to eld itself, on generated text in many
 * scripts and on every page of the shared fixtures. A database of another shape than this
 * code knows makes `loadEldScorer` return undefined, and eld is called as it is.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { nativeAddon } from '../util/native-addon.js';

export interface EldAnswer {
  language: string;
  reliable: boolean;
}

interface EldData {
  ngramsData: { type: string; languages: Record<string, string>; ngrams: Record<string, Record<string, number>> };
  separators: RegExp;
  dictionary: string[];
  avgScore: Record<string, number>;
}

/** eld's calculateScores: each n-gram found adds its score plus this (its database stores them less it). */
const BASE_NGRAM_SCORE = 53;

export interface EldScorerOptions {
  /**
   * Count and score the n-grams in the addon (native/eld-score.c) where it is built. Default
   * true; false keeps to the JavaScript (the tests hold one to the other).
   */
  native?: boolean;
}

/** The scorer over eld's files in `dir` (the package folder), or undefined when they are not as expected. */
export function loadEldScorer(dir: string, opts: EldScorerOptions = {}): ((text: string) => EldAnswer) | undefined {
  let data: EldData;
  try {
    const require = createRequire(import.meta.url);
    const src = (f: string) => require(join(dir, 'src', f)) as Record<string, unknown>;
    data = {
      ngramsData: src('ngrams/extrasmall.js').ngramsData as EldData['ngramsData'],
      separators: src('regexPatterns.js').separators as RegExp,
      dictionary: src('dictionary.js').dictionary as string[],
      avgScore: src('avgScore.js').avgScore as Record<string, number>,
    };
  } catch {
    return undefined;
  }
  const { ngramsData, separators, dictionary, avgScore } = data;
  if (ngramsData?.type !== 'XS60' || !(separators instanceof RegExp) || dictionary?.length !== 256 || typeof avgScore !== 'object') return undefined;
  const codes = Object.keys(ngramsData.languages).map(Number);
  const languages = codes.length;
  if (!codes.every((c, i) => c === i)) return undefined;
  // Per n-gram: language number and score, in pairs.
  const table = new Map<string, Int32Array>();
  for (const [ngram, scores] of Object.entries(ngramsData.ngrams)) {
    const langs = Object.keys(scores);
    const w = new Int32Array(langs.length * 2);
    langs.forEach((l, i) => {
      w[2 * i] = Number(l);
      w[2 * i + 1] = scores[l] + BASE_NGRAM_SCORE;
    });
    table.set(ngram, w);
  }
  const scores = new Float64Array(languages);
  // The n-grams of a prepared text, each distinct one's scores summed into `scores`; returns
  // how many distinct n-grams it has. The addon's (native/eld-score.c) where it is built.
  const counted = (text: string): number => {
    const ngrams = new Set<string>();
    for (const word of utf8Words(text, dictionary)) {
      const len = Math.min(word.length, 70);
      let j: number;
      for (j = 0; j + 4 < len; j += 3) ngrams.add((j === 0 ? ' ' : '') + word.substring(j, j + 4));
      ngrams.add((j === 0 ? ' ' : '') + word.substring(len !== 3 ? len - 4 : 0) + ' ');
    }
    scores.fill(0);
    for (const g of ngrams) {
      const w = table.get(g);
      if (w) for (let i = 0; i < w.length; i += 2) scores[w[i]] += w[i + 1];
    }
    return ngrams.size;
  };
  const native = opts.native === false ? undefined : nativeTable(table, dictionary, languages);
  const count = native ? (text: string) => native.score(text, scores) : counted;

  return (input: string): EldAnswer => {
    const text = input.substring(0, 1000).replace(separators, ' ').trim().toLowerCase();
    const n = count(text);
    // getMaxLang: the first highest positive score.
    let best = -1;
    let max = 0;
    for (let l = 0; l < languages; l++) {
      if (scores[l] > 0 && scores[l] > max) {
        max = scores[l];
        best = l;
      }
    }
    if (best < 0) return { language: '', reliable: false };
    const language = ngramsData.languages[best];
    if (n < 3) return { language, reliable: false };
    // orderAndScale, then isReliable at its default ratio (0.75).
    const ranked: [number, number][] = [];
    for (let l = 0; l < languages; l++) {
      if (scores[l] > 0) {
        const s = scores[l] / n;
        ranked.push([l, s / (s + 25)]);
      }
    }
    ranked.sort((a, b) => b[1] - a[1]);
    const next = ranked.length > 1 ? ranked[1][0] : 0;
    return { language, reliable: !(avgScore[language] * 0.75 > ranked[0][1] || 0.01 > Math.abs(ranked[0][1] - next)) };
  };
}

type EldTable = (keys: Uint8Array, keyAt: Int32Array, weights: Int32Array, wAt: Int32Array, dict: Uint8Array, languages: number) => unknown;
type EldScore = (table: unknown, text: string, scores: Float64Array) => number;

/**
 * The table in the addon: each n-gram's characters as bytes (eld's are codes 0..255), and its
 * (language, score) pairs. Undefined where the addon is not built, or the data holds a
 * character past 255 (then the JavaScript counts).
 */
function nativeTable(table: Map<string, Int32Array>, dictionary: string[], languages: number): { score(text: string, scores: Float64Array): number } | undefined {
  const make = nativeAddon?.eldTable as EldTable | undefined;
  const score = nativeAddon?.eldScore as EldScore | undefined;
  if (!make || !score) return undefined;
  const dict = new Uint8Array(256);
  for (let b = 0; b < 256; b++) {
    const c = dictionary[b].charCodeAt(0);
    if (dictionary[b].length !== 1 || c > 255) return undefined;
    dict[b] = c;
  }
  let keyBytes = 0;
  let pairs = 0;
  for (const [key, w] of table) {
    keyBytes += key.length;
    pairs += w.length;
  }
  const keys = new Uint8Array(keyBytes);
  const keyAt = new Int32Array(table.size + 1);
  const weights = new Int32Array(pairs);
  const wAt = new Int32Array(table.size + 1);
  let k = 0;
  for (const [key, w] of table) {
    let at = keyAt[k];
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c > 255) return undefined;
      keys[at++] = c;
    }
    keyAt[k + 1] = at;
    weights.set(w, wAt[k]);
    wAt[k + 1] = wAt[k] + w.length;
    k++;
  }
  const handle = make(keys, keyAt, weights, wAt, dict, languages);
  return { score: (text, scores) => score(handle, text, scores) };
}

/**
 * eld's strToUtf8Bytes: the words of the text as strings of UTF-8 bytes, each byte one
 * character of eld's dictionary, up to the first space past 350 bytes or any character past 380.
 */
function utf8Words(str: string, dictionary: string[]): string[] {
  let encoded = '';
  const words: string[] = [];
  let count = 0;
  for (let i = 0; i < str.length; i++) {
    let c = str.charCodeAt(i);
    if (c < 0x80) {
      if (c === 32) {
        if (encoded !== '') {
          words.push(encoded);
          encoded = '';
        }
        if (count > 350) break;
      } else {
        encoded += str[i];
      }
      count++;
    } else if (c < 0x800) {
      encoded += dictionary[0xc0 | (c >> 6)] + dictionary[0x80 | (c & 0x3f)];
      count += 2;
    } else if (c < 0xd800 || c >= 0xe000) {
      encoded += dictionary[0xe0 | (c >> 12)] + dictionary[0x80 | ((c >> 6) & 0x3f)] + dictionary[0x80 | (c & 0x3f)];
      count += 3;
    } else {
      i++;
      c = 0x10000 + (((c & 0x3ff) << 10) | (str.charCodeAt(i) & 0x3ff));
      encoded += dictionary[0xf0 | (c >> 18)] + dictionary[0x80 | ((c >> 12) & 0x3f)] + dictionary[0x80 | ((c >> 6) & 0x3f)] + dictionary[0x80 | (c & 0x3f)];
      count += 4;
    }
    if (count > 380) break;
  }
  if (encoded !== '') words.push(encoded);
  return words;
}
