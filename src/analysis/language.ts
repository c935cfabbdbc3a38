/**
 * The language of a document, as Nutch's language-identifier plugin decides it: what the page
 * declares (the HTML `lang` attribute, else `<meta http-equiv=content-language>`, else the
 * Content-Language header: the parse records the first found), else what its text looks like.
 *
 * Detection is in two steps. A script that one language writes (Hangul, kana, Greek, Thai,
 * Khmer, Hebrew...) names it when it holds a fifth of the letters: web pages of those languages
 * carry a lot of Latin (menus, product names, code), which sways n-gram statistics to English
 * (measured on the multilingual benchmark's help pages: eld says English for most Korean,
 * Hindi and Khmer pages). Other text goes to eld (Efficient Language Detector, Apache-2.0, pure
 * JavaScript; its extra-small database: 60 languages, 0.19 ms a page, 230 ms to load, chosen
 * over tinyld and franc by `npm run bench -- multilingual`, docs/decisions.md). It is loaded
 * on the first page that needs it, from the binary table `npm run build` makes of its database
 * (eld-scorer.ts): 30 ms, where eld's own files took 0.2 s and 40 MB of every thread's heap.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { eld as Eld } from 'eld/extrasmall';
import { NwaxError } from '../util/errors.js';
import { loadEldScorer, type EldAnswer } from './eld-scorer.js';

let detector: ((text: string) => EldAnswer) | undefined;

/** The folder of the installed eld package. */
export function eldPackageDir(): string {
  const require = createRequire(import.meta.url);
  const dir = (require.resolve.paths('eld') ?? []).map((p) => join(p, 'eld')).find((d) => existsSync(join(d, 'package.json')));
  if (!dir) throw new NwaxError('NWAX_INSTALL', 'the language detector (npm package eld) is not installed: run npm install');
  return dir;
}

/**
 * eld, loaded synchronously: required as an ES module (Node >= 20.19) by its file, found where
 * Node would look for the package, since eld's exports name only an `import` entry. Its
 * answer comes from eld-scorer.ts (eld's own steps over eld's data, in less than half the
 * time), or from eld itself where its data is not of the shape that scorer knows.
 */
function eld(): (text: string) => EldAnswer {
  if (detector) return detector;
  const require = createRequire(import.meta.url);
  const dir = eldPackageDir();
  detector = loadEldScorer(dir);
  if (!detector) {
    const e = (require(join(dir, 'src', 'entries', 'static.extrasmall.js')) as { eld: typeof Eld }).eld;
    detector = (text) => {
      const r = e.detect(text);
      return { language: r.language, reliable: r.isReliable() };
    };
  }
  return detector;
}

/** The primary language subtag of a BCP 47 tag, lower case ('zh-CN' -> 'zh'), '' for none. */
export function primaryLanguage(tag: string | undefined): string {
  const m = /^\s*([a-z]{2,3})(?:[-_]|\s*$|\s*[,;])/i.exec(tag ?? '');
  return m ? m[1].toLowerCase() : '';
}

const SCRIPTS: [RegExp, string][] = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/gu, 'ja'],
  [/\p{Script=Hangul}/gu, 'ko'],
  [/\p{Script=Greek}/gu, 'el'],
  [/\p{Script=Thai}/gu, 'th'],
  [/\p{Script=Khmer}/gu, 'km'],
  [/\p{Script=Lao}/gu, 'lo'],
  [/\p{Script=Myanmar}/gu, 'my'],
  [/\p{Script=Hebrew}/gu, 'he'],
  [/\p{Script=Georgian}/gu, 'ka'],
  [/\p{Script=Armenian}/gu, 'hy'],
  [/\p{Script=Devanagari}/gu, 'hi'],
  [/\p{Script=Han}/gu, 'zh'],
];

/** Characters looked at: the head of a page says its language as well as the whole (and eld's cost grows with it). */
const SAMPLE = 1000;
const SHARE = 0.2;

/** The language a text looks like, '' when it cannot tell. */
export function detectLanguage(text: string): string {
  const sample = text.slice(0, SAMPLE);
  // Letters, roughly (a count, not a parse): ASCII letters, and what lies past Latin-1's
  // symbols but general punctuation and the ideographic space.
  let letters = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    const lower = c | 0x20;
    if ((lower >= 0x61 && lower <= 0x7a) || (c > 0xbf && c !== 0x3000 && (c < 0x2000 || c > 0x206f))) letters++;
  }
  if (letters < 20) return '';
  // Latin and ASCII only (most of the web): no script to count.
  const scripts = /[\u0370-\uffff]/.test(sample) ? SCRIPTS : [];
  for (const [re, lang] of scripts) {
    const n = sample.match(re)?.length ?? 0;
    // Han with kana is Japanese (the kana test comes first); Devanagari is most often Hindi,
    // but Marathi and Nepali write it too: eld tells them apart when it can.
    if (n / letters >= SHARE) {
      if (lang === 'hi') {
        const guess = eld()(sample).language;
        return guess === 'mr' ? 'mr' : 'hi';
      }
      return lang;
    }
  }
  const r = eld()(sample);
  return r.reliable ? r.language : '';
}

/** The declared language, else the detected one. */
export function languageOf(declared: string | undefined, title: string, text: string): string {
  // Only the head of the text: the join of a title and a whole page is a copy of the page.
  return primaryLanguage(declared) || detectLanguage(`${title}\n${text.slice(0, SAMPLE)}`);
}
