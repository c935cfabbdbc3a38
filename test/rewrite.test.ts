import { describe, expect, it } from 'vitest';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HtmlRewriter } from '../src/replay/rewrite-html.js';
import { rewriteCss } from '../src/replay/rewrite-css.js';
import { rewriteHeaders } from '../src/replay/rewrite-headers.js';
import { withoutNoiseParams } from '../src/replay/fuzzy.js';
import { isSelfRedirect } from '../src/replay/resolve.js';
import { replaceCssUrls } from '../src/replay/css-urls.js';
import { surt } from '../src/cdx/surt.js';
import { robotFlags } from '../src/cdx/robots-meta.js';
import { resourceUrls } from '../src/replay/page-resources.js';
import { HeaderList } from '../src/archive/headers.js';

const CTX = { coll: 'c', ts: '20100101000000', base: 'http://a.example/dir/page.html' };
const P = '/replay/c/20100101000000';

async function rewrite(input: Buffer, cuts: number[] = []): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, input.length]) {
    chunks.push(input.subarray(at, c));
    at = c;
  }
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(chunks),
    new HtmlRewriter(CTX, '<script src="/shim.js"></script>'),
    new Writable({
      write(c: Buffer, _e, cb) {
        out.push(c);
        cb();
      },
    }),
  );
  return Buffer.concat(out);
}

const PAGE = Buffer.from(
  `<!DOCTYPE html>
<HTML><HEAD><meta charset="utf-8"><TITLE>Caf\u00e9 \u4e2d\u6587</TITLE>
<style>body { background: url("bg.png") } @import 'x.css';</style>
<!-- <img src="/commented.png"> -->
<base href="http://b.example/base/">
</HEAD><body background=/tile.gif>
<a HREF=/abs?x=1&amp;y=2 href="/second">first wins</a>
<a href='rel.html' title="\u00e9t\u00e9">rel</a> <a href="#frag">frag</a> <a href="mailto:x@y">m</a>
<img src="//cdn.example/i.png" alt="x"><img src=http://c.example/u.png>
<script>var s = "<img src='/not-an-attr.png'></div>"; if (a < b) {}</script>
<textarea><a href="/in-textarea"></a></textarea>
<p style='color:red;background:url(/p.png)'>\u00e9</p>
<meta http-equiv="refresh" content="0; url=/next.html">
<form action="/post"><input type=image src="/go.png"></form>
</body></HTML>
`,
  'utf8',
);

describe('the HTML rewriter', () => {
  it('rewrites URL attributes, style, base and refresh, and leaves everything else as its bytes', async () => {
    const out = (await rewrite(PAGE)).toString('utf8');
    expect(out).toContain(`<HEAD><script src="/shim.js"></script><meta charset="utf-8"><TITLE>Caf\u00e9 \u4e2d\u6587</TITLE>`);
    expect(out).toContain(`<style>body { background: url("${P}im_/http://a.example/dir/bg.png") } @import '${P}cs_/http://a.example/dir/x.css';</style>`);
    expect(out).toContain('<!-- <img src="/commented.png"> -->');
    expect(out).toContain(`<base href="${P}mp_/http://b.example/base/">`);
    // After <base>, URLs resolve against it: root-relative ones against its host.
    expect(out).toContain(`<body background="${P}im_/http://b.example/tile.gif">`);
    // The first of two attributes of one name is the one a browser takes; entities are kept as written.
    expect(out).toContain(`<a HREF="${P}mp_/http://b.example/abs?x=1&amp;y=2" href="/second">first wins</a>`);
    expect(out).toContain(`<a href='${P}mp_/http://b.example/base/rel.html' title="\u00e9t\u00e9">`);
    expect(out).toContain('<a href="#frag">frag</a> <a href="mailto:x@y">m</a>');
    expect(out).toContain(`<img src="${P}im_/http://cdn.example/i.png" alt="x"><img src="${P}im_/http://c.example/u.png">`);
    expect(out).toContain(`<script>var s = "<img src='/not-an-attr.png'></div>"; if (a < b) {}</script>`);
    expect(out).toContain('<textarea><a href="/in-textarea"></a></textarea>');
    expect(out).toContain(`<p style='color:red;background:url(${P}im_/http://b.example/p.png)'>\u00e9</p>`);
    expect(out).toContain(`<meta http-equiv="refresh" content="0; url=${P}mp_/http://b.example/next.html">`);
    expect(out).toContain(`<form action="${P}mp_/http://b.example/post"><input type=image src="${P}im_/http://b.example/go.png"></form>`);
  });

  it('gives the same bytes however the page is cut into chunks', async () => {
    const whole = await rewrite(PAGE);
    for (let cut = 1; cut < PAGE.length; cut += 3) expect((await rewrite(PAGE, [cut])).equals(whole), `cut at ${cut}`).toBe(true);
    const ones = Array.from({ length: PAGE.length - 1 }, (_, i) => i + 1);
    expect((await rewrite(PAGE, ones)).equals(whole)).toBe(true);
  });

  it('keeps bytes that are not UTF-8 (a windows-1252 page) and puts the shim in a page without a head', async () => {
    const latin = Buffer.concat([Buffer.from('<p>caf'), Buffer.from([0xe9, 0x80, 0xa0]), Buffer.from('</p><img src="/a.png">')]);
    const out = await rewrite(latin);
    expect(out.subarray(0, 32 + 3).toString('latin1')).toBe('<script src="/shim.js"></script><p>');
    expect(out.includes(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x80, 0xa0]))).toBe(true);
    expect((await rewrite(Buffer.from(''))).toString()).toBe('<script src="/shim.js"></script>');
    // An unclosed <style> at the end is rewritten all the same.
    expect((await rewrite(Buffer.from('<style>a{b:url(/c.png)}'))).toString()).toContain(`url(${P}im_/http://a.example/c.png)`);
  });

  it('disarms integrity and archived CSP meta tags', async () => {
    const out = (
      await rewrite(
        Buffer.from(
          '<head><link rel=stylesheet href=/s.css integrity="sha384-x"><meta http-equiv="Content-Security-Policy" content="default-src \'none\'"></head>',
        ),
      )
    ).toString();
    expect(out).toContain(`<link rel=stylesheet href="${P}cs_/http://a.example/s.css" _integrity="sha384-x">`);
    expect(out).toContain('http-equiv="x-archive-orig-Content-Security-Policy"');
  });
});

describe('CSS, headers and lookup rules', () => {
  it('rewrites url() and @import in a stylesheet, relative to the stylesheet', () => {
    expect(rewriteCss('a{b:url( "../i.png" )} @import "x.css"; c{d:url(data:image/png;base64,AA==)}', { ...CTX, base: 'http://a.example/css/s.css' })).toBe(
      `a{b:url("${P}im_/http://a.example/i.png")} @import "${P}cs_/http://a.example/css/x.css"; c{d:url(data:image/png;base64,AA==)}`,
    );
  });

  it('keeps content headers, rewrites Location and Link, and renames what would act on the replay origin', () => {
    const h = new HeaderList();
    for (const [n, v] of [
      ['Content-Type', 'text/html'],
      ['Location', '/moved'],
      ['Link', '</s.css>; rel=preload'],
      ['Set-Cookie', 'a=b'],
      ['Strict-Transport-Security', 'max-age=1'],
      ['Content-Length', '10'],
      ['Content-Encoding', 'gzip'],
    ])
      h.add(n, v);
    expect(rewriteHeaders(h, CTX, false)).toEqual([
      ['Content-Type', 'text/html'],
      ['Location', `${P}mp_/http://a.example/moved`],
      ['Link', `<${P}oe_/http://a.example/s.css>; rel=preload`],
      ['X-Archive-Orig-Set-Cookie', 'a=b'],
      ['X-Archive-Orig-Strict-Transport-Security', 'max-age=1'],
      ['X-Archive-Orig-Content-Length', '10'],
      ['X-Archive-Orig-Content-Encoding', 'gzip'],
    ]);
    expect(rewriteHeaders(h, CTX, true)).toContainEqual(['Content-Encoding', 'gzip']);
  });

  it('finds url(...) as the pattern pywb and wabac.js use does, on random stylesheets', () => {
    const pattern = /url\(\s*(["']|&quot;)?([^"'()\s]*?|[^"']*?)\1\s*\)/gi;
    const pieces = ['url(', 'URL(', 'uRl(', '(', ')', '"', "'", ' ', '\n', 'a', '/', '&quot;', '&QUOT;', '&Quot;', '&quot', '\t', 'x', ';', '\u00a0', '&'];
    const mark = (whole: string, q: string | undefined, value: string) => `[${whole}|${q}|${value}]`;
    let seed = 19;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (let i = 0; i < 20_000; i++) {
      let css = '';
      for (let k = rand(16); k > 0; k--) css += pieces[rand(k % 3 === 0 ? 3 : pieces.length)];
      expect(replaceCssUrls(css, mark), JSON.stringify(css)).toBe(css.replace(pattern, mark));
    }
  });

  it('takes time in proportion to a hostile page, not its square', async () => {
    // Each of these took minutes or hours as regular expressions with a run at the end
    // (/\s+$/, /\/+$/, url(...) over many `url(` with no `)`): 60 kB took seconds.
    const spaces = ' '.repeat(1 << 20);
    const unclosed = `a{b:${'url('.repeat(1 << 18)}x}`;
    expect(rewriteCss(unclosed, CTX)).toBe(unclosed);
    expect(rewriteCss(`a{b:${'url(&quot;a)'.repeat(1 << 16)}}`, CTX)).toContain(`url(${P}im_/http://a.example/dir/&quot;a)`);
    expect(rewriteCss(`a{b:url(a${spaces}b)}`, CTX)).toBe(`a{b:url(${P}im_/http://a.example/dir/a${'%20'.repeat(1 << 20)}b)}`);
    const page = Buffer.from(
      `<a href="a${spaces}b">x</a><meta http-equiv="refresh" content="0; url=a${spaces}b"><div style="background:url(${'/'.repeat(1 << 20)}x">`,
    );
    expect((await rewrite(page)).length).toBeGreaterThan(3 << 20);
    // The coherence report's list of a page's resources, and the CDX robots flags of a page.
    expect(resourceUrls(`<style>${'url('.repeat(1 << 18)}</style><img src="i.png">`, CTX.base)).toEqual(['http://a.example/dir/i.png']);
    expect(robotFlags(Buffer.from(`<meta name=${' '.repeat(60_000)}x><meta name="robots" content="noindex">`))).toBe('I');
    // A redirect's Location against the URL it came from (a run of slashes, then more).
    expect(isSelfRedirect('http://a.example/p', `http://a.example/p${'/'.repeat(1 << 20)}x#y`)).toBe(false);
    // The SURT of a URL (nwax cdx, import, the CDX API) with a megabyte of spaces or dots in it.
    expect(surt(`http://example.com/a${spaces}b`)).toMatch(/^com,example\)\/a(%20)+b$/);
    expect(surt(`http://a${'.'.repeat(1 << 20)}b.example/`)).toMatch(/^example,b,+a\)\/$/);
  });

  it('drops cache-busting and tracking parameters, and knows a self-redirect', () => {
    expect(withoutNoiseParams('http://a/x.js?v=2&_=1699&utm_source=feed&cb=9')).toBe('http://a/x.js?v=2');
    expect(withoutNoiseParams('http://a/x?_=1')).toBe('http://a/x');
    expect(isSelfRedirect('http://a.example/p', 'https://www.a.example/p/')).toBe(true);
    expect(isSelfRedirect('http://a.example/p', '/q')).toBe(false);
  });
});
