/**
 * Korean words with their particles (issue 75, part 4): a word typed with another particle than
 * the page joined to its noun finds the page, a page holding the form typed comes first, and a
 * noun typed bare or a word typed as written is found as before. A real archive, imported and
 * indexed by the real pipeline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { indexedCollection, tempDir } from './helpers.js';
import { particleStem } from '../src/analysis/korean.js';
import { parseQuery } from '../src/search/query.js';
import { Searcher } from '../src/search/searcher.js';

describe('particleStem', () => {
  it('takes the particle off a Hangul word where two syllables remain, and nothing else', () => {
    expect(particleStem('서식을')).toBe('서식');
    expect(particleStem('데이터베이스에서')).toBe('데이터베이스');
    expect(particleStem('서버에서는')).toBe('서버');
    // Too short to be a noun and a particle, no particle, or not Hangul alone.
    expect(particleStem('책을')).toBeUndefined();
    expect(particleStem('서식')).toBeUndefined();
    expect(particleStem('nwax를')).toBeUndefined();
    expect(parseQuery('서식이 nwax').stems).toEqual({ '서식 식이': ['서식'] });
  });
});

describe('a word typed with another particle', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  let searcher: Searcher;
  const pages = [
    ['http://ko.example/object.html', '문서 작성', '이 장에서는 서식을 지정하는 방법과 문단을 나누는 방법을 설명합니다.'],
    ['http://ko.example/subject.html', '문서 모양', '문서의 서식이 바뀌면 목차도 다시 만들어야 합니다.'],
    ['http://ko.example/other.html', '네트워크', '네트워크 설정은 관리자가 바꿀 수 있습니다.'],
  ];
  beforeAll(async () => {
    const records = pages.map(([url, title, text], i) => {
      const body = `<html lang="ko"><head><title>${title}</title></head><body><p>${text}</p></body></html>`;
      return {
        type: 'response',
        url,
        date: '20200101000000',
        body,
        id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) },
      };
    });
    const warc = join(dir, 'ko.warc.gz');
    await writeWarc(warc, records);
    await indexedCollection(warc, crawl, join(dir, 'ko.cdx'));
    searcher = new Searcher(crawl);
  });
  afterAll(() => searcher?.close());
  const urls = (q: string) =>
    searcher
      .view()
      .search(q, { hits: 10, cache: false })
      .hits.map((h) => h.url);

  it('finds every page holding the noun, the one holding the form typed first', () => {
    expect(urls('서식이')).toEqual(['http://ko.example/subject.html', 'http://ko.example/object.html']);
    expect(urls('서식을')).toEqual(['http://ko.example/object.html', 'http://ko.example/subject.html']);
    // A form neither page writes finds both.
    expect(urls('서식과').sort()).toEqual(['http://ko.example/object.html', 'http://ko.example/subject.html']);
  });

  it('a noun typed bare finds it in every form; a word without a particle is searched as before', () => {
    expect(urls('서식').sort()).toEqual(['http://ko.example/object.html', 'http://ko.example/subject.html']);
    expect(urls('네트워크')).toEqual(['http://ko.example/other.html']);
    expect(urls('관리자가')).toEqual(['http://ko.example/other.html']);
    expect(urls('관리자는')).toEqual(['http://ko.example/other.html']);
  });

  it('marks the noun in the snippet of a page holding another form of it', () => {
    const hit = searcher
      .view()
      .search('서식이', { hits: 10, cache: false })
      .hits.find((h) => h.url.endsWith('object.html'))!;
    const marked = hit.snippet.marks.map(([a, b]) => hit.snippet.text.slice(a, b));
    expect(marked.some((m) => m.startsWith('서식'))).toBe(true);
  });
});
