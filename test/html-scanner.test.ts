/**
 * The HTML scanner (src/parse/html-scanner.ts) against the library it replaced, htmlparser2 12:
 * the same events (open tags with their attributes, close tags, text), however the input is
 * cut into chunks, on awkward markup, on generated tag soup, and on every HTML record of the
 * shared fixtures, where the extractor's parse is compared too. The link resolver's fast path
 * against WHATWG URL on every link met and on generated ones.
 */
import { describe, expect, it } from 'vitest';
import { Parser } from 'htmlparser2';
import { HtmlScanner, type HtmlHandler } from '../src/parse/html-scanner.js';
import { HtmlExtractor } from '../src/parse/html.js';
import { htmlparser2Source } from '../src/parse/htmlparser2-source.js';
import { UrlResolver } from '../src/parse/url-resolver.js';
import { sniffCharset } from '../src/parse/charset.js';
import { squash, squashText } from '../src/parse/squash.js';
import { HAVE_FIXTURES, fixtureRecords, seededRandom } from './helpers.js';
import { resourceUrls } from '../src/replay/page-resources.js';
import { AWKWARD, soup } from './html-soup.js';

type Event = ['open', string, string] | ['close', string] | ['text', string];

/** Every event, text merged (its pieces depend on chunks and entities), all attributes or those named. */
class Recorder implements HtmlHandler {
  readonly events: Event[] = [];
  readonly wantsText = true;
  constructor(private readonly wanted: readonly string[] | true = true) {}
  wantsAttributes(): readonly string[] | true {
    return this.wanted;
  }
  onOpen(name: string, attrs: Record<string, string>): void {
    // Only what was asked for (htmlparser2 gives every attribute).
    const kept = this.wanted === true ? attrs : Object.fromEntries(Object.entries(attrs).filter(([k]) => this.wanted !== true && this.wanted.includes(k)));
    this.events.push(['open', name, JSON.stringify(kept)]);
  }
  onClose(name: string): void {
    this.events.push(['close', name]);
  }
  onText(s: string, start: number, end: number): void {
    const text = s.slice(start, end);
    const last = this.events[this.events.length - 1];
    if (last?.[0] === 'text') last[1] += text;
    else this.events.push(['text', text]);
  }
}

function reference(html: string, wanted: readonly string[] | true = true): Event[] {
  const r = new Recorder(wanted);
  const p = new Parser(
    { onopentag: (n, a) => r.onOpen(n, a), onclosetag: (n) => r.onClose(n), ontext: (t) => r.onText(t, 0, t.length) },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  p.end(html);
  return r.events.filter((e) => e[0] !== 'text' || e[1] !== '');
}

function scanned(html: string, cuts: number[] = [], wanted: readonly string[] | true = true): Event[] {
  const r = new Recorder(wanted);
  const s = new HtmlScanner(r);
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    s.write(html.slice(at, cut));
    at = cut;
  }
  s.write(html.slice(at));
  s.end();
  return r.events;
}

/** Events compared, the first difference shown with its neighbours (not a diff of millions). */
function expectSameEvents(got: Event[], want: Event[], where: string): void {
  if (JSON.stringify(got) === JSON.stringify(want)) return;
  const i = got.findIndex((e, k) => JSON.stringify(e) !== JSON.stringify(want[k]));
  const at = i < 0 ? want.length : i;
  expect(got.slice(Math.max(0, at - 2), at + 3), `${where}: event ${at}`).toEqual(want.slice(Math.max(0, at - 2), at + 3));
}

describe("the HTML scanner gives htmlparser2 12's events", () => {
  it('on awkward markup, whole and cut at every point', () => {
    for (const html of AWKWARD) {
      const want = reference(html);
      expect(scanned(html), html).toEqual(want);
      for (let cut = 1; cut < html.length; cut++) expect(scanned(html, [cut]), `${html} cut at ${cut}`).toEqual(want);
    }
  });

  it('on 3,000 documents of generated tag soup (NWAX_SOUP_CASES), cut into random chunks', () => {
    const rand = seededRandom(20261125);
    for (let i = 0; i < Number(process.env.NWAX_SOUP_CASES ?? 3000); i++) {
      const html = soup(rand);
      const cuts = Array.from({ length: Math.floor(rand() * 6) }, () => Math.floor(rand() * html.length));
      expect(scanned(html, cuts), JSON.stringify(html)).toEqual(reference(html));
    }
  });

  it('only the attributes asked for, in any case, the first of a name winning', () => {
    // U+212A (Kelvin sign) lower-cases to an ASCII k: `\u212Aind` is the attribute `kind`.
    const wanted = ['href', 'title', 'kind', 'lang'];
    const html = '<a HREF=one Href="two" TiTlE=\'t\' hreff=x hre=y>a</a><track \u212Aind=k1 kind=k2><p data-x lang=de LANG=fr title>p</p>';
    expect(scanned(html, [], wanted)).toEqual(reference(html, wanted));
    const rand = seededRandom(7);
    for (const doc of [...AWKWARD, ...Array.from({ length: 500 }, () => soup(rand))]) {
      expect(scanned(doc, [doc.length >> 1], wanted), doc).toEqual(reference(doc, wanted));
    }
  });

  it('text is squashed as `\\s+` to one space, trimmed', () => {
    // Every string of up to four characters from letters, white space of each kind and a lone surrogate.
    const alphabet = ['a', 'b', ' ', '\t', '\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u1680', '\u205f', '\ud800'];
    let strings = [''];
    const all = [''];
    for (let len = 1; len <= 4; len++) {
      strings = strings.flatMap((p) => alphabet.map((c) => p + c));
      all.push(...strings);
    }
    for (const s of [...all, ' a  b\n\tc ', 'a\u2028\u2029b', 'one two', '\v\fz\r\n', 'a \u00a0b']) {
      expect(squash(s)).toBe(s.replace(/\s+/g, ' ').trim());
      expect(squashText(s)).toBe(s.replace(/\s+/g, ' ').trim());
    }
  });
});

describe('links resolve as WHATWG URL resolves them', () => {
  const bases = ['http://example.org/a/b/page.html?x=1', 'https://EXAMPLE.org:443/', 'http://user:pw@h.example:8080/dir/', 'http://h/', 'http://h/a'];
  const hrefs = [
    'page2.html',
    '../up.html',
    '../../../../top',
    './here',
    './../x',
    'a/./b',
    'a/../b',
    '/abs/path',
    '//other.host/x',
    '?q=1&r=2',
    '?q=%41',
    'x?y=a/b?c',
    'mailto:a@b',
    'HTTP://Caps.Example/',
    'a b.html',
    'ü.html',
    '%2e%2e/x',
    '..',
    '.',
    '../',
    'a:b',
    'a\\b',
    'a//b',
    '/',
    '/..',
    '/a/../b',
    "it's",
    'a(1).html',
    '~user/',
    'x@y',
    '?',
    '??',
    '?a#b'.slice(0, 2),
  ];

  it('on generated hrefs against several bases', () => {
    for (const base of bases) {
      const r = new UrlResolver(base);
      for (const h of hrefs) {
        let want: string | undefined;
        try {
          want = new URL(h, base).href;
        } catch {
          want = undefined;
        }
        expect(r.resolve(h), `${h} against ${base}`).toBe(want);
      }
    }
  });
});

describe.skipIf(!HAVE_FIXTURES)('on every HTML record of the shared fixtures', () => {
  it('the same events, the same parse, and links resolved as WHATWG URL does', async () => {
    let documents = 0;
    let links = 0;
    for await (const { file, record: r } of fixtureRecords()) {
      const ct = r.http?.headers.get('Content-Type') ?? (r.format === 'arc' ? r.contentType : '') ?? '';
      if (!/^\s*(text\/html|application\/xhtml\+xml)/i.test(ct) || r.http?.headers.get('Content-Encoding')) continue;
      const parts: Buffer[] = [];
      for await (const chunk of r.payload()) parts.push(chunk);
      if ((await r.finish()).damaged) continue;
      const bytes = Buffer.concat(parts);
      const cs = sniffCharset(bytes.subarray(0, 8192), ct, true);
      // As import parses it: the first 16 MB (nwax.import.parse.bytes; one fixture holds 431 MB of HTML).
      const head = bytes.subarray(cs.bomLength, cs.bomLength + (16 << 20));
      let html: string;
      try {
        html = new TextDecoder(cs.encoding).decode(head);
      } catch {
        html = new TextDecoder('windows-1252').decode(head);
      }
      documents++;
      const where = `${file}: ${r.url}`;
      expectSameEvents(scanned(html, [html.length >> 1]), reference(html), where);
      const opts = { url: r.url, textLimit: 1 << 20, maxOutlinks: -1 };
      const a = new HtmlExtractor(opts);
      const b = new HtmlExtractor(opts, htmlparser2Source);
      a.write(html);
      b.write(html);
      const pa = a.end();
      expect(pa, where).toEqual(b.end());
      // What the page embeds (an export's scan): the extractor's resources mode as the scanner, from
      // the text and from the bytes read as latin1 (as an export reads them).
      expect(resourceUrls(html, r.url), where).toEqual(resourceUrls(html, r.url, { native: false }));
      expect(resourceUrls(head, r.url), where).toEqual(resourceUrls(head.toString('latin1'), r.url, { native: false }));
      // Every href met, against the page's URL: the fast path or the parser, never another answer.
      const resolver = new UrlResolver(r.url);
      for (const m of html.matchAll(/\shref\s*=\s*["']?([^"'\s>#]+)/gi)) {
        links++;
        let want: string | undefined;
        try {
          want = new URL(m[1], r.url).href;
        } catch {
          want = undefined;
        }
        expect(resolver.resolve(m[1]), `${where}: ${m[1]}`).toBe(want);
      }
    }
    expect(documents).toBeGreaterThan(100);
    expect(links).toBeGreaterThan(1000);
  }, 300_000);
});
