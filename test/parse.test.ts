/**
 * The parse of a payload depends on its bytes, never on how they came in chunks: an archive
 * read on a loaded machine (or by a streaming map that waits for Hadoop) gets larger chunks
 * than one read at leisure, and both engines must give the same segment.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { ContentParser, type Parse } from '../src/parse/parse.js';

const ascii = (n: number) => `<script>${'var x = 1; // markup and scripts first\n'.repeat(Math.ceil(n / 39)).slice(0, n)}</script>`;
const cp1251 = (s: string) => spawnSync('iconv', ['-f', 'UTF-8', '-t', 'WINDOWS-1251'], { input: s }).stdout;

const pages: [string, Buffer][] = [
  // No charset anywhere; 12 KB of ASCII, then Russian in windows-1251 (decided past the ASCII head).
  [
    'undeclared windows-1251 past the head',
    Buffer.concat([
      Buffer.from(`<html><head><title>t</title>${ascii(12000)}</head><body><p>`),
      cp1251('Исходный текст страницы, сохранённый в архиве. '.repeat(2000)),
      Buffer.from('</p></body></html>'),
    ]),
  ],
  // A meta charset just past the first 8 KiB.
  [
    'meta charset past 8 KiB',
    Buffer.from(
      `<html><head>${ascii(9000)}<meta charset="utf-8"><title>Ünïcödé</title></head><body>${'Grüße aus Köln, café au lait. '.repeat(3000)}</body></html>`,
    ),
  ],
  // UTF-8 undeclared, a few non-ASCII bytes late in a long page.
  ['undeclared UTF-8, late and sparse', Buffer.from(`<html><body>${'plain words '.repeat(9000)}naïve façade ${'more words '.repeat(9000)}</body></html>`)],
];

async function parse(bytes: Buffer, chunk: (i: number) => number): Promise<Parse> {
  const p = new ContentParser({
    url: 'http://example.org/',
    mime: 'text/html',
    contentType: 'text/html',
    textLimit: 100_000,
    byteLimit: 10 << 20,
    maxOutlinks: 100,
  });
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = Math.max(1, chunk(i));
    p.write(bytes.subarray(at, at + n));
    at += n;
  }
  return p.finish();
}

describe('a payload parsed in chunks', () => {
  it.each(pages)('%s: the same parse for every way of cutting it', async (_name, bytes) => {
    const whole = await parse(bytes, () => bytes.length);
    expect(whole.status).toBe('success');
    expect(whole.text.length).toBeGreaterThan(1000);
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 70000;
    for (const cut of [() => 1, () => 4093, () => 8192, () => 65536, random]) {
      const got = await parse(bytes, cut);
      expect({ text: got.text, title: got.title, charset: got.charset }).toEqual({ text: whole.text, title: whole.title, charset: whole.charset });
    }
  });
});
