/**
 * UTF-8 pages read as bytes by the native extractor (parse.ts holds them raw; the addon decodes
 * them, native/utf8-decode.c): the decoding is TextDecoder's, streamed in any chunks, BOMs
 * included; and the parse is the one a build without the addon (NWAX_NATIVE=0: TextDecoder and
 * the JavaScript scanner) gives, on pages that cross every path: declared, sniffed and decided
 * encodings, BOMs where decoders start, cuts mid-character, pages past the bytes held raw,
 * pages handed back to the scanner, Content-Encoding.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ContentParser } from '../src/parse/parse.js';
import { HtmlExtractor } from '../src/parse/html.js';
import { nativeDecodeUtf8 } from '../src/parse/native-html.js';
import { ROOT, run, seededRandom, tempDir } from './helpers.js';
import { nativeWanted } from '../src/native/addon.js';

const built = nativeDecodeUtf8 !== undefined;
// (Under CI the addon is built; a run with NWAX_NATIVE leaving this kernel to JavaScript skips.)
if (!built && process.env.CI === 'true' && nativeWanted('html'))
  throw new Error('the native addon (build/Release/nwax_native.node) is not built: npm install runs node-gyp');

/** Pieces of byte soup: BOMs, two- to four-byte characters, surrogates and overlongs, lone continuation and lead bytes. */
const PIECES = [
  [0xef, 0xbb, 0xbf],
  [0xc3, 0xa9],
  [0xe2, 0x82, 0xac],
  [0xf0, 0x9f, 0x98, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80],
  [0xf8],
  [0xff],
  [0x80],
  [0xbf],
  [0x41],
  [0x3c, 0x61, 0x3e],
  [0xe1],
  [0xf0, 0x90],
  [0xc2],
];

function soup(random: () => number, pieces: number): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < pieces; i++) {
    const r = random();
    // A run of ASCII long enough for the decoder's sixteen-at-a-time path, at any alignment.
    if (r < 0.08) for (let k = 8 + Math.floor(random() * 40); k > 0; k--) bytes.push(0x20 + Math.floor(random() * 0x5f));
    else if (r < 0.3) bytes.push(Math.floor(random() * 256));
    else bytes.push(...PIECES[Math.floor(random() * PIECES.length)]);
  }
  return Buffer.from(bytes);
}

describe.skipIf(!built)('UTF-8 decoded in the addon', () => {
  it("is TextDecoder's, streamed in any chunks: maximal subparts, cut sequences, a BOM dropped where the stream starts", () => {
    const random = seededRandom(8);
    for (let t = 0; t < 20_000; t++) {
      const b = soup(random, Math.floor(random() * 30));
      const d = new TextDecoder('utf-8');
      let expected = '';
      for (let at = 0; at < b.length; ) {
        const n = 1 + Math.floor(random() * 5);
        expected += d.decode(b.subarray(at, at + n), { stream: true });
        at += n;
      }
      expected += d.decode();
      expect(nativeDecodeUtf8!(b, 0), b.toString('hex')).toBe(expected);
      expect(nativeDecodeUtf8!(b, -1), b.toString('hex')).toBe(new TextDecoder('utf-8', { ignoreBOM: true }).decode(b));
      // ASCII, then a decoder's stream from the first byte past it (an encoding decided there).
      const k = b.findIndex((x) => x > 0x7f);
      if (k > 0) expect(nativeDecodeUtf8!(b, k), b.toString('hex')).toBe(b.toString('latin1', 0, k) + new TextDecoder('utf-8').decode(b.subarray(k)));
    }
  });
});

interface Page {
  name: string;
  body: Buffer;
  contentType?: string;
  contentEncoding?: string;
  byteLimit?: number;
}

function pages(): Page[] {
  const random = seededRandom(21);
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const html = (s: string) => Buffer.from(s);
  const mixed = () =>
    Buffer.concat(Array.from({ length: 40 }, (_, i) => Buffer.concat([html(`<p>w${i} <a href="/l${i}?q=é">é${i} &amp; </a>`), soup(random, 6)])));
  const asciiHead = html(`<html><head><title>t</title><script>${'var x = 1;\n'.repeat(900)}</script></head><body>`);
  const body = html('<p>Grüße aus Köln, 日本語, 😀 &eacute;</p><a href="x.html" title="ü">ä</a>');
  return [
    { name: 'declared UTF-8', body: Buffer.concat([html('<title>Ünïcödé</title>'), body, mixed()]), contentType: 'text/html; charset=utf-8' },
    { name: 'declared, with a BOM and another', body: Buffer.concat([bom, bom, body]), contentType: 'text/html; charset=UTF-8' },
    { name: 'a BOM alone says UTF-8', body: Buffer.concat([bom, body, mixed()]) },
    { name: 'meta charset', body: Buffer.concat([html('<meta charset="utf-8">'), body]) },
    { name: 'sniffed in the head', body: Buffer.concat([body, mixed()]) },
    { name: 'an ASCII head, then UTF-8 decided', body: Buffer.concat([asciiHead, body, mixed()]) },
    // (In a link, where the text's squashing would not hide a U+FEFF left in.)
    { name: 'an ASCII head, then a BOM where the decided decoder starts', body: Buffer.concat([asciiHead, html('<a href="x'), bom, html('y.html">'), body]) },
    {
      name: 'an ASCII head, then windows-1252 decided',
      body: Buffer.concat([asciiHead, Buffer.from('<p>caf\xe9 na\xefve \x93quoted\x94 \x80</p>', 'latin1')]),
    },
    { name: 'all ASCII, undeclared', body: asciiHead },
    {
      name: 'cut mid-character by the byte limit',
      body: Buffer.concat([html('<p>'), Buffer.from('日本語'.repeat(50))]),
      contentType: 'text/html; charset=utf-8',
      byteLimit: 100,
    },
    {
      name: 'ill-formed bytes in text and attributes',
      body: Buffer.concat([html('<a href="/x'), Buffer.from([0xff, 0xc3]), html('">y'), Buffer.from([0xe2, 0x82]), html('</a>'), mixed()]),
      contentType: 'text/html; charset=utf-8',
    },
    { name: 'handed back to the scanner (plaintext)', body: Buffer.concat([body, html('<plaintext><p>é</p>')]), contentType: 'text/html; charset=utf-8' },
    {
      name: 'handed back, with a BOM where the decided decoder starts',
      body: Buffer.concat([asciiHead, html('<a href="x'), bom, html('y.html">'), body, html('<plaintext>é')]),
    },
    {
      name: 'past the bytes held raw',
      body: Buffer.concat([body, Buffer.from(`<p>${'Ωμέγα 😀 '.repeat(400_000)}</p>`), body]),
      contentType: 'text/html; charset=utf-8',
    },
    { name: 'an ASCII head past the bytes held raw, then UTF-8', body: Buffer.concat([html(`<p>${'ascii '.repeat(800_000)}</p>`), body]) },
    { name: 'gzip Content-Encoding', body: gzipSync(Buffer.concat([bom, body, mixed()])), contentEncoding: 'gzip' },
  ];
}

/** Each page parsed, fed in the chunk sizes given (a script the child process runs too). */
const PARSE_ALL = `
  export async function parseAll(ContentParser, pages, chunks) {
    const out = [];
    for (const [i, p] of pages.entries()) {
      const parser = new ContentParser({ url: 'http://example.org/a/b.html', mime: 'text/html', contentType: p.contentType, contentEncoding: p.contentEncoding, textLimit: 1 << 20, byteLimit: p.byteLimit ?? 1 << 30, maxOutlinks: -1 });
      const body = Buffer.from(p.body, 'base64');
      for (let at = 0, n = i; at < body.length; n++) {
        const size = chunks[n % chunks.length];
        parser.write(body.subarray(at, at + size));
        at += size;
      }
      out.push(await parser.finish());
    }
    return out;
  }`;

describe.skipIf(!built)('a UTF-8 page read as bytes', () => {
  it('gives the parse of TextDecoder and the JavaScript scanner (NWAX_NATIVE=0), in any chunks', async () => {
    expect(new HtmlExtractor({ url: 'http://example.org/', textLimit: 10, maxOutlinks: 1 }).takesUtf8).toBe(true);
    const dir = tempDir();
    const list = pages().map((p) => ({ ...p, body: p.body.toString('base64') }));
    const chunks = [1, 7, 4096, 65536, 3, 1 << 20];
    writeFileSync(join(dir, 'pages.json'), JSON.stringify({ list, chunks }));
    writeFileSync(join(dir, 'parse-all.mjs'), PARSE_ALL);
    writeFileSync(
      join(dir, 'reference.mjs'),
      `
      import { readFileSync } from 'node:fs';
      import { ContentParser } from ${JSON.stringify(join(ROOT, 'dist', 'parse', 'parse.js'))};
      import { parseAll } from './parse-all.mjs';
      const { list, chunks } = JSON.parse(readFileSync(${JSON.stringify(join(dir, 'pages.json'))}, 'utf8'));
      process.stdout.write(JSON.stringify(await parseAll(ContentParser, list, chunks)));`,
    );
    const ref = await run(process.execPath, [join(dir, 'reference.mjs')], { env: { ...process.env, NWAX_NATIVE: '0' } });
    expect(ref.code, ref.stderr).toBe(0);
    const expected = JSON.parse(ref.stdout) as unknown[];
    const { parseAll } = (await import(join(dir, 'parse-all.mjs'))) as {
      parseAll: (c: typeof ContentParser, l: unknown[], ch: number[]) => Promise<unknown[]>;
    };
    const got = await parseAll(ContentParser, list, chunks);
    list.forEach((p, i) => expect(got[i], p.name).toEqual(expected[i]));
    // The pages cross the paths they are named for.
    const charsets = got.map((g) => `${(g as { charset: string }).charset}/${(g as { charsetSource: string }).charsetSource}`);
    expect(charsets).toEqual(
      expect.arrayContaining(['utf-8/http', 'utf-8/bom', 'utf-8/meta', 'utf-8/detected', 'windows-1252/detected', 'windows-1252/default']),
    );
  }, 120_000);
});
