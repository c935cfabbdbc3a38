/**
 * eld's `detect(text)` and `isReliable()` (eld 2.1, its extra-small database), the same answer
 * in less than half the time. Language identification was an eighth of an import's CPU on the
 * bench corpus, and most of eld's own time goes to how it keeps its data, not to the
 * arithmetic: a plain object of the text's n-grams enumerated with `for...in`, and for each
 * n-gram `for...in` over an object of language scores. Here the scores of each n-gram are an
 * Int32Array, made once from eld's database, and the text's n-grams a Set.
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

/** The scorer over eld's files in `dir` (the package folder), or undefined when they are not as expected. */
export function loadEldScorer(dir: string): ((text: string) => EldAnswer) | undefined {
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

  return (input: string): EldAnswer => {
    const text = input.substring(0, 1000).replace(separators, ' ').trim().toLowerCase();
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
    const n = ngrams.size;
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
