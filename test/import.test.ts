import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync, readdirSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { EXPECTED_DUP, expectedVersionDates } from './dedup-example.js';
import { HAVE_FIXTURES, fixture, nwax, nwaxAsync, run, segmentRecords, tempDir, FIXTURES } from './helpers.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc, dedupExampleRecords, page } from '../scripts/make-fixtures.mjs';
import { parseStatusFilter } from '../src/segment/status-filter.js';

interface Content {
  date: string;
  offset: number;
  file: string;
  location: string;
  collection: string;
  status: number | null;
}
interface ParseData {
  title: string;
  outlinks: { url: string; anchor: string }[];
  noindex: boolean;
  nofollow: boolean;
  parse: string;
  meta: { charset?: string; digest: string };
}

describe('the worked dedup example', () => {
  it('cdx + dedup-cdx + import -e: exactly the five versions, each from its first capture', async () => {
    const dir = tempDir();
    const warc = join(dir, 'example.warc.gz');
    await writeWarc(warc, dedupExampleRecords());
    const cdx = await nwax(['cdx', '-o', join(dir, 'example.cdx'), warc]);
    expect(cdx.code, cdx.stderr).toBe(0);
    const dup = await nwax(['dedup-cdx', join(dir, 'example.cdx')]);
    expect(dup.code, dup.stderr).toBe(0);
    // The list has the shape of the spec's expected.dup (real digests in place of the labels).
    const expected = EXPECTED_DUP.trim().split('\n');
    expect(dup.stdout.trim().split('\n')).toHaveLength(expected.length);
    writeFileSync(join(dir, 'all.dup'), dup.stdout);
    writeFileSync(join(dir, 'manifest'), `${warc} october\n`);
    const seg = join(dir, 'segments', '20071011000000');
    const r = await nwax(['import', '-e', join(dir, 'all.dup'), join(dir, 'manifest'), seg]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/imported 5\b/);
    expect(r.stderr).toMatch(/excluded 5\b/);
    const content = segmentRecords(seg, 'content') as Map<string, Content>;
    expect([...content.values()].map((c) => c.date).sort()).toEqual(['20071001120000', '20071003120000', '20071007120000', '20071008120000', '20071010120000']);
    for (const [key, c] of content) {
      expect(key).toMatch(/^http:\/\/example\.org\/index\.html sha1:[A-Z2-7]{32}$/);
      expect(c.collection).toBe('october');
      expect(c.location).toBe(warc);
    }
    const text = segmentRecords(seg, 'parse_text');
    expect([...text.values()].sort()).toEqual([
      'My homepage Hello, welcome to my page.',
      'My homepage Hey, I finally updated this.',
      'My homepage My homepage is great!',
      "My homepage Sorry I haven't updated this in a while.",
      'My homepage Under construction.',
    ]);
    // Without the list, the same five versions, each with every date it was captured.
    const all = join(dir, 'segments', 'all');
    expect((await nwax(['import', join(dir, 'manifest'), all])).code).toBe(0);
    const fetch = segmentRecords(all, 'crawl_fetch') as Map<string, { dates: string[] }>;
    expect([...fetch.values()].map((f) => f.dates.join(' ')).sort()).toEqual(expectedVersionDates());
    // readseg lists the segment and dumps one document by key.
    const list = await nwax(['readseg', '-list', seg, all]);
    expect(list.stdout).toMatch(
      /^NAME +GENERATED +FETCHER START +FETCHER END +FETCHED +PARSED\n20071011000000 +\? +2007-10-01T12:00:00 +2007-10-10T12:00:00 +5 +5\nall /,
    );
    const key = [...content.keys()][0];
    const dump = await nwax(['readseg', '-dump', seg, key]);
    expect(dump.code, dump.stderr).toBe(0);
    expect(dump.stdout).toContain(`URL:: ${key}`);
    expect(dump.stdout).toMatch(/Content::[\s\S]*ParseData::[\s\S]*ParseText::[\s\S]*CrawlFetch::[\s\S]*CrawlParse::/);
    const missing = await nwax(['readseg', '-dump', seg, 'http://example.org/ sha1:NOPE']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no document with key/);
    // parse_text's blocks are its own (nwax.segment.text.*), the other datasets' the run's: the same records.
    const small = join(dir, 'segments', 'small-text-blocks');
    expect((await nwax(['import', '-D', 'nwax.segment.text.block.size=40', join(dir, 'manifest'), small])).code).toBe(0);
    const blocks = (s: string, name: string) =>
      readdirSync(join(s, name))
        .filter((n) => n.endsWith('.idx'))
        .reduce(
          (n, f) =>
            n +
            readFileSync(join(s, name, f), 'utf8')
              .trim()
              .split('\n').length,
          0,
        );
    expect(blocks(small, 'parse_text')).toBe(5);
    expect(blocks(all, 'parse_text')).toBeLessThan(5);
    expect(blocks(small, 'content')).toBe(blocks(all, 'content'));
    for (const name of ['parse_text', 'content', 'parse_data']) expect(segmentRecords(small, name), name).toEqual(segmentRecords(all, name));
  });
});

describe.skipIf(!HAVE_FIXTURES)('importing every fixture', () => {
  it('gives one document per 2xx capture not excluded, and reports the damaged ones', async () => {
    const dir = tempDir();
    const archives = readFileSync(join(FIXTURES, 'manifest.tsv'), 'utf8')
      .split('\n')
      .map((l) => l.split('\t')[0])
      .filter((p) => /\.(w?arc)(\.gz)?$/.test(p ?? ''))
      .map(fixture)
      .filter((p) => existsSync(p));
    expect(archives.length).toBeGreaterThan(80);
    writeFileSync(join(dir, 'manifest'), `${archives.join('\n')}\n`);
    // (Long runs as child processes that do not block this one: vitest's RPC must keep going.)
    const cdx = await nwaxAsync(['cdx', '-q', '--no-header', '-o', join(dir, 'all.cdx'), ...archives]);
    expect([0, 3]).toContain(cdx.code);
    // (Exit 3: the damaged fixtures' lines are reported, the rest listed.)
    expect([0, 3]).toContain((await nwax(['dedup-cdx', '-o', join(dir, 'all.dup'), join(dir, 'all.cdx')])).code);
    const seg = join(dir, 'seg');
    const r = await nwaxAsync(['import', '-e', join(dir, 'all.dup'), join(dir, 'manifest'), seg]);
    // Some fixtures are damaged on purpose: exit 3, each damaged record named with its offset.
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/example-space-in-url\.arc: offset \d+: truncated: .*record skipped/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    // Expected, from the CDX alone: the 2xx captures (not revisits) that the list does not exclude,
    // one document per URL + digest (a capture stored twice in one file is one document).
    const dups = new Set(readFileSync(join(dir, 'all.dup'), 'utf8').trim().split('\n'));
    const docs = new Set<string>();
    let captures = 0;
    let excluded = 0;
    for (const line of readFileSync(join(dir, 'all.cdx'), 'utf8').trim().split('\n')) {
      const f = line.split(' ');
      // (A record without a URL, `-` in CDX, is not a capture of a page.)
      if (!/^2\d\d$/.test(f[4]) || f[3] === 'warc/revisit' || f[2] === '-') continue;
      captures++;
      if (dups.has(`${f[0]} sha1:${f[5]} ${f[1]} ${f[10]}`)) {
        excluded++;
        continue;
      }
      let url = f[2];
      try {
        url = new URL(f[2]).href;
      } catch {
        /* kept as captured */
      }
      docs.add(`${url} ${f[5]}`);
    }
    expect(Number(/\bimported (\d+)/.exec(r.stderr)?.[1])).toBe(captures - excluded);
    expect(Number(/\bexcluded (\d+)/.exec(r.stderr)?.[1])).toBe(excluded);
    const content = segmentRecords(seg, 'content');
    expect(content.size).toBe(docs.size);
    expect(new Set([...content.keys()].map((k) => k.replace(' sha1:', ' ')))).toEqual(docs);
    // The capture index for replay, made from the import's own read: `nwax cdx`'s lines, sorted
    // as LC_ALL=C sort does, redirects, revisits and the excluded captures included.
    const sorted = await run('sort', [join(dir, 'all.cdx')], { env: { ...process.env, LC_ALL: 'C' } });
    expect(readFileSync(join(seg, 'captures.cdx'), 'utf8')).toBe(` CDX N b a m s k r M S V g\n${sorted.stdout}`);
  }, 120_000);
});

/** An encoder for a legacy charset, built from the decoder (so from the platform's own tables). */
function encoder(label: string): (text: string) => Buffer {
  // A fresh decoder per sequence, in streaming mode (Node 20's one-shot windows-1252 decode is
  // Latin-1: 0x80 would come out as U+0080, not the euro sign).
  const decode = (bytes: Uint8Array) => new TextDecoder(label).decode(bytes, { stream: true });
  const map = new Map<string, number[]>();
  for (let a = 0x80; a <= 0xff; a++) {
    const s = decode(Uint8Array.of(a));
    if (s.length === 1 && s !== '\ufffd' && !map.has(s)) map.set(s, [a]);
  }
  for (let a = 0x81; a <= 0xfe; a++) {
    for (let b = 0x40; b <= 0xfe; b++) {
      const s = decode(Uint8Array.of(a, b));
      if (s.length === 1 && s !== '\ufffd' && !map.has(s)) map.set(s, [a, b]);
    }
  }
  return (text) =>
    Buffer.from(
      [...text].flatMap((c) => {
        if (c.charCodeAt(0) < 0x80) return [c.charCodeAt(0)];
        const bytes = map.get(c);
        if (!bytes) throw new Error(`${label} cannot encode ${c}`);
        return bytes;
      }),
    );
}

/** A one-page PDF written by hand (objects, cross-reference table with real offsets, trailer). */
function makePdf(title: string, lines: string[]): Buffer {
  return pdfOf(title, `BT /F1 18 Tf 72 720 Td ${lines.map((l, i) => `${i ? '0 -24 Td ' : ''}(${l}) Tj`).join(' ')} ET`);
}

/**
 * A Japanese PDF as many are made: its text in Adobe's predefined UniJIS-UCS2-H character map
 * (UCS-2 codes to CIDs of Adobe-Japan1), the font not embedded, no ToUnicode map. Only the
 * CMaps turn its codes into text.
 */
function makeCjkPdf(title: string, text: string): Buffer {
  const codes = Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase();
  return pdfOf(title, `BT /F1 18 Tf 72 720 Td <${codes}> Tj ET`, [
    '<< /Type /Font /Subtype /Type0 /BaseFont /KozMinPr6N-Regular /Encoding /UniJIS-UCS2-H /DescendantFonts [7 0 R] >>',
    '<< /Type /Font /Subtype /CIDFontType0 /BaseFont /KozMinPr6N-Regular /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 6 >> /FontDescriptor 8 0 R /DW 1000 >>',
    '<< /Type /FontDescriptor /FontName /KozMinPr6N-Regular /Flags 4 /FontBBox [0 -141 1000 859] /ItalicAngle 0 /Ascent 859 /Descent -141 /CapHeight 700 /StemV 80 >>',
  ]);
}

/** A one-page PDF: its content stream, font F1 (Helvetica unless `font` gives object 5 and the rest). */
function pdfOf(title: string, content: string, font = ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>']): Buffer {
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    font[0],
    `<< /Title (${title}) >>`,
    ...font.slice(1),
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const JA = '日本語のウェブページです。東京の天気は晴れです。桜の季節がやってきました。私たちのサイトへようこそ。';
const ZH = '这是一个中文网页。北京的天气很好。我们欢迎您访问本网站，了解更多信息。';
const RU = 'Это русская страница. Погода в Москве сегодня хорошая. Добро пожаловать на наш сайт.';
const FR = 'Café crème brûlée, naïve façade: 20 € « entre guillemets »';
const PDF_JA = '日本語の報告書です。東京の天気は晴れ。';

describe('parsing during import', () => {
  it('decodes legacy charsets (header, meta, BOM, detected) and extracts title, text, links and robots', async () => {
    const dir = tempDir();
    const html = (head: string, body: string) => `<html><head>${head}</head><body>${body}</body></html>`;
    let n = 0;
    const rec = (url: string, body: Buffer | string, contentType: string, extra: Record<string, string> = {}) => ({
      type: 'response',
      url,
      date: '20200101000000',
      body,
      id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
      headers: { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)), ...extra },
    });
    const sjis = encoder('shift_jis');
    const records = [
      rec('http://ja.example/header', sjis(html('<title>日本語</title>', `<p>${JA}</p>`)), 'text/html; charset=Shift_JIS'),
      rec('http://ja.example/detected', sjis(html('', `<p>${JA}</p><p>${JA}</p>`)), 'text/html'),
      rec(
        'http://zh.example/meta',
        encoder('gbk')(html('<meta http-equiv="Content-Type" content="text/html; charset=gb2312"><title>中文</title>', `<p>${ZH}</p>`)),
        'text/html',
      ),
      rec('http://ru.example/detected', encoder('koi8-r')(html('', `<p>${RU}</p><p>${RU}</p>`)), 'text/html'),
      rec('http://fr.example/latin1', encoder('windows-1252')(html('<meta charset="iso-8859-1">', `<p>${FR}</p>`)), 'text/html'),
      rec('http://fr.example/bom', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(html('', `<p>${FR}</p>`))]), 'text/html'),
      rec('http://gz.example/page', gzipSync(page('Gzipped', 'This page was sent with Content-Encoding gzip.')), 'text/html; charset=utf-8', {
        'Content-Encoding': 'gzip',
      }),
      rec(
        'http://links.example/dir/page.html',
        html(
          '<base href="http://links.example/base/"><title>Links</title><script>var hidden = "script text";</script><style>p{}</style>',
          '<p>Visible <b>words</b></p><a href="rel.html">Relative <i>anchor</i></a> <a href="/abs">Root</a> <a href="mailto:x@y">mail</a> <a href="#top">top</a>',
        ),
        'text/html; charset=utf-8',
      ),
      rec(
        'http://robots.example/',
        html('<meta name="robots" content="noindex, nofollow"><title>Hidden</title>', '<a href="http://elsewhere.example/">x</a>'),
        'text/html',
      ),
      rec('http://plain.example/readme.txt', 'Plain text file.\nSecond line.', 'text/plain'),
      rec('http://pdf.example/report.pdf', makePdf('Gator report', ['The alligator report', 'Freshwater habitats of the south']), 'application/pdf'),
      rec('http://pdf.example/broken.pdf', Buffer.from('%PDF-1.4 this is not really a PDF'), 'application/pdf'),
      rec('http://pdf.example/ja.pdf', makeCjkPdf('Japanese report', PDF_JA), 'application/pdf'),
      rec('http://pdf.example/sent-gzipped.pdf', gzipSync(makePdf('Gzipped report', ['A report sent gzipped'])), 'application/pdf', {
        'Content-Encoding': 'gzip',
      }),
      rec('http://bin.example/image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]), 'image/png'),
    ];
    const warc = join(dir, 'charsets.warc.gz');
    await writeWarc(warc, records);
    writeFileSync(join(dir, 'manifest'), `${warc}\n`);
    const seg = join(dir, 'seg');
    const r = await nwax(['import', join(dir, 'manifest'), seg]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/broken\.pdf: parse failed \(PDF: .*\); imported without text/);
    expect(r.stderr).toMatch(/parse-failed 1\b/);
    const text = segmentRecords(seg, 'parse_text') as Map<string, string>;
    const data = segmentRecords(seg, 'parse_data') as Map<string, ParseData>;
    const parse = segmentRecords(seg, 'crawl_parse') as Map<string, { outlinks: unknown[] }>;
    const byUrl = (url: string) => {
      const key = [...text.keys()].find((k) => k.startsWith(`${url} sha1:`));
      expect(key, url).toBeDefined();
      return { text: text.get(key!)!, data: data.get(key!)!, crawl: parse.get(key!)! };
    };
    expect(byUrl('http://ja.example/header').text).toBe(JA);
    expect(byUrl('http://ja.example/header').data.title).toBe('日本語');
    expect(byUrl('http://ja.example/header').data.meta.charset).toBe('shift_jis');
    expect(byUrl('http://ja.example/detected').text).toBe(`${JA} ${JA}`);
    expect(byUrl('http://zh.example/meta').data.title).toBe('中文');
    expect(byUrl('http://zh.example/meta').text).toContain(ZH);
    expect(byUrl('http://ru.example/detected').text).toBe(`${RU} ${RU}`);
    expect(byUrl('http://ru.example/detected').data.meta.charset).toBe('koi8-r');
    expect(byUrl('http://fr.example/latin1').text).toBe(FR);
    expect(byUrl('http://fr.example/latin1').data.meta.charset).toBe('windows-1252');
    expect(byUrl('http://fr.example/bom').text).toBe(FR);
    expect(byUrl('http://gz.example/page').data.title).toBe('Gzipped');
    expect(byUrl('http://gz.example/page').text).toContain('sent with Content-Encoding gzip');
    const links = byUrl('http://links.example/dir/page.html');
    expect(links.data.title).toBe('Links');
    expect(links.text).toBe('Visible words Relative anchor Root mail top');
    expect(links.data.outlinks).toEqual([
      { url: 'http://links.example/base/rel.html', anchor: 'Relative anchor' },
      { url: 'http://links.example/abs', anchor: 'Root' },
    ]);
    expect(links.crawl.outlinks).toHaveLength(2);
    const robots = byUrl('http://robots.example/');
    expect(robots.data.noindex).toBe(true);
    expect(robots.data.outlinks).toHaveLength(1);
    expect(robots.crawl.outlinks).toEqual([]);
    expect(byUrl('http://plain.example/readme.txt').text).toBe('Plain text file. Second line.');
    const pdf = byUrl('http://pdf.example/report.pdf');
    expect(pdf.text).toBe('The alligator report Freshwater habitats of the south');
    expect(pdf.data.title).toBe('Gator report');
    expect(byUrl('http://pdf.example/broken.pdf').data.parse).toBe('failed');
    // Without pdfjs-dist's CMaps this PDF gives no text at all.
    expect(byUrl('http://pdf.example/ja.pdf').text).toBe(PDF_JA);
    expect(byUrl('http://pdf.example/sent-gzipped.pdf').text).toBe('A report sent gzipped');
    // Over the byte limit, a PDF (which must be read whole) is not parsed; it is still imported.
    const small = await nwax(['import', '-D', 'nwax.import.parse.bytes=300', join(dir, 'manifest'), join(dir, 'small')]);
    expect(small.stderr).toMatch(/report\.pdf: parse failed \(PDF larger than 300 bytes \(nwax\.import\.parse\.bytes\): not read\)/);
    // Another type: a metadata-only document (no text), findable by URL, type and date.
    const png = byUrl('http://bin.example/image.png');
    expect(png.text).toBe('');
    expect(png.data.parse).toBe('metadata');
  });

  it('reads PDFs in a thread of their own: a PDF past its heap or its time is imported without text, and the import goes on', async () => {
    const dir = tempDir();
    let n = 0;
    const rec = (url: string, body: Buffer | string, contentType: string) => ({
      type: 'response',
      url,
      date: '20200101000000',
      body,
      id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
      headers: { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)) },
    });
    // 100,000 lines on one page: pdfjs needs more than 32 MB of heap for their text items.
    const huge = pdfOf('Huge', `BT /F1 12 Tf 72 720 Td ${Array.from({ length: 100_000 }, (_, i) => `(w${i}) Tj 0 -1 Td`).join(' ')} ET`);
    const warc = join(dir, 'pdfs.warc.gz');
    await writeWarc(warc, [
      rec('http://pdf.example/huge.pdf', huge, 'application/pdf'),
      rec('http://pdf.example/small.pdf', makePdf('Small', ['The small report']), 'application/pdf'),
      rec('http://html.example/', page('After the PDFs', 'A page read after the PDFs.'), 'text/html; charset=utf-8'),
    ]);
    writeFileSync(join(dir, 'manifest'), `${warc}\n`);
    const textOf = (seg: string, url: string) =>
      [...(segmentRecords(seg, 'parse_text') as Map<string, string>)].find(([k]) => k.startsWith(`${url} sha1:`))?.[1];
    const heap = await nwax(['import', '-D', 'nwax.import.pdf.heap=32M', join(dir, 'manifest'), join(dir, 'heap')]);
    expect(heap.code, heap.stderr).toBe(0);
    expect(heap.stderr).toMatch(/huge\.pdf: parse failed \(PDF: needs more than 32 MB of heap \(nwax\.import\.pdf\.heap\)\); imported without text/);
    expect(heap.stderr).toMatch(/parse-failed 1\b/);
    expect(textOf(join(dir, 'heap'), 'http://pdf.example/huge.pdf')).toBe('');
    // The next PDF is read by a new thread.
    expect(textOf(join(dir, 'heap'), 'http://pdf.example/small.pdf')).toBe('The small report');
    expect(textOf(join(dir, 'heap'), 'http://html.example/')).toBe('After the PDFs A page read after the PDFs.');
    // No PDF is read within a millisecond: each is given up, the page after them read.
    const late = await nwax(['import', '-D', 'parser.timeout=0.001', join(dir, 'manifest'), join(dir, 'late')]);
    expect(late.code, late.stderr).toBe(0);
    expect(late.stderr).toMatch(/small\.pdf: parse failed \(PDF: not read within 0\.001 s \(parser\.timeout\)\); imported without text/);
    expect(late.stderr).toMatch(/parse-failed 2\b/);
    expect(textOf(join(dir, 'late'), 'http://pdf.example/small.pdf')).toBe('');
    expect(textOf(join(dir, 'late'), 'http://html.example/')).toBe('After the PDFs A page read after the PDFs.');
    // pdfjs-dist's legacy build puts core-js's push, JSON.parse and Function.prototype.toString
    // in place of the built-ins of the thread that loads it: not this one's.
    const { ContentParser } = await import('../dist/parse/parse.js');
    const builtins = () => [Array.prototype.push, JSON.parse, Function.prototype.toString, globalThis.MessageChannel];
    const before = builtins();
    const parser = new ContentParser({ url: 'http://pdf.example/here.pdf', mime: 'application/pdf', textLimit: 1000, byteLimit: 1 << 20, maxOutlinks: 10 });
    parser.write(makePdf('Here', ['Read for this thread']));
    expect((await parser.finish()).text).toBe('Read for this thread');
    builtins().forEach((f, i) => expect(f === before[i], String(f).slice(0, 60)).toBe(true));
  });
});

describe('the HTTP status filter', () => {
  it('honours every code, range and unknown in the list', () => {
    const f = parseStatusFilter('200-299, 304,404-404,unknown');
    expect([200, 250, 299, 304, 404, undefined].map(f)).toEqual([true, true, true, true, true, true]);
    expect([199, 300, 301, 403, 405, 500].map(f)).toEqual([false, false, false, false, false, false]);
    expect(parseStatusFilter('200-299')(undefined)).toBe(false);
    expect(() => parseStatusFilter('200-2x9')).toThrow(/"200-2x9" is not a status, a range N-M or "unknown"/);
  });

  it.skipIf(!HAVE_FIXTURES)('imports redirects and resource records when asked', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'manifest'), `${fixture('wget/crawl1.warc.gz')}\n${fixture('pywb/iana.warc.gz')}\n${fixture('warcio/example-resource.warc.gz')}\n`);
    const count = async (filter: string) => {
      const r = await nwax(['import', '-D', `nwax.filter.http.status=${filter}`, join(dir, 'manifest'), join(dir, `seg-${filter}`)]);
      expect(r.code, r.stderr).toBe(0);
      return [...(segmentRecords(join(dir, `seg-${filter}`), 'content') as Map<string, Content>).values()];
    };
    const ok = await count('200-299');
    expect(ok.every((c) => c.status !== null && c.status >= 200 && c.status < 300)).toBe(true);
    const redirects = await count('300-399,404');
    expect(redirects.length).toBeGreaterThan(0);
    expect(redirects.filter((c) => c.status === 302)).toHaveLength(4);
    expect(redirects.filter((c) => c.status === 404)).toHaveLength(1);
    expect(redirects).toHaveLength(5);
    const both = await count('200-299,300-399,404,unknown');
    expect(both.length).toBeGreaterThan(ok.length + redirects.length);
    expect(both.some((c) => c.status === null)).toBe(true);
  });
});

describe('exclusion lists', () => {
  it('reports bad lines by number, and gives the same segment whether held in memory or sorted to disk', async () => {
    const dir = tempDir();
    const warc = join(dir, 'example.warc.gz');
    await writeWarc(warc, dedupExampleRecords());
    await nwax(['cdx', '-o', join(dir, 'example.cdx'), warc]);
    const dup = (await nwax(['dedup-cdx', join(dir, 'example.cdx')])).stdout.trim().split('\n');
    writeFileSync(join(dir, 'bad.dup'), [dup[0], 'not a line', dup[1], 'org,example)/ sha1:AAAA 2007', ...dup.slice(2)].join('\n'));
    writeFileSync(join(dir, 'manifest'), `${warc}\n`);
    const mem = await nwax(['import', '-e', join(dir, 'bad.dup'), join(dir, 'manifest'), join(dir, 'mem')]);
    expect(mem.code, mem.stderr).toBe(3);
    expect(mem.stderr).toMatch(/bad\.dup: 5 captures to exclude \(surt keys\); 2 bad lines skipped/);
    expect(mem.stderr).toMatch(/bad\.dup: line 2: "a" is not a digest \(sha1:BASE32\); line skipped/);
    expect(mem.stderr).toMatch(/bad\.dup: line 4: "2007" is not a 14-digit date; line skipped/);
    expect(mem.stderr).toMatch(/excluded 5\b/);
    const disk = await nwax(['import', '-D', 'nwax.import.exclusions.memory=1', '-e', join(dir, 'bad.dup'), join(dir, 'manifest'), join(dir, 'disk')]);
    expect(disk.code, disk.stderr).toBe(3);
    expect(disk.stderr).toMatch(/sorted into a record file/);
    for (const part of ['content', 'parse_data', 'parse_text', 'crawl_fetch', 'crawl_parse']) {
      expect(segmentRecords(join(dir, 'disk'), part)).toEqual(segmentRecords(join(dir, 'mem'), part));
    }
    expect(readdirSync(dir).filter((f) => f.includes('.exclusions-'))).toEqual([]);
  });
});

describe('bad input', () => {
  it('reports a missing archive and a truncated one, imports the rest; --strict stops', async () => {
    const dir = tempDir();
    const good = join(dir, 'good.warc.gz');
    await writeWarc(good, dedupExampleRecords());
    // The cut archive holds other pages (their own documents), cut short in its sixth record.
    const other = join(dir, 'other.warc.gz');
    await writeWarc(
      other,
      dedupExampleRecords().map((r: { url: string }) => ({ ...r, url: r.url.replace('index', 'other') })),
    );
    const bytes = readFileSync(other);
    const cut = join(dir, 'cut.warc.gz');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.55)));
    writeFileSync(join(dir, 'manifest'), `# a missing archive, a cut one, a good one\n${join(dir, 'nope.warc.gz')}\n\n${cut} c1\n${good} c2\n`);
    const r = await nwax(['import', join(dir, 'manifest'), join(dir, 'seg')]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/nope\.warc\.gz: no such file.*archive skipped/);
    expect(r.stderr).toMatch(/cut\.warc\.gz: offset \d+: .*record skipped/);
    expect(r.stderr).toMatch(/archives failed 1\b/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    const content = [...(segmentRecords(join(dir, 'seg'), 'content') as Map<string, Content>).values()];
    // The good archive's five versions, and the versions read from the cut one before the cut.
    expect(content.filter((c) => c.collection === 'c2')).toHaveLength(5);
    expect(content.filter((c) => c.collection === 'c1').length).toBeGreaterThan(0);
    const strict = await nwax(['import', '--strict', join(dir, 'manifest'), join(dir, 'strict')]);
    expect(strict.code).not.toBe(0);
    expect(strict.code).not.toBe(70);
    expect(strict.stderr).toMatch(/nope\.warc\.gz: no such file/);
    expect(existsSync(join(dir, 'strict'))).toBe(false);
    const noManifest = await nwax(['import', join(dir, 'missing-manifest'), join(dir, 'x')]);
    expect(noManifest.code).toBe(1);
    expect(noManifest.stderr).toMatch(/missing-manifest: no such file/);
    writeFileSync(join(dir, 'empty-manifest'), '# nothing\n\n');
    const empty = await nwax(['import', join(dir, 'empty-manifest'), join(dir, 'y')]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/empty-manifest: lists no archive/);
    expect(existsSync(join(dir, 'y'))).toBe(false);
  });
});

describe('manifests', () => {
  it('take paths with spaces, quoted as in CSV or in a TSV line, beside NutchWAX\'s "path collection" lines', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'crawl 2007'));
    const names = ['crawl 2007/a "quoted" one.warc.gz', 'crawl 2007/tab line.warc.gz', 'plain.warc.gz'];
    for (const [i, n] of names.entries()) {
      await writeWarc(
        join(dir, n),
        dedupExampleRecords().map((r: { url: string }) => ({ ...r, url: r.url.replace('index', `page${i}`) })),
      );
    }
    writeFileSync(
      join(dir, 'manifest'),
      ['# one of each form', `"${join(dir, names[0]).replace(/"/g, '""')}"   quoted`, `${join(dir, names[1])}\ttsv`, `${join(dir, names[2])} plain`].join(
        '\n',
      ) + '\n',
    );
    const r = await nwax(['import', join(dir, 'manifest'), join(dir, 'seg')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/archives 3\b/);
    const content = [...(segmentRecords(join(dir, 'seg'), 'content') as Map<string, { collection: string }>).values()];
    for (const c of ['quoted', 'tsv', 'plain'])
      expect(
        content.filter((x) => x.collection === c),
        c,
      ).toHaveLength(5);
    // A quote left open: the line is named, nothing is imported.
    writeFileSync(join(dir, 'bad'), `${join(dir, names[2])} plain\n"${join(dir, names[1])} open\n`);
    const bad = await nwax(['import', join(dir, 'bad'), join(dir, 'bad-seg')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bad: line 2: not "path \[collection\]"/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'bad-seg'))).toBe(false);
  });
});

describe.skipIf(!HAVE_FIXTURES)('one archive, several map tasks', () => {
  it('cuts gzip archives at member starts and gives the segment of one task per archive, damaged archives included', async () => {
    const dir = tempDir();
    // ARC and WARC from four writers, a 1.9 MB page, and an archive cut short in a record.
    const cut = join(dir, 'cut.warc.gz');
    writeFileSync(cut, readFileSync(fixture('wget/crawl1.warc.gz')).subarray(0, 300_000));
    const archives = [
      'cdx-writer/15_digit_date.arc.gz',
      'webarchive-discovery/BL-20140325121225068-00000-32090~opera~8443.warc.gz',
      'webarchive-discovery/flashfrozen-jwat-recompressed.warc.gz',
      'cdx-writer/giant_html.warc.gz',
      'pywb/iana.warc.gz',
    ].map(fixture);
    writeFileSync(join(dir, 'manifest'), [...archives, cut].map((a, i) => `${a} c${i}`).join('\n') + '\n');
    const one = await nwaxAsync(['import', '-D', 'nwax.import.split.size=0', join(dir, 'manifest'), join(dir, 'one')]);
    // Into a segments folder that does not exist yet: the split plan is written beside the segment.
    const split = await nwaxAsync(['import', '-D', 'nwax.import.split.size=16K', join(dir, 'manifest'), join(dir, 'crawl', 'segments', 'split')]);
    expect(one.code, one.stderr).toBe(3);
    expect(split.code, split.stderr).toBe(3);
    expect(one.stderr).toMatch(/import: 6 map tasks/);
    expect(Number(/import: (\d+) map tasks/.exec(split.stderr)?.[1])).toBeGreaterThan(50);
    for (const c of ['records read', 'imported', 'read-error', 'archives', 'documents']) {
      expect(new RegExp(`${c} (\\d+)`).exec(split.stderr)?.[1], c).toBe(new RegExp(`${c} (\\d+)`).exec(one.stderr)?.[1]);
    }
    for (const d of ['content', 'parse_data', 'parse_text', 'crawl_fetch', 'crawl_parse']) {
      const a = segmentRecords(join(dir, 'one'), d);
      expect(a.size, d).toBeGreaterThan(100);
      expect(segmentRecords(join(dir, 'crawl', 'segments', 'split'), d), d).toEqual(a);
    }
    // The capture index the split tasks wrote is the one of whole archives, and `nwax cdx`'s.
    const cdx = await nwax(['cdx', '--sort', '-q', ...archives, cut]);
    expect(cdx.code).toBe(3);
    expect(readFileSync(join(dir, 'one', 'captures.cdx'), 'utf8')).toBe(cdx.stdout);
    expect(readFileSync(join(dir, 'crawl', 'segments', 'split', 'captures.cdx'), 'utf8')).toBe(cdx.stdout);
  }, 120_000);
});

describe.skipIf(!HAVE_FIXTURES)('the ranges of a large archive', () => {
  it('start at records, shrink toward the end of the job, and cover the archive once', async () => {
    const { planSplits } = await import('../src/segment/archive-splits.js');
    const archive = fixture('wget/crawl1.warc.gz');
    const size = readFileSync(archive).length;
    const entry = { location: archive, collection: 'c' };
    const ranges = (splits: { start: number; end?: number }[]) => splits.map((s) => (s.end ?? size) - s.start);
    // Alone in the job: from about a quarter of it (two threads) down to the least range.
    const alone = planSplits(entry, 1 << 20, 2);
    expect(alone.length).toBeGreaterThan(4);
    expect(alone[0].start).toBe(0);
    for (let i = 1; i < alone.length; i++) expect(alone[i].start).toBe(alone[i - 1].end);
    expect(alone[alone.length - 1].end).toBeUndefined();
    const lengths = ranges(alone);
    expect(lengths[0]).toBeLessThan(size / 3);
    expect(lengths[lengths.length - 2]).toBeLessThan(lengths[0] / 2);
    // Before other archives: ranges of the split size until the job's end comes near.
    const before = ranges(planSplits(entry, 1 << 20, 2, 1 << 30));
    expect(before.length).toBeLessThan(alone.length);
    for (const n of before.slice(0, -1)) expect(n).toBeGreaterThanOrEqual(1 << 20);
    // Each range starts at a gzip member that holds a record's first line.
    for (const s of alone) {
      const head = gunzipSync(readFileSync(archive).subarray(s.start, s.start + 4096), { finishFlush: constants.Z_SYNC_FLUSH });
      expect(head.subarray(0, 8).toString('latin1')).toMatch(/^WARC\/1\.[01]/);
    }
  });
});

describe('import on Hadoop', () => {
  it('prints a streaming command with one manifest line per map task', async () => {
    const r = await nwax(['import', '--engine', 'hadoop', '-D', 'nwax.filter.http.status=200-399', '/user/me/manifest', '/user/me/segments/20200101000000']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(
      /^hadoop jar \S+ -D mapreduce\.input\.lineinputformat\.linespermap=1 -D stream\.map\.input\.ignoreKey=true -D mapreduce\.job\.name=nwax-import .*-input \/user\/me\/manifest -inputformat org\.apache\.hadoop\.mapred\.lib\.NLineInputFormat -output \/user\/me\/segments\/20200101000000\.tmp-\d{14} -mapper 'nwax job import map -D nwax\.filter\.http\.status=200-399' -reducer 'nwax job import reduce -D nwax\.filter\.http\.status=200-399' -lazyOutput \\\n {2}&& .* hadoop fs -mv \/user\/me\/segments\/20200101000000\.tmp-\d{14} \/user\/me\/segments\/20200101000000 && hadoop fs -rm -r -f \/user\/me\/segments\/20200101000000\.old$/,
    );
  });
});
