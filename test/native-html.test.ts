/**
 * The native HTML extractor (native/html-extract.c) against the JavaScript one it stands in
 * for (the scanner driving HtmlExtractor): the same parse, field for field, on awkward markup,
 * on generated tag soup rich in links, bases, meta and entities, with small text limits and
 * link caps, and on documents it hands back to the scanner; in its resources mode, the resources
 * a page embeds against page-resources.ts's scanner. Every HTML record of the shared
 * fixtures is compared in html-scanner.test.ts, where HtmlExtractor reads them natively.
 * Under CI the addon must be built.
 */
import { describe, expect, it } from 'vitest';
import { HtmlExtractor, NATIVE_CHARS, type HtmlOptions } from '../src/parse/html.js';
import { HtmlScanner } from '../src/parse/html-scanner.js';
import { nativeHtml, nativeResources } from '../src/parse/native-html.js';
import { resourceUrls } from '../src/replay/page-resources.js';
import { seededRandom } from './helpers.js';
import { AWKWARD, TOKENS, soup } from './html-soup.js';
import { nativeWanted } from '../src/native/addon.js';

const built = nativeHtml !== undefined;
// (Under CI the addon is built; a run with NWAX_NATIVE leaving this kernel to JavaScript skips.)
if (!built && process.env.CI === 'true' && nativeWanted('html'))
  throw new Error('the native addon (build/Release/nwax_native.node) is not built: npm install runs node-gyp');

/** The parse of `html` by the native extractor (the default) and by the scanner, chunked alike. */
function both(html: string, opts: HtmlOptions, cuts: number[] = []) {
  const a = new HtmlExtractor(opts);
  const b = new HtmlExtractor(opts, (h) => new HtmlScanner(h));
  let at = 0;
  for (const cut of [...cuts].sort((x, y) => x - y)) {
    a.write(html.slice(at, cut));
    b.write(html.slice(at, cut));
    at = cut;
  }
  a.write(html.slice(at));
  b.write(html.slice(at));
  return { native: a.end(), js: b.end() };
}

/** Tokens that exercise the link replay: bases, links that do not resolve, caps, meta, lang. */
const LINK_TOKENS = [
  '<a href="a.html">',
  '<a href="javascript:void(0)">',
  '<script>x</script>',
  '<a href="">',
  '<a href="http://[bad/">',
  '<a name=x>',
  '</a>',
  '<a href="#top">',
  '<a href="b.html#frag">',
  "<a HREF='c.html?x=1&amp;y=2'>",
  '<base href="/dir/">',
  '<base href="">',
  '<base href="http://other.example/">',
  '<area href=map.html alt="Map &amp; more">',
  '<area href=m2.html title=t2>',
  '<frame src=f.html>',
  '<iframe src=i.html>inner</iframe>',
  // images, with their alt (or title) and the words around them
  '<img src="p.png" alt="a picture &amp; more">',
  '<IMG SRC=q.gif title=tq>',
  '<image src=old.png alt="">',
  '<img alt=no-src>',
  "<img src='data:image/png;base64,AAAA'>",
  '<img src="p.png" alt=again>',
  'words before and after ',
  '<meta name=description content="d &amp; e">',
  '<meta name="ROBOTS" content="NoIndex, follow">',
  '<meta http-equiv=Content-Language content=" de ">',
  '<html lang="">',
  '<html LANG=en-GB>',
  '<title>',
  '</title>',
  '<div>',
  '</div>',
  'anchor text ',
  '\u00a0\u3000',
  '<svg><title>svg t</title></svg>',
  '<form>',
  '</p>',
  '<p>',
  '<noscript>',
  '</noscript>',
  '<template>',
  '</template>',
  // every name of the implied-close rules
  '<thead>',
  '<tbody>',
  '<tfoot>',
  '<th>',
  '<td>',
  '<tr>',
  '<dt>',
  '<dd>',
  '<rt>',
  '<rp>',
  '<head>',
  '<body>',
  '<link>',
  '<h1>',
  '<h6>',
  '<button>',
  '<datalist>',
  '<output>',
  '<optgroup>',
  '<option>',
  '<select>',
  '<input>',
  '<center>',
  '<li>',
  '</thead>',
  '</tbody>',
  '</td>',
  '</tr>',
  '</li>',
  '</h1>',
  '</select>',
  '</option>',
  '</dd>',
  '</rt>',
  '</body>',
];

const OPTIONS: Omit<HtmlOptions, 'url'>[] = [
  { textLimit: 1 << 20, maxOutlinks: -1 },
  { textLimit: 7, maxOutlinks: 1 },
  { textLimit: 100, maxOutlinks: 3 },
];

describe.skipIf(!built)("the native HTML extractor gives the scanner's parse", () => {
  it('on awkward markup, whole and in chunks', () => {
    for (const html of AWKWARD) {
      for (const o of OPTIONS) {
        const opts = { url: 'http://example.org/a/b.html', ...o };
        const { native, js } = both(html, opts);
        expect(native, html).toEqual(js);
        expect(both(html, opts, [html.length >> 1]).native, html).toEqual(js);
      }
    }
  });

  it('on 3,000 documents of generated tag soup with links, bases and meta (NWAX_SOUP_CASES)', () => {
    const rand = seededRandom(20261126);
    const tokens = [...TOKENS, ...LINK_TOKENS, ...LINK_TOKENS];
    let native = 0;
    const cases = Number(process.env.NWAX_SOUP_CASES ?? 3000);
    for (let i = 0; i < cases; i++) {
      const html = soup(rand, tokens);
      if (nativeHtml!(html, 1 << 20) !== null) native++;
      const o = OPTIONS[i % OPTIONS.length];
      const cuts = Array.from({ length: Math.floor(rand() * 4) }, () => Math.floor(rand() * html.length));
      const r = both(html, { url: 'http://example.org/a/b.html', ...o }, cuts);
      expect(r.native, JSON.stringify(html)).toEqual(r.js);
    }
    // Most of them are read natively (the rest hold <plaintext> or a non-ASCII tag name).
    expect(native).toBeGreaterThan(cases * 0.5);
  });

  it('hands back what it does not read, and the scanner reads it', () => {
    const opts = { url: 'http://example.org/', textLimit: 1 << 20, maxOutlinks: -1 };
    for (const html of ['<p>a<plaintext><b>b</b>', '<p>x<tæg>y</tæg><a href=z>z</a>', '<a hréf=x href=y>k</a>', '<x>a</xø>']) {
      expect(nativeHtml!(html, 1 << 20), html).toBeNull();
      const { native, js } = both(html, opts);
      expect(native, html).toEqual(js);
      expect(native.text.length).toBeGreaterThan(0);
    }
    // Read natively: SVG and MathML, CDATA in them, a title inside SVG, self-closing tags.
    const svg = '<svg><title>svg title</title><clipPath><rect/></clipPath><![CDATA[c]]></svg><math><mi>x</mi></math><p>after';
    expect(nativeHtml!(svg, 1 << 20)).not.toBeNull();
    const { native, js } = both(svg, opts);
    expect(native).toEqual(js);
    expect(native.title).toBe('svg title');
  });

  it('streams a document past the characters held for the extractor through the scanner, to the same parse', () => {
    const unit = '<p>words and <a href="l.html">links</a> ';
    const page = `<title>big</title>${unit.repeat(Math.ceil(NATIVE_CHARS / unit.length) + 1000)}<a href="last.html">end</a>`;
    expect(page.length).toBeGreaterThan(NATIVE_CHARS);
    const chunks = Array.from({ length: Math.ceil(page.length / 65536) }, (_, i) => (i + 1) * 65536).filter((c) => c < page.length);
    const { native, js } = both(page, { url: 'http://example.org/', textLimit: 1 << 20, maxOutlinks: -1 }, chunks);
    expect(native).toEqual(js);
    expect(native.outlinks.map((l) => l.url)).toEqual(['http://example.org/l.html', 'http://example.org/last.html']);
  });

  it("closes what each open tag implies it closes: every pair of the rules' names", () => {
    const names = [
      'tr',
      'th',
      'td',
      'thead',
      'tbody',
      'tfoot',
      'head',
      'body',
      'link',
      'script',
      'a',
      'li',
      'p',
      'h1',
      'h2',
      'h6',
      'input',
      'option',
      'optgroup',
      'select',
      'output',
      'button',
      'datalist',
      'textarea',
      'dd',
      'dt',
      'rt',
      'rp',
      'div',
      'form',
      'table',
      'ul',
      'hr',
      'address',
      'section',
      'pre',
      'span',
      'br',
      'img',
      'image',
      'svg',
      'math',
      'title',
      'mi',
      'foreignObject',
    ];
    const opts = { url: 'http://example.org/', textLimit: 1 << 20, maxOutlinks: -1 };
    for (const x of names) {
      for (const y of names) {
        // If <y> closes <x>, `</x>` finds no x open and the link's text runs on; else it ends the link.
        const html = `<${x}><${y}><a href=l.html>t</${x}>u</a>v`;
        const { native, js } = both(html, opts);
        expect(native, html).toEqual(js);
      }
    }
  });

  it('finds the end of a script, style, title or textarea among the "<"s inside it', () => {
    const rand = seededRandom(20261127);
    const pieces = [
      '<',
      '</',
      '</s',
      '</scrip',
      '</script',
      '</scriptx>',
      '</SCRIPT',
      '</style',
      '</titl',
      '</textare',
      'a<b',
      ' x ',
      '&amp;',
      '\n',
      '<!--',
      '-->',
    ];
    const ends = ['</script>', '</SCRIPT >', '</script\t>', '</script/>', '</style>', '</title>', '</textarea>', ''];
    const opts = { url: 'http://example.org/', textLimit: 1 << 20, maxOutlinks: -1 };
    for (let i = 0; i < 2000; i++) {
      const tag = ['script', 'style', 'title', 'textarea'][i % 4];
      let body = '';
      for (let k = Math.floor(rand() * 12); k > 0; k--) body += pieces[Math.floor(rand() * pieces.length)];
      const html = `<p>a<${tag}>${body}${ends[Math.floor(rand() * ends.length)]}<a href=l.html>after</a>b`;
      const { native, js } = both(html, opts);
      expect(native, html).toEqual(js);
    }
  });

  it('reads hostile nesting in time linear in the page: 300,000 open elements, as many end tags of others, forms', () => {
    // A walk down the stack per end tag or <form> made this quadratic (minutes per page).
    const n = 300_000;
    const html = `${'<div>'.repeat(n)}${'</span>'.repeat(n)}${'<form>'.repeat(n)}<a href="x.html">t</a>`;
    const { native, js } = both(html, { url: 'http://example.org/', textLimit: 1 << 20, maxOutlinks: -1 }, [html.length >> 1]);
    expect(native).toEqual(js);
    expect(native.outlinks).toEqual([{ url: 'http://example.org/x.html', anchor: 't' }]);
  });

  it('decodes a title or a textarea of a million ampersands in time linear in it', () => {
    // Each `&` looked back for a `<` as far as the start: a 256 kB title took 30 s.
    const amps = '&'.repeat(1 << 20);
    const html = `<title>${amps}</title><textarea>${'&#'.repeat(1 << 19)}</textarea><p>x</p>`;
    const { native, js } = both(html, { url: 'http://example.org/', textLimit: 1 << 22, maxOutlinks: -1 });
    expect(native).toEqual(js);
    expect(native.title).toMatch(/^&{1000,}$/);
  });

  it('keeps the anchor text of the open link across a link that does not resolve', () => {
    const html = '<a href="one.html">one <div><a href="javascript:x">two</a> three</div> four';
    const { native, js } = both(html, { url: 'http://example.org/', textLimit: 1 << 20, maxOutlinks: -1 });
    expect(native).toEqual(js);
    expect(native.outlinks).toEqual([{ url: 'http://example.org/one.html', anchor: 'one two' }]);
  });

  it('keeps each image the page shows once, with its alt text and ten words each side, and none in hidden content', () => {
    const words = (from: number, n: number) => Array.from({ length: n }, (_, i) => `w${from + i}`).join(' ');
    const html = `<h1>${words(0, 12)}</h1><p>${words(12, 3)} <img src="/i/robin.jpg" alt="A  European robin"> ${words(15, 12)}</p>
<noscript><img src=/pixel.gif></noscript><template><img src=t.png></template><img src='data:image/gif;base64,R0lGOD'>
<figure><IMAGE src=heron.png title="grey heron"><figcaption>fishing at dawn</figcaption></figure><img src="/i/robin.jpg" alt=again>`;
    const { native, js } = both(html, { url: 'http://birds.example/p/page.html', textLimit: 1 << 20, maxOutlinks: -1 });
    expect(native).toEqual(js);
    expect(native.images).toEqual([
      { url: 'http://birds.example/i/robin.jpg', anchor: `A European robin ${words(5, 10)} ${words(15, 10)}` },
      { url: 'http://birds.example/p/heron.png', anchor: `grey heron ${words(17, 10)} fishing at dawn` },
    ]);
    // Images are not outlinks: a crawl does not follow them.
    expect(native.outlinks).toEqual([]);
    // Capped at maxImages.
    expect(both(html, { url: 'http://birds.example/', textLimit: 1 << 20, maxOutlinks: -1, maxImages: 1 }).js.images).toHaveLength(1);
  });
});

/** Tokens of what a page embeds (replay/page-resources.ts), in every way markup may say it. */
const RESOURCE_TOKENS = [
  '<img src="i.png">',
  '<IMG SRC=up.gif>',
  '<image src=old.png>',
  '<img src="a&amp;b.png" srcset="s1.png 1x, s2.png 2x , ,">',
  '<img src="">',
  "<img src='data:image/png;base64,AAAA'>",
  '<script src="s.js"></script>',
  '<script>var u = "url(no.png)"; "<img src=no2.png>"</script>',
  '<iframe src=f.html>text</iframe>',
  '<frame src=fr.html>',
  '<embed src=e.swf>',
  '<video src=v.mp4 poster=p.jpg><source src=v.webm><track src=t.vtt></video>',
  '<audio src=a.mp3>',
  '<input type=image src=btn.png>',
  '<object data=o.pdf>',
  '<body background=bg.jpg>',
  '<table background="tb.jpg"><td background=td.jpg>',
  '<link rel=stylesheet href=c.css>',
  '<link rel="shortcut icon" href="/favicon.ico">',
  '<link rel=alternate href=feed.xml>',
  '<link href=norel.css>',
  '<base href="/other/">',
  '<base href="">',
  '<base href="http://cdn.example/x/">',
  '<div style="background: url(\'d.png\')">',
  '<p style="x" style="background:url(second.png)">',
  '<span srcset="sp.png">',
  '<style>body { background: url(b.png) } @import "imp.css"; .x{background:url( "q.png" )}</style>',
  '<style></style>',
  '<STYLE>a{b:url(u.png)}</STYLE >',
  '<a href="not-a-resource.html">',
  '<img src="http://[bad">',
  '<img src="javascript:x()">',
  '<img src="#frag">',
  '<img src="  spaced.png  ">',
  '<img src=i.png#part>',
  '<!-- <img src=commented.png> -->',
  '<textarea><img src=ta.png></textarea>',
  '<title><img src=ti.png></title>',
  '<p>',
  'text &amp; more',
];

describe.skipIf(!built)('the resources a page embeds (the extractor in resources mode)', () => {
  const base = 'http://example.org/dir/page.html';

  it('finds what the scanner finds, in the same order, from the text or from its bytes as latin1', () => {
    const rand = seededRandom(53);
    for (let i = 0; i < 3000; i++) {
      const html = soup(rand, i % 2 ? RESOURCE_TOKENS : [...RESOURCE_TOKENS, ...TOKENS]);
      const js = resourceUrls(html, base, { native: false });
      expect(resourceUrls(html, base), html).toEqual(js);
      const bytes = Buffer.from(html, 'latin1');
      expect(resourceUrls(bytes, base), html).toEqual(resourceUrls(bytes.toString('latin1'), base, { native: false }));
    }
    // What the tokens name, each resolved once against the base in force.
    const all = resourceUrls(RESOURCE_TOKENS.join(''), base);
    expect(all).toContain('http://example.org/dir/i.png');
    expect(all).toContain('http://example.org/dir/a&b.png');
    expect(all).toContain('http://example.org/dir/s1.png');
    expect(all).toContain('http://example.org/favicon.ico');
    expect(all).toContain('http://cdn.example/x/b.png');
    expect(all).toContain('http://cdn.example/x/imp.css');
    expect(all).not.toContain('http://cdn.example/x/feed.xml');
    expect(all.some((u) => /no\.png|no2\.png|commented|ta\.png|ti\.png|not-a-resource/.test(u))).toBe(false);
  });

  it('hands back to the scanner a page it does not read (<plaintext>), with the same answer', () => {
    const html = '<img src=before.png><style>a{b:url(c.png)}</style><plaintext><img src=text.png>';
    expect(nativeResources!(html)).toBeNull();
    expect(resourceUrls(html, base)).toEqual(['http://example.org/dir/before.png', 'http://example.org/dir/c.png']);
  });

  it('reads CSS in an SVG <style> (text, its entities decoded) as the scanner does', () => {
    const html = '<svg><style>a{b:url(s&amp;v.png)}</style><image href=x.png /></svg><p style="c:url(p.png)">';
    expect(nativeResources!(html)).not.toBeNull();
    expect(resourceUrls(html, base)).toEqual(resourceUrls(html, base, { native: false }));
    expect(resourceUrls(html, base)).toEqual(['http://example.org/dir/s&v.png', 'http://example.org/dir/p.png']);
  });
});
