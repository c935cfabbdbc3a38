/**
 * What a page names, resolved: the resolutions page-resources.ts keeps (by the base's
 * directory and the reference) give what the URL parser gives for each page, whichever page
 * resolved the reference first. Pages of one directory, with other file names, queries,
 * fragments, ports, credentials and <base href>, over references of every shape.
 */
import { describe, expect, it } from 'vitest';
import { resourceUrls } from '../src/replay/page-resources.js';

const BASES = [
  'http://a.example/dir/page.html',
  'http://a.example/dir/other.html?q=1',
  'http://a.example/dir/?x=/y/z#frag',
  'http://a.example/dir/',
  'http://A.EXAMPLE:80/dir/page.html',
  'http://a.example:8080/dir/page.html',
  'http://user:pw@a.example/dir/page.html',
  'https://a.example/dir/page.html',
  'http://a.example/dir/sub/page.html',
  'http://a.example',
  'http://a.example/dir/%7Euser/p',
  'http://a.example/dir/a b/p',
];

const REFS = [
  'i.png',
  './i.png',
  '../i.png',
  '../../../i.png',
  'sub/../i.png',
  '/i.png',
  '//cdn.example/i.png',
  '/\\cdn.example/i.png',
  '\\i.png',
  'http://b.example/i.png',
  'HTTP://B.EXAMPLE/i.png',
  'https:i.png',
  'http:i.png',
  'ftp://b.example/i.png',
  '?v=2',
  '#top',
  'i.png?v=1#x',
  ' i.png ',
  '%7Ei.png',
  'a b.png',
  'i.png\t',
  'ünï.png',
  '..',
  '.',
  '..%2fi.png',
  '//',
  'x:y',
  'C:\\i.png',
  'i.png#',
  '?',
  '#',
];

/** What the URL parser alone gives for each reference on `base` (resourceUrls's contract: the page's own URL left out). */
function expected(base: string, pageUrl = base): string[] {
  const out = new Set<string>();
  for (const ref of REFS) {
    try {
      const u = new URL(ref.trim(), base);
      if (/^https?:$/.test(u.protocol)) out.add(u.href.replace(/#.*$/, ''));
    } catch {
      // not a URL
    }
  }
  out.delete(pageUrl);
  return [...out];
}

const page = (refs: string[], base?: string) => `${base ? `<base href="${base}">` : ''}${refs.map((r) => `<img src="${r.replace(/"/g, '&quot;')}">`).join('')}`;

describe('resourceUrls: kept resolutions', () => {
  it("give the parser's answer on every page of a directory, whichever page came first", () => {
    for (const order of [BASES, [...BASES].reverse()]) {
      for (const base of order) expect(resourceUrls(page(REFS), base), base).toEqual(expected(base));
    }
  });

  it('follow a <base href>, relative to the page, over a page of the same directory', () => {
    const pageUrl = 'http://a.example/dir/page.html';
    for (const href of ['../other/', 'http://c.example/x/y.html?z', '/root/file', 'sub/', 'http://a.example/dir/page.html?b']) {
      expect(resourceUrls(page(REFS, href), pageUrl), href).toEqual(expected(new URL(href, pageUrl).href, pageUrl));
    }
  });
});
