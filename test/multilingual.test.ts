/**
 * Search in every language (issue: one text analysis, words in scripts without spaces, language
 * as a field). The analyzer alone (the same terms at index and at query time, for random text
 * too), then pages in eleven scripts written into a real WARC, imported, indexed and served:
 * each is found by its title and by a word of it, the snippet marks that word, lang: selects it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nwax, serveCli, tempDir } from './helpers.js';
import { pipeline } from './example-pipeline.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { indexText, terms, tokens } from '../src/analysis/analyzer.js';
import { detectLanguage, primaryLanguage } from '../src/analysis/language.js';
import { parseQuery } from '../src/search/query.js';
import { compileQuery } from '../src/search/query-plan.js';

/** What FTS5's ascii tokenizer makes of the stored text: ASCII alphanumerics fold case, every other ASCII byte separates. */
function ftsAscii(stored: string): string[] {
  return stored
    .split(/[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/)
    .filter(Boolean)
    .map((t) => t.replace(/[A-Z]+/g, (s) => s.toLowerCase()));
}

/** A phrase occurs in a sequence of terms. */
function hasPhrase(seq: string[], phrase: string[]): boolean {
  for (let i = 0; i + phrase.length <= seq.length; i++) if (phrase.every((p, k) => seq[i + k] === p)) return true;
  return false;
}

describe('the analyzer', () => {
  it('folds what users of each script expect folded, and nothing else', () => {
    expect(terms('Résumé STRASSE Straße')).toEqual(['resume', 'strasse', 'strasse']);
    // Turkish dotted and dotless i, both ways.
    expect(terms('İstanbul ıstanbul ISTANBUL istanbul')).toEqual(Array(4).fill('istanbul'));
    // Greek accents and final sigma; Cyrillic й and ё fold as ICU folding does.
    expect(terms('Αριθμός ΑΡΙΘΜΟΣ')).toEqual(['αριθμοσ', 'αριθμοσ']);
    expect(terms('Исходный формулой Ёлка')).toEqual(terms('исходныи формулои елка'));
    // Marks that are letters stay: Devanagari vowel signs, Thai, Khmer; Hangul stays composed.
    expect(terms('संवाद')).toEqual(['संवाद']);
    expect(terms('페이지')).toEqual(['페이', '이지']);
    expect(terms('ภาษาไทย')).toEqual(['ภาษา', 'ไทย']);
    // Width: full-width Latin is ASCII, half-width kana is kana (voiced marks joined).
    expect(terms('ＡＢＣ１２３')).toEqual(['abc123']);
    expect(terms('ｷｬﾌﾟｼｮﾝ')).toEqual(terms('キャプション'));
    // Arabic harakat and Hebrew niqqud are decoration.
    expect(terms('مُحَمَّد')).toEqual(terms('محمد'));
    expect(terms('שָׁלוֹם')).toEqual(terms('שלום'));
  });

  it('cuts Han, kana and Hangul into bigrams, so a word inside a run is a phrase of the run', () => {
    expect(terms('東京都の天気予報')).toEqual(['東京', '京都', '都の', 'の天', '天気', '気予', '予報']);
    const stored = ftsAscii(indexText('東京都の天気予報'));
    for (const word of ['東京', '天気', '予報', '東京都']) expect(hasPhrase(stored, terms(word)), word).toBe(true);
    expect(hasPhrase(ftsAscii(indexText('서울에서')), terms('서울'))).toBe(true);
    // A lone character is a prefix search, which the tails make complete.
    expect(compileQuery(parseQuery('報')).match(false, false)).toBe('"報" *');
    expect(stored).toContain('報');
  });

  it('gives the same terms for the indexed text and the query, on random text of every script', () => {
    // Letters of many scripts, marks, digits, separators and characters that NFKC changes.
    const pool = [
      ...'aZéÉßıİ ЙйёΣςάΆ',
      ...'東京都の天気予報キャプションｷｬﾌﾟ',
      ...'서울에서페이지',
      ...'ภาษาไทยง่าย',
      ...'ភាសាខ្មែរ',
      ...'संवादि्',
      ...'العربيةُ',
      ...'שָׁלוֹם',
      ...'0123456789',
      ' ',
      ' ',
      '-',
      '.',
      ',',
      '\u00a0',
      '\u2019',
      // CJK and full-width punctuation (separators), the long vowel mark (a letter of no plain kind), ¶
      ...'、。「」（），〜ー¶',
      '\u200c',
      'ﬁ',
      '①',
      '㍻',
      '\u0301',
      '😀',
      '"',
      '*',
      '\t',
    ];
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 2000; round++) {
      const text = Array.from({ length: 1 + rnd(40) }, () => pool[rnd(pool.length)]).join('');
      const all = [...tokens(text, true)];
      // What FTS5 stores is exactly the analyzer's terms (indexText's ASCII shortcut included).
      expect(ftsAscii(indexText(text)), JSON.stringify(text)).toEqual(all.map((t) => t.term));
      // The query's terms are the indexed ones but a tail at the end; the text's words are found.
      const query = terms(text);
      const expected = all.map((t) => t.term);
      if (all.length && all[all.length - 1].tail) expected.pop();
      expect(query, JSON.stringify(text)).toEqual(expected);
      for (const t of all) {
        expect(t.start).toBeGreaterThanOrEqual(0);
        expect(t.end).toBeLessThanOrEqual(text.length);
        expect(t.term).not.toMatch(/[\s"*]/);
      }
      const word = text.split(' ').find((w) => terms(w).length > 0);
      if (word) expect(hasPhrase(ftsAscii(indexText(text)), terms(word)), JSON.stringify([text, word])).toBe(true);
    }
  });

  it('reads language tags and tells languages by script and statistics', () => {
    expect(primaryLanguage('zh-CN')).toBe('zh');
    expect(primaryLanguage('en_US')).toBe('en');
    expect(primaryLanguage('de, en')).toBe('de');
    expect(primaryLanguage('x')).toBe('');
    expect(detectLanguage('서울은 대한민국의 수도이며 가장 큰 도시입니다. Seoul Metropolitan Government, LibreOffice')).toBe('ko');
    expect(detectLanguage('Москва является столицей Российской Федерации и крупнейшим городом страны.')).toBe('ru');
    expect(detectLanguage('Der schnelle braune Fuchs springt über den faulen Hund und läuft weiter.')).toBe('de');
    expect(detectLanguage('ok')).toBe('');
  });
});

interface Page {
  lang: string;
  /** Whether the page says its language (else it is detected). */
  declared: boolean;
  title: string;
  body: string;
  /** Words a user types, each must find the page and be marked in its snippet. */
  words: string[];
}

const PAGES: Page[] = [
  { lang: 'fr', declared: true, title: 'Résumé de la Société', body: "Le résumé présente l'économie et la société du pays.", words: ['economie', 'Économie'] },
  {
    lang: 'de',
    declared: true,
    title: 'Straße der Einheit',
    body: 'Die Straße führt zum Bahnhof, die Größe ist beachtlich.',
    words: ['strasse', 'Größe', 'grosse'],
  },
  {
    lang: 'tr',
    declared: true,
    title: 'İstanbul Şehir Rehberi',
    body: 'Istanbul şehrinin tarihi ılık bir akşamda anlatılır.',
    words: ['istanbul', 'ISTANBUL', 'ılık'],
  },
  {
    lang: 'ru',
    declared: true,
    title: 'Исходный текст формулой',
    body: 'Введите исходный текст и нажмите кнопку, чтобы увидеть результат.',
    words: ['Исходный', 'формулой', 'кнопку'],
  },
  {
    lang: 'el',
    declared: true,
    title: 'Αριθμός υπομνήματα',
    body: 'Ο αριθμός των σελίδων εμφανίζεται στα υπομνήματα του εγγράφου.',
    words: ['αριθμος', 'Αριθμός', 'σελίδων'],
  },
  { lang: 'ar', declared: true, title: 'مرحبا بالعالم العربي', body: 'هذه صفحة عن اللغة العربية وتاريخها الطويل.', words: ['العربية', 'صفحة'] },
  { lang: 'he', declared: true, title: 'שלום עולם', body: 'זהו דף בעברית על השפה והספרות.', words: ['בעברית', 'שָׁלוֹם'] },
  { lang: 'hi', declared: true, title: 'संवाद विंडो', body: 'यह हिन्दी में एक पृष्ठ है, संवाद विंडो खोलें।', words: ['संवाद', 'हिन्दी'] },
  { lang: 'th', declared: true, title: 'ภาษาไทยง่ายนิดเดียว', body: 'ประเทศไทยมีภาษาไทยเป็นภาษาราชการ', words: ['ภาษา', 'ราชการ'] },
  { lang: 'km', declared: true, title: 'ភាសាខ្មែរគឺជាភាសាកំណើត', body: 'ភាសាខ្មែរគឺជាភាសាកំណើតរបស់ជនជាតិខ្មែរ', words: ['កំណើត', 'ជនជាតិ'] },
  { lang: 'zh', declared: true, title: '东京都的天气预报', body: '今天北京的天气很好，我们去公园散步。', words: ['天气', '北京', '公园'] },
  { lang: 'ja', declared: true, title: 'キャプションの設定', body: '東京都の天気予報を表示します。', words: ['東京', 'ｷｬﾌﾟｼｮﾝ', '予報'] },
  {
    lang: 'ko',
    declared: true,
    title: '서울에서 페이지 만들기',
    body: '서울은 한국의 수도입니다. 페이지를 만드는 방법을 설명합니다.',
    words: ['서울', '페이지', '수도'],
  },
  { lang: 'vi', declared: true, title: 'Hướng dẫn sử dụng', body: 'Cách sử dụng phần mềm văn phòng.', words: ['dụng', 'phần'] },
  // No declaration: the language comes from the text.
  {
    lang: 'ru',
    declared: false,
    title: 'Библиотека',
    body: 'Москва является столицей Российской Федерации и крупнейшим городом страны, библиотека открыта каждый день.',
    words: ['библиотека'],
  },
  {
    lang: 'ko',
    declared: false,
    title: '도서관 안내',
    body: '도서관은 매일 아침 아홉 시에 문을 엽니다. 자료실은 이층에 있습니다.',
    words: ['도서관', '자료실'],
  },
];

describe('pages in eleven scripts, imported, indexed and served', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  let srv: { url: string; close(): Promise<void> };
  const urlOf = (i: number) => `http://lang.example/${PAGES[i].lang}/${i}.html`;
  type Hit = { url: string; lang: string; title: string; snippet: { text: string; marks: [number, number][] } };
  const ask = async (query: string, extra = '') => {
    const r = await fetch(`${srv.url}/api/search?query=${encodeURIComponent(query)}&hitsPerPage=20&hitsPerSite=0${extra}`);
    expect(r.status, query).toBe(200);
    return (await r.json()) as { total: number; hits: Hit[]; facets?: { lang: [string, number][] } };
  };

  beforeAll(async () => {
    const records = PAGES.map((p, i) => ({
      url: urlOf(i),
      date: `2021010${1 + (i % 9)}000000`,
      id: `00000000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`,
      body: `<!DOCTYPE html><html${p.declared ? ` lang="${p.lang}"` : ''}><head><meta charset="utf-8"><title>${p.title}</title></head><body><h1>${p.title}</h1><p>${p.body}</p></body></html>`,
    }));
    // A Vietnamese page whose title has the folded form only: the exact form ranks first.
    records.push({
      url: 'http://lang.example/vi/dung-dich.html',
      date: '20210101000000',
      id: '00000000-0000-4000-8000-000000000199',
      body: '<html lang="vi"><head><title>Dung dịch sử dung</title></head><body><p>Dung dịch hóa học dung.</p></body></html>',
    });
    // Windows-1251 declared nowhere, after 9 KB of ASCII markup (the sniffer's head is ASCII).
    const cp1251 = (t: string) => Buffer.from([...t].map((c) => (c >= 'А' && c <= 'я' ? 0xc0 + c.charCodeAt(0) - 0x410 : c.charCodeAt(0))));
    const legacy = Buffer.concat([
      Buffer.from(`<html><head><title>Legacy</title><script>${'var x = 1;\n'.repeat(800)}</script></head><body><p>`),
      cp1251('Каталог старинных рукописей городской библиотеки'),
      Buffer.from('</p></body></html>'),
    ]);
    records.push({
      url: 'http://lang.example/ru/legacy.html',
      date: '20210101000000',
      id: '00000000-0000-4000-8000-000000000198',
      body: legacy,
      headers: { 'Content-Type': 'text/html', 'Content-Length': String(legacy.length) },
    } as never);
    const warc = join(dir, 'languages.warc.gz');
    await writeWarc(warc, records);
    const manifest = join(dir, 'manifest');
    writeFileSync(manifest, `${warc} languages\n`);
    await pipeline(crawl, manifest);
    srv = await serveCli(['-dir', crawl, '--port', '0', '-D', 'nwax.serve.threads=1']);
  }, 120_000);
  afterAll(async () => {
    await srv?.close();
  });

  it('finds each page first by its title, as typed', async () => {
    for (const [i, p] of PAGES.entries()) {
      const r = await ask(p.title);
      expect(r.hits[0]?.url, `${p.lang}: ${p.title}`).toBe(urlOf(i));
    }
  });

  it('finds each page by a word of it, and the snippet marks that word', async () => {
    for (const [i, p] of PAGES.entries()) {
      for (const word of p.words) {
        const r = await ask(word);
        const hit = r.hits.find((h) => h.url === urlOf(i));
        expect(hit, `${p.lang}: ${word}`).toBeDefined();
        const marked = hit!.snippet.marks.map(([a, b]) => hit!.snippet.text.slice(a, b));
        // The marked text is the word as the page writes it (résumé for resume, 東京 in 東京都).
        expect(
          marked.some((m) => terms(m).join(' ') === terms(word).join(' ')),
          `${p.lang}: ${word} marked ${JSON.stringify(marked)} in ${hit!.snippet.text}`,
        ).toBe(true);
      }
    }
  });

  it('gives each page its language, declared or detected; lang: selects it and the facet counts it', async () => {
    for (const [i, p] of PAGES.entries()) {
      const word = p.words[0];
      const hit = (await ask(word)).hits.find((h) => h.url === urlOf(i));
      expect(hit?.lang, `${p.lang}: ${word}`).toBe(p.lang);
      expect(
        (await ask(`${word} lang:${p.lang}`)).hits.map((h) => h.url),
        `${word} lang:${p.lang}`,
      ).toContain(urlOf(i));
      const other = p.lang === 'en' ? 'de' : 'en';
      expect((await ask(`${word} lang:${other}`)).hits.map((h) => h.url)).not.toContain(urlOf(i));
    }
    // A list of languages, and the language alone as a filter.
    const both = await ask('lang:ko,ja');
    expect(new Set(both.hits.map((h) => h.lang))).toEqual(new Set(['ko', 'ja']));
    expect(both.total).toBe(3);
    const f = await ask('lang:ru,ko', '&facets=1');
    expect(Object.fromEntries(f.facets!.lang)).toEqual({ ru: 3, ko: 2 });
    const bad = await fetch(`${srv.url}/api/search?query=${encodeURIComponent('lang:?')}`);
    expect(bad.status).toBe(400);
  });

  it('says the language in OpenSearch RSS and in dumpindex', async () => {
    const rss = await (await fetch(`${srv.url}/opensearch?query=${encodeURIComponent('서울')}&hitsPerSite=0`)).text();
    expect(rss).toContain('xmlns:dc="http://purl.org/dc/elements/1.1/"');
    expect(rss).toContain('<dc:language>ko</dc:language>');
    const dump = await nwax(['dumpindex', '-f', 'lang', join(crawl, 'indexes', 'part-00000')]);
    expect(dump.code, dump.stderr).toBe(0);
    const langs = dump.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[1]);
    expect(new Set(langs)).toEqual(new Set(PAGES.map((p) => p.lang)));
  });

  it('reads a page in a legacy charset declared nowhere, whose Cyrillic comes after kilobytes of ASCII', async () => {
    const r = await ask('рукописей');
    expect(r.hits.map((h) => h.url)).toEqual(['http://lang.example/ru/legacy.html']);
    expect(r.hits[0].lang).toBe('ru');
  });

  it('ranks the exact form of a word before the folded one (Vietnamese dụng, dung)', async () => {
    const r = await ask('dụng');
    expect(r.hits.map((h) => h.url).slice(0, 2)).toEqual([urlOf(PAGES.findIndex((p) => p.lang === 'vi')), 'http://lang.example/vi/dung-dich.html']);
    const folded = await ask('dung');
    expect(folded.hits.length).toBe(2);
  });

  it('suggests titles from a prefix in any script', async () => {
    for (const [prefix, title] of [
      ['东', '东京都的天气预报'],
      ['서울', '서울에서 페이지 만들기'],
      ['resu', 'Résumé de la Société'],
    ]) {
      const r = await fetch(`${srv.url}/suggest?q=${encodeURIComponent(prefix)}`);
      expect(r.status).toBe(200);
      const s = (await r.json()) as { text: string }[] | { suggestions: { text: string }[] };
      const list = Array.isArray(s) ? s : s.suggestions;
      expect(
        list.map((x) => x.text),
        prefix,
      ).toContain(title);
    }
  });
});
