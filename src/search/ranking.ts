/**
 * The ranking: FTS5's BM25 (field weights title 4, content 1, anchors 2, URL words 1, host 0.5)
 * plus bounded features, each in [0, 1], added in proportion to the best text score among the
 * candidates:
 *
 *   score = bm25 + best_bm25 x (title x T + url x U + inlinks x I + depth x D + home x H + exact x E + fit x F
 *                               + near x N + titled x L)
 *
 * so a feature can lift a page among those that match the words about as well, never carry a
 * page that matches them badly past one that matches them well (the old ln(e + inlinks)
 * multiplier put hub pages first: 1.0 to 9.2 times the text score). The weights are tuned on
 * `npm run bench -- relevance` (docs/decisions.md has the table).
 *
 * - title: how much of the query the title holds (the share of query words in it, and 1 when
 *   the title is the query's words and nothing else). FTS5 normalizes BM25 by the length of the
 *   whole row, so a title match on a long page is diluted; this puts it back.
 * - url: the same for the words of the URL's path (without a home page's file name): a user
 *   who types a section's name ("linux usb") means the section (/linux/usb/).
 * - inlinks: ln(1 + inlinks) / ln(1 + 1000), capped at 1.
 * - depth: 1 / (1 + directories in the URL path): a section's page before the pages below it.
 * - home: 1 for a directory's home page (`/`, `index.html`, `index.htm`, `index.php`, `default.asp`...).
 * - fit: the title's length against the candidates' average, as a per-field BM25 norm would
 *   (below): among titles that hold the query's words, the short one first (`東京` finds the
 *   page titled 東京 before one titled with a sentence about it).
 * - exact: where the query's words carry marks that the index folds away (Vietnamese `dụng`
 *   and `dung` are one term, French `économie` and `economie`), the share of them that the title
 *   and the head of the text have in the very form typed, so the exact form comes before the
 *   folded one. Weighed as the title: a user who types the marks means them.
 * - near: how closely the text holds the query's words together (proximity.ts: read from the
 *   text index's positions), times how rare they are: a page holding them in one sentence
 *   before a hub page holding them far apart. 0 for a query of one word.
 * - titled: 1 for a document with a title: a page, where an untitled file (a page's source as
 *   text, a listing) holds the same sentence (on the bench corpus every Sphinx page's `.rst.txt`
 *   twin took first place from its page for 18% of the passage queries).
 */
import { words } from './query.js';
import { fold } from '../analysis/fold.js';

export interface RankingWeights {
  title: number;
  url: number;
  inlinks: number;
  depth: number;
  home: number;
  exact: number;
  fit: number;
  near: number;
  titled: number;
}

/** nwax's ranking (measured on the relevance benchmark). */
export const DEFAULT_WEIGHTS: RankingWeights = { title: 0.3, url: 0.3, inlinks: 0.05, depth: 0.1, home: 0.1, exact: 0.3, fit: 0.4, near: 2, titled: 0.2 };

/** Plain BM25, for comparison. */
export const BM25_ONLY: RankingWeights = { title: 0, url: 0, inlinks: 0, depth: 0, home: 0, exact: 0, fit: 0, near: 0, titled: 0 };

export interface Candidate {
  /** FTS5's bm25(): negative, lower is better. */
  rank: number;
  title: string;
  url: string;
  inlinks: number;
  /** The head of the stored text (for the exact feature; read only when the query has marks). */
  head?: string;
  /** How closely it holds the query's words together (proximity.ts), where the search gave it. */
  near?: number;
}

const HOME = /\/(?:index|default|home)\.(?:html?|php|aspx?|jsp|shtml)$|\/$/i;

function path(url: string): string {
  let p: string;
  try {
    p = new URL(url).pathname;
  } catch {
    return url;
  }
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/**
 * (share of the query's words in `have` + 1 if they are all of them and nothing else) / 2.
 * (A smoother second term, the share of `have` that the query covers, as a per-field length
 * norm would, was measured: +0.01 to +0.02 MRR@10 on the multilingual word queries, -0.055 on
 * the bench corpus's navigational queries; docs/decisions.md.)
 */
function cover(queryWords: readonly string[], have: string[]): number {
  if (queryWords.length === 0 || have.length === 0) return 0;
  const set = new Set(have);
  const covered = queryWords.filter((w) => set.has(w)).length / queryWords.length;
  const exact = covered === 1 && new Set(queryWords).size === set.size ? 1 : 0;
  return (covered + exact) / 2;
}

/**
 * The share of `forms` (NFKC, lower case, marks kept) that `text` holds as whole words. A
 * search in the text, not its analysis: a query with marks reads a hundred heads of texts.
 */
function written(forms: readonly string[], text: string): number {
  const t = text.normalize('NFKC').toLowerCase();
  let n = 0;
  for (const f of forms) {
    for (let at = t.indexOf(f); at >= 0; at = t.indexOf(f, at + 1)) {
      if (!WORD_CHAR.test(t[at - 1] ?? ' ') && !WORD_CHAR.test(t[at + f.length] ?? ' ')) {
        n++;
        break;
      }
    }
  }
  return n / forms.length;
}

const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

/** The query's forms that folding changes (their marks tell words apart), or none. */
export function marked(exact: readonly string[]): string[] {
  return exact.filter((w) => fold(w) !== w);
}

/** BM25's saturation and length norm, for the title as a field of its own (k1 1.2, b 0.75). */
const K1 = 1.2;
const B = 0.75;
/** The norm of a title of average length: what `fit` takes as its zero. */
const AT_AVERAGE = (1 + K1 * (1 - B)) / (1 + K1);

/**
 * The title's length, as BM25F normalizes each field on its own (Lucene's per-field norm) where
 * FTS5 normalizes by the whole row: (1 + k1 (1 - b)) / (1 + k1 (1 - b + b L / avgL)) for a
 * title of L terms (avgL: the candidates' mean), less its value at the average, times the share
 * of the query's words the title holds. Positive for a short title that holds the words,
 * negative for a long one, zero at the average: only the length counts, since the title
 * feature already counts the words (a bonus for holding them cost 0.056 MRR@10 on the
 * navigational queries). In [-0.59, 0.41].
 */
function fit(queryWords: readonly string[], have: string[], avgLength: number): number {
  if (queryWords.length === 0 || have.length === 0) return 0;
  const set = new Set(have);
  const norm = (1 + K1 * (1 - B)) / (1 + K1 * (1 - B + (B * have.length) / Math.max(1, avgLength)));
  return (queryWords.filter((w) => set.has(w)).length / queryWords.length) * (norm - AT_AVERAGE);
}

/** `titleWords`: the title's words, when the caller has them already. */
export function features(
  c: Candidate,
  queryWords: readonly string[],
  exact: readonly string[] = [],
  avgTitle = 1,
  titleWords = words(c.title ?? ''),
): RankingWeights {
  const title = cover(queryWords, titleWords);
  const p = path(c.url);
  const url = cover(queryWords, words(p.replace(HOME, '/').replace(/\.[a-z0-9]{1,5}$/i, '')));
  const dirs = p.split('/').filter(Boolean).length - (HOME.test(p) && !p.endsWith('/') ? 1 : 0);
  return {
    title,
    url,
    inlinks: Math.min(1, Math.log1p(Math.max(0, c.inlinks ?? 0)) / Math.log1p(1000)),
    depth: 1 / (1 + Math.max(0, dirs)),
    home: HOME.test(p) ? 1 : 0,
    exact: exact.length ? written(exact, `${c.title ?? ''} ${c.head ?? ''}`) : 0,
    // Where the query's marks tell words apart (Vietnamese `lúc`, `lục`), a title that holds
    // only the folded form fits no better than one that does not hold the word.
    fit: fit(queryWords, titleWords, avgTitle) * (exact.length ? written(exact, c.title ?? '') : 1),
    near: c.near ?? 0,
    titled: c.title ? 1 : 0,
  };
}

/** What the re-ranking takes from the candidates as a whole: the best text score and the mean title length. */
export interface RerankBasis {
  best: number;
  avgTitle: number;
}

/** A candidate as the basis needs it: its text score and its title's length in terms (0 and false without a title). */
export interface BasisOf {
  rank: number;
  titleTerms: number;
  titled: boolean;
}

export function rerankBasis(cands: readonly BasisOf[]): RerankBasis {
  let best = Number.NEGATIVE_INFINITY;
  let terms = 0;
  let titled = 0;
  for (const c of cands) {
    best = Math.max(best, -c.rank);
    terms += c.titleTerms;
    if (c.titled) titled++;
  }
  return { best, avgTitle: terms / Math.max(1, titled) };
}

/**
 * Scores candidates from every index set together (the best text score is the best of all):
 * sets `rank` to the final score, negative as FTS5's, lower better. `given`: the basis of the
 * whole collection's candidates, where these are one shard's share of them (shards.ts). A
 * candidate's `near`, where it has one, is weighed with the rest; the searcher gives it after,
 * to those that need it (searcher.ts addNearness). Returns the best text score, what each
 * feature is in proportion to.
 */
export function rerank<T extends Candidate>(
  cands: T[],
  queryWords: readonly string[],
  w: RankingWeights = DEFAULT_WEIGHTS,
  exact: readonly string[] = [],
  given?: RerankBasis,
): number {
  if (cands.length === 0) return 0;
  const forms = marked(exact);
  // Each title analyzed once: for the candidates' mean length, then for the features.
  const titleWords = cands.map((c) => words(c.title ?? ''));
  const { best, avgTitle } = given ?? rerankBasis(cands.map((c, i) => ({ rank: c.rank, titleTerms: titleWords[i].length, titled: !!c.title })));
  for (const [i, c] of cands.entries()) {
    const f = features(c, queryWords, forms, avgTitle, titleWords[i]);
    const bonus =
      w.title * f.title +
      w.url * f.url +
      w.inlinks * f.inlinks +
      w.depth * f.depth +
      w.home * f.home +
      w.exact * f.exact +
      w.fit * f.fit +
      w.near * f.near +
      w.titled * f.titled;
    c.rank = c.rank - best * bonus;
  }
  return best;
}
