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
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eldScore, eldTable } from '../native/eld.js';

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
  /**
   * The binary table `writeEldTable` made of the installed eld's database (`npm run build`
   * writes it beside this module), read straight into the addon. Default: `eld-table.bin`
   * beside this module; a table of another eld (version or database size) is passed over.
   * @example { table: '/tmp/eld-table.bin' }
   */
  table?: string;
}

/** Where `npm run build` writes the table (dist/analysis/eld-table.bin). */
export const ELD_TABLE_FILE = fileURLToPath(new URL('./eld-table.bin', import.meta.url));
const TABLE_MAGIC = 'NWAXELD1';

/** eld's small files: its separators, byte dictionary and average scores (or undefined). */
function eldParts(dir: string): Pick<EldData, 'separators' | 'dictionary' | 'avgScore'> | undefined {
  try {
    const require = createRequire(import.meta.url);
    const src = (f: string) => require(join(dir, 'src', f)) as Record<string, unknown>;
    const parts = {
      separators: src('regexPatterns.js').separators as RegExp,
      dictionary: src('dictionary.js').dictionary as string[],
      avgScore: src('avgScore.js').avgScore as Record<string, number>,
    };
    const { separators, dictionary, avgScore } = parts;
    return separators instanceof RegExp && dictionary?.length === 256 && typeof avgScore === 'object' ? parts : undefined;
  } catch {
    return undefined;
  }
}

/** eld's database, its languages in number order (or undefined for a database of another shape). */
function eldDatabase(dir: string): { names: string[]; table: Map<string, Int32Array> } | undefined {
  let ngramsData: EldData['ngramsData'];
  try {
    ngramsData = (createRequire(import.meta.url)(join(dir, 'src', 'ngrams', 'extrasmall.js')) as Record<string, unknown>).ngramsData as EldData['ngramsData'];
  } catch {
    return undefined;
  }
  if (ngramsData?.type !== 'XS60') return undefined;
  const codes = Object.keys(ngramsData.languages).map(Number);
  if (!codes.every((c, i) => c === i)) return undefined;
  return { names: codes.map((c) => ngramsData.languages[c]), table: scoreTable(ngramsData.ngrams) };
}

/** Which eld a table was made of: its version and the size of its database file. */
function eldIdentity(dir: string): string {
  try {
    const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version;
    return `eld ${version} ${statSync(join(dir, 'src', 'ngrams', 'extrasmall.js')).size}`;
  } catch {
    return '';
  }
}

/** A detector, and where its database came from: the binary table file, or eld's own files. */
export type EldScorer = ((text: string) => EldAnswer) & { source: 'table file' | 'eld' };

/**
 * The scorer over eld's files in `dir` (the package folder), or undefined when they are not as
 * expected. With the addon and the binary table, eld's database never becomes JavaScript
 * objects in the thread: loaded, it was 40 MB of small objects on the heap for good (eld is an
 * ES module, which stays in the module map), marked again by every major garbage collection
 * of every task thread. On the bench corpus's import that marking cost more CPU than the
 * detection itself (15.4 s of CPU with the detector, 13.0 s without).
 */
export function loadEldScorer(dir: string, opts: EldScorerOptions = {}): EldScorer | undefined {
  const parts = eldParts(dir);
  if (!parts) return undefined;
  const { separators, dictionary, avgScore } = parts;
  if (opts.native !== false) {
    const file = readEldTable(opts.table ?? ELD_TABLE_FILE, eldIdentity(dir));
    const count = file && nativeCounter(file.table, dictionary, file.names.length);
    if (count)
      return Object.assign(detectWith(count, file.names, new Float64Array(file.names.length), separators, avgScore), { source: 'table file' as const });
  }
  const db = eldDatabase(dir);
  if (!db) return undefined;
  const { names, table } = db;
  const scores = new Float64Array(names.length);
  // The n-grams of a prepared text, each distinct one's scores summed into `scores`; returns
  // how many distinct n-grams it has. The addon's (native/eld-score.c) where it is built.
  const count = (opts.native === false ? undefined : nativeCounter(flatTable(table), dictionary, names.length)) ?? jsCounter(table, dictionary);
  return Object.assign(detectWith(count, names, scores, separators, avgScore), { source: 'eld' as const });
}

/**
 * Writes the binary table of eld's database in `dir` to `out` (written aside, then renamed):
 * TABLE_MAGIC, a header's length (uint32 LE) and its JSON (which eld, the languages, the sizes),
 * then the FlatTable's arrays each at a multiple of 4 bytes, in this machine's byte order
 * (the table is made where it is read). Returns false where the database is of another shape.
 */
export function writeEldTable(dir: string, out: string): boolean {
  const db = eldDatabase(dir);
  const flat = db && flatTable(db.table);
  if (!db || !flat) return false;
  const header = Buffer.from(
    JSON.stringify({ identity: eldIdentity(dir), names: db.names, count: flat.keyAt.length - 1, keyBytes: flat.keys.length, pairs: flat.weights.length }),
  );
  const pad = (n: number) => Buffer.alloc((4 - (n % 4)) % 4);
  const head = Buffer.concat([Buffer.from(TABLE_MAGIC), Buffer.alloc(4), header]);
  head.writeUInt32LE(header.length, TABLE_MAGIC.length);
  const bytes = (a: Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const tmp = `${out}.tmp-${process.pid}`;
  writeFileSync(tmp, Buffer.concat([head, pad(head.length), flat.keys, pad(flat.keys.length), bytes(flat.keyAt), bytes(flat.weights), bytes(flat.wAt)]));
  renameSync(tmp, out);
  return true;
}

/** The table in `path` if it is one of eld `identity`, else undefined (missing, another eld, cut short). */
function readEldTable(path: string, identity: string): { names: string[]; table: FlatTable } | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch {
    return undefined;
  }
  try {
    if (buf.toString('latin1', 0, TABLE_MAGIC.length) !== TABLE_MAGIC) return undefined;
    const h = buf.readUInt32LE(TABLE_MAGIC.length);
    const start = TABLE_MAGIC.length + 4;
    const header = JSON.parse(buf.toString('utf8', start, start + h)) as { identity: string; names: string[]; count: number; keyBytes: number; pairs: number };
    if (!identity || header.identity !== identity) return undefined;
    const align = (n: number) => n + ((4 - (n % 4)) % 4);
    let at = align(start + h);
    const take = <T extends Uint8Array | Int32Array>(make: new (n: number) => T, n: number): T => {
      const a = new make(n);
      const length = n * a.BYTES_PER_ELEMENT;
      if (at + length > buf.length) throw new RangeError('cut short');
      buf.copy(new Uint8Array(a.buffer), 0, at, at + length);
      at = align(at + length);
      return a;
    };
    const keys = take(Uint8Array, header.keyBytes);
    const keyAt = take(Int32Array, header.count + 1);
    const weights = take(Int32Array, header.pairs);
    const wAt = take(Int32Array, header.count + 1);
    return at === buf.length ? { names: header.names, table: { keys, keyAt, weights, wAt } } : undefined;
  } catch {
    return undefined;
  }
}

/** Per n-gram of eld's database: language number and score, in pairs. */
function scoreTable(ngrams: Record<string, Record<string, number>>): Map<string, Int32Array> {
  const table = new Map<string, Int32Array>();
  for (const [ngram, scores] of Object.entries(ngrams)) {
    const langs = Object.keys(scores);
    const w = new Int32Array(langs.length * 2);
    langs.forEach((l, i) => {
      w[2 * i] = Number(l);
      w[2 * i + 1] = scores[l] + BASE_NGRAM_SCORE;
    });
    table.set(ngram, w);
  }
  return table;
}

type Counter = (text: string, scores: Float64Array) => number;

/** eld's n-gram counting and scoring in JavaScript, over the table. */
function jsCounter(table: Map<string, Int32Array>, dictionary: string[]): Counter {
  return (text, scores) => {
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
}

/** Units of a prepared text that eld reads (utf8Words: up to 380 bytes, one unit or two more). */
export const ELD_READS = 382;
/** Characters of a text prepared first: most pages' first 512 give more than eld reads. */
const PREPARE_HEAD = 512;

/**
 * eld's preparation of a text (its first 1,000 characters, separators one space, trimmed,
 * lower-cased), as far as eld reads it. That was half of the detection's time on the bench
 * corpus's pages (230 of 450 ms), for a text of which eld reads the first 382 units. So the
 * first 512 characters are prepared first: up to the last space of theirs the result is the
 * whole's (a separator run cut at 512 still starts with its space, and lower-casing looks no
 * further than a space: final sigma); where that space lies past what eld reads, that is the
 * text eld is given. Else the 1,000 characters, as eld does.
 */
export function prepare(input: string, separators: RegExp): string {
  if (input.length > PREPARE_HEAD) {
    const head = input.substring(0, PREPARE_HEAD).replace(separators, ' ').trim().toLowerCase();
    if (head.lastIndexOf(' ') > ELD_READS) return head;
  }
  return input.substring(0, 1000).replace(separators, ' ').trim().toLowerCase();
}

/** eld's detect and isReliable over the scores `count` gives (a function of its own: it keeps nothing else alive). */
function detectWith(count: Counter, names: string[], scores: Float64Array, separators: RegExp, avgScore: Record<string, number>): (text: string) => EldAnswer {
  const languages = names.length;
  return (input: string): EldAnswer => {
    const text = prepare(input, separators);
    const n = count(text, scores);
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
    const language = names[best];
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
 * eld's database as the addon takes it: each n-gram's characters as bytes (eld's are codes
 * 0..255) at `keys[keyAt[k], keyAt[k + 1])`, and its (language, score) pairs at
 * `weights[wAt[k], wAt[k + 1])`.
 */
interface FlatTable {
  keys: Uint8Array;
  keyAt: Int32Array;
  weights: Int32Array;
  wAt: Int32Array;
}

/** The table flattened, or undefined where an n-gram holds a character past 255. */
function flatTable(table: Map<string, Int32Array>): FlatTable | undefined {
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
  return { keys, keyAt, weights, wAt };
}

/** eld's dictionary as bytes (each of its 256 characters is one code up to 255), or undefined. */
function dictionaryBytes(dictionary: string[]): Uint8Array | undefined {
  const dict = new Uint8Array(256);
  for (let b = 0; b < 256; b++) {
    const c = dictionary[b].charCodeAt(0);
    if (dictionary[b].length !== 1 || c > 255) return undefined;
    dict[b] = c;
  }
  return dict;
}

/**
 * The table in the addon (native/eld-score.c), which copies it. Undefined where the addon is
 * not built, or the data holds a character past 255 (then the JavaScript counts).
 */
function nativeCounter(table: FlatTable | undefined, dictionary: string[], languages: number): Counter | undefined {
  const make = eldTable;
  const score = eldScore;
  const dict = dictionaryBytes(dictionary);
  if (!make || !score || !dict || !table) return undefined;
  let handle: unknown;
  try {
    handle = make(table.keys, table.keyAt, table.weights, table.wAt, dict, languages);
  } catch {
    // Offsets the addon refuses (a table file damaged past its checks here).
    return undefined;
  }
  return (text, scores) => score(handle, text, scores);
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
