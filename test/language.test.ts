/**
 * Language identification: eld-scorer.ts (eld's steps over eld's data, faster) gives eld's own
 * answer, language and reliability, on generated text in many scripts (words of every length,
 * apostrophes, digits and punctuation, astral characters, cut surrogates) and on the text of
 * every HTML page of the shared fixtures: its n-grams counted in JavaScript, and in the addon
 * (native/eld-score.c) where it is built.
 */
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ELD_READS, loadEldScorer, prepare, writeEldTable } from '../src/analysis/eld-scorer.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { eldPackageDir } from '../src/analysis/language.js';
import { ContentParser } from '../src/parse/parse.js';
import { HAVE_FIXTURES, fixtureRecords, seededRandom, tempDir } from './helpers.js';
import { nativeKernel, nativeWanted } from '../src/native/addon.js';

const nativeEld = nativeKernel('eld');

const dir = eldPackageDir();
const eld = (
  createRequire(import.meta.url)(join(dir, 'src', 'entries', 'static.extrasmall.js')) as {
    eld: { detect(t: string): { language: string; isReliable(): boolean } };
  }
).eld;
// The addon's table three ways: made here of eld's objects, read from the binary table file
// (as the build leaves it beside the module), and from a file of another eld, passed over.
const tables = tempDir();
const tableFile = join(tables, 'eld-table.bin');
const written = nativeEld ? writeEldTable(dir, tableFile) : false;
const stale = join(tables, 'stale.bin');
if (written)
  writeFileSync(
    stale,
    readFileSync(tableFile)
      .toString('latin1')
      .replace(/"eld [^"]*"/, (m) => `"${'x'.repeat(m.length - 2)}"`),
    'latin1',
  );
const scorers = {
  javascript: loadEldScorer(dir, { native: false })!,
  ...(nativeEld
    ? {
        native: loadEldScorer(dir, { table: join(tables, 'none.bin') })!,
        'native from the table file': loadEldScorer(dir, { table: tableFile })!,
        'native, a stale table file': loadEldScorer(dir, { table: stale })!,
      }
    : {}),
};

const separators = (createRequire(import.meta.url)(join(dir, 'src', 'regexPatterns.js')) as { separators: RegExp }).separators;

/** What the scorer reads of its preparation of `text` is what eld reads of its own. */
function expectPrepared(text: string): void {
  const own = text.substring(0, 1000).replace(separators, ' ').trim().toLowerCase();
  expect(prepare(text, separators).slice(0, ELD_READS + 1), JSON.stringify(text.slice(480, 540))).toBe(own.slice(0, ELD_READS + 1));
}

function expectEld(text: string): void {
  const r = eld.detect(text);
  for (const [how, scorer] of Object.entries(scorers))
    expect(scorer(text), `${how}: ${JSON.stringify(text.slice(0, 120))}`).toEqual({ language: r.language, reliable: r.isReliable() });
}

const WORDS = [
  'the',
  'of',
  'and',
  'archive',
  'web',
  'page',
  'der',
  'die',
  'und',
  'Archiv',
  'élève',
  'été',
  'très',
  'le',
  'la',
  'des',
  'niño',
  'año',
  'está',
  'città',
  'perché',
  'São',
  'não',
  'coração',
  'łódź',
  'zażółć',
  'gęślą',
  'Příliš',
  'žluťoučký',
  'kůň',
  'İstanbul',
  'ılık',
  'şehir',
  'Москва',
  'привет',
  'мир',
  'Київ',
  'ґанок',
  'Αθήνα',
  'ΣΟΦΟΣ',
  'σοφός',
  'שלום',
  'עולם',
  'مرحبا',
  'العالم',
  'سلام',
  'नमस्ते',
  'दुनिया',
  'मराठी',
  'বাংলা',
  'ਪੰਜਾਬੀ',
  'ગુજરાતી',
  'ଓଡ଼ିଆ',
  'தமிழ்',
  'తెలుగు',
  'ಕನ್ನಡ',
  'മലയാളം',
  'ภาษาไทย',
  'ພາສາລາວ',
  'ქართული',
  'Հայերեն',
  'አማርኛ',
  '日本語',
  'ひらがな',
  'カタカナ',
  '中文',
  '汉字',
  '한국어',
  '페이지',
  "don't",
  'l’été',
  'it`s',
  "'quoted'",
  'x',
  'ab',
  'abc',
  'abcd',
  'abcde',
  'a'.repeat(69),
  'b'.repeat(70),
  'c'.repeat(71),
  'Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherungsanstaltsdirektor',
  '2007',
  'a1b2',
  'x86_64',
  'e-mail',
  'www.example.com',
  '😀',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '\ud800',
  '\udc00x',
];
const GLUE = [' ', ' ', ' ', '  ', '\n', ', ', '. ', ' - ', '\t', '…', ' (', ') ', '/', '"', '\u00a0'];

describe('language identification', () => {
  it("the scorer gives eld's answer on 5,000 generated texts of every script", () => {
    // The addon is built wherever npm install could (CI): its counting is the one tested here.
    if (nativeWanted('eld')) {
      expect(Object.keys(scorers)).toContain('native');
      expect(written).toBe(true);
      const from = Object.fromEntries(Object.entries(scorers).map(([how, s]) => [how, s.source]));
      expect(from).toEqual({ javascript: 'eld', native: 'eld', 'native from the table file': 'table file', 'native, a stale table file': 'eld' });
    }
    const rand = seededRandom(20261125);
    const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)];
    for (let i = 0; i < 5000; i++) {
      // Mostly one script's words (a language), with some others: as pages are.
      const home = WORDS.slice(Math.floor(rand() * (WORDS.length - 8))).slice(0, 8);
      let s = '';
      const n = Math.floor(rand() * 250);
      for (let k = 0; k < n; k++) s += (rand() < 0.8 ? pick(home) : pick(WORDS)) + pick(GLUE);
      expectEld(s);
    }
    for (const s of ['', ' ', 'a', 'ab cd', '...', '12 34', 'a'.repeat(2000), 'Ω'.repeat(500), '日本語'.repeat(400)]) expectEld(s);
  });

  it("the scorer gives eld's answer on 20,000 ASCII texts of words, apostrophes, backticks and punctuation", () => {
    const rand = seededRandom(20261126);
    const words = [
      'the',
      'and',
      'archive',
      'Web',
      'PAGE',
      'der',
      'und',
      'le',
      'la',
      'des',
      'het',
      'een',
      'och',
      'att',
      'dei',
      'non',
      'que',
      'el',
      'x',
      'ab',
      'Donaudampfschiff',
      'a'.repeat(75),
    ];
    const marks = [
      ' ',
      ' ',
      "'",
      '`',
      "''",
      "' ",
      " '",
      '` ',
      ',',
      '.',
      ', ',
      "', ",
      "',",
      '!',
      '?',
      '-',
      '"',
      '(',
      ')',
      '\t',
      '\n',
      '1',
      '42',
      '_',
      '~',
      '\u007f',
      '\u0001',
      '  ',
    ];
    for (let i = 0; i < 20000; i++) {
      let s = rand() < 0.2 ? marks[Math.floor(rand() * marks.length)] : '';
      const n = Math.floor(rand() * 120);
      for (let k = 0; k < n; k++) s += words[Math.floor(rand() * words.length)] + marks[Math.floor(rand() * marks.length)];
      expectEld(s);
    }
  });

  it("the scorer gives eld's answer where the text is cut for its preparation (512 characters) inside a word, a separator run or a final sigma", () => {
    // eld-scorer.ts prepares a text's first 512 characters first and keeps them where their
    // last space lies past what eld reads: whatever stands at the cut must not change it.
    const atCut = ["ΑΣ'''Α", "ΑΣ ''Α", "ΑΣ.'Α", 'ΟΔΟΣ', 'İİ', "a'", "'''", 'ΑΣ\u2019Β', 'x`y', 'ΑΣ\u0301 Β', "ΑΣ'\u00a0'Β", '日本語'];
    for (const p of atCut)
      for (let at = 500; at < 516; at++)
        for (const filler of ['the ', 'σοφός ', "don't "]) {
          const s = filler.repeat(Math.ceil(at / filler.length)).slice(0, at) + p + ' archive web page'.repeat(40);
          expectPrepared(s);
          expectEld(s);
        }
    // A run of apostrophes across the cut, where separators before made the prepared text
    // short: the head keeps them (a run may not end with one), the whole replaces the run.
    for (let w = 15; w < 30; w++)
      for (let r = 200; r < 330; r += 3) {
        for (const run of [",,'''''''''''''''''''''''''''''''''', ", 'ΑΣ'.repeat(20) + ' '])
          expectPrepared('word,,,,,, '.repeat(w) + 'x'.repeat(r) + run + 'the archive '.repeat(60));
      }
    // No space past what eld reads in the first 512 (a long word across the cut, where
    // separators made the prepared text short): the 1,000 characters are prepared.
    for (let words = 60; words < 100; words++)
      for (const long of ['Donaudampfschiffahrtsgesellschaftskapitän', 'Ελληνικάσοφοσσοφος', 'zażółćgęśląjaźń']) {
        const s = 'word, '.repeat(words) + long.repeat(6) + ' the archive'.repeat(60);
        expectPrepared(s);
        expectEld(s);
      }
    for (const s of ['a'.repeat(600) + ' the archive'.repeat(60), 'the '.repeat(90) + 'x'.repeat(700), '日本語'.repeat(300) + ' web']) {
      expectPrepared(s);
      expectEld(s);
    }
  });

  it.skipIf(!HAVE_FIXTURES)(
    "the scorer gives eld's answer on the text of every HTML page of the shared fixtures",
    async () => {
      let pages = 0;
      for await (const { record: r } of fixtureRecords()) {
        const ct = r.http?.headers.get('Content-Type') ?? '';
        if (!/^\s*text\/html/i.test(ct)) continue;
        const p = new ContentParser({
          url: r.url,
          mime: 'text/html',
          contentType: ct,
          contentEncoding: r.http?.headers.get('Content-Encoding'),
          textLimit: 4096,
          byteLimit: 1 << 20,
          maxOutlinks: 0,
        });
        for await (const chunk of r.payload()) p.write(chunk);
        if ((await r.finish()).damaged) continue;
        const parse = await p.finish();
        if (!parse.text) continue;
        pages++;
        expectEld(`${parse.title}\n${parse.text.slice(0, 1000)}`);
      }
      expect(pages).toBeGreaterThan(100);
    },
    300_000,
  );
});
