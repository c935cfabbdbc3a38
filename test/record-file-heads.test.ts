/**
 * The head of a text read by key from a record file (RecordFileReader.stringHead, what a snippet
 * reads of parse_text): a longer head of the same text goes on inflating and decoding where the
 * shorter one stopped. Checked against the text itself on texts dense in what a cut can go
 * through (UTF-8 sequences of 2 to 4 bytes, escapes of 2 and 6 bytes, surrogate pairs), the
 * inflate's steps falling at every offset of them, and with other lookups in between (which
 * start their own inflate: the next head of the first text starts again), one of them failing
 * on a part cut short.
 */
import { statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordFileReader, RecordFileWriter } from '../src/mapreduce/record-file.js';
import { BlockCache } from '../src/mapreduce/block-cache.js';
import { seededRandom, tempDir } from './helpers.js';

const PIECES = ['a', 'word ', 'é', '“q”', '\\', '"', '\n', '\t', '\u0001', '😀', '中文', 'Ω', '\u2028', ' '];

function text(rand: () => number, n: number): string {
  let s = '';
  while (s.length < n) s += PIECES[Math.floor(rand() * PIECES.length)];
  return s;
}

describe('stringHead', () => {
  it('goes on from a shorter head of the same text: the same characters as the text, wherever the cuts fall', () => {
    const dir = tempDir();
    const path = join(dir, 'part-00000.gz');
    const rand = seededRandom(49);
    const w = new RecordFileWriter(path, { blockSize: 256 << 10 });
    const texts = new Map<string, string>();
    // Texts of 20k to 120k characters, a few to a block, a shifted start each (the cuts fall elsewhere).
    for (let i = 0; i < 24; i++) {
      const key = `http://h.example/${String(i).padStart(3, '0')} sha1:X`;
      const t = 'x'.repeat(i) + text(rand, 20_000 + Math.floor(rand() * 100_000));
      texts.set(key, t);
      w.append(key, t);
    }
    w.close();
    const r = new RecordFileReader(path);
    const keys = [...texts.keys()];
    for (const [key, whole] of texts) {
      // Growing heads of one text, as a snippet asks (8k, 64k, the rest), and finer ones.
      for (const chars of [1, 100, 8192, 8193, 20_000, 65_536, 70_000, 200_256]) {
        const h = r.stringHead(key, chars)!;
        expect(whole.startsWith(h.text), `${key} ${chars}`).toBe(true);
        expect(h.text.length, `${key} ${chars}`).toBeGreaterThanOrEqual(Math.min(chars, whole.length));
        expect(h.whole, `${key} ${chars}`).toBe(h.text.length === whole.length);
      }
      // Another key's lookup between two heads of this one: the second starts again, the same.
      r.stringHead(key, 8192);
      r.stringHead(keys[(keys.indexOf(key) + 7) % keys.length], 8192);
      const again = r.stringHead(key, whole.length)!;
      expect(again.text).toBe(whole);
      expect(again.whole).toBe(true);
      // The whole value after a head of it.
      r.stringHead(key, 3000);
      expect(r.valueOf(key)).toBe(whole);
    }
  });
});

describe('stringHead after a failed lookup elsewhere', () => {
  it('starts again rather than going on with a block another lookup overwrote', () => {
    const dir = tempDir();
    const rand = seededRandom(7);
    const write = (name: string, texts: [string, string][]) => {
      const w = new RecordFileWriter(join(dir, name));
      for (const [k, t] of texts) w.append(k, t);
      w.close();
      return new RecordFileReader(join(dir, name));
    };
    const long = text(rand, 60_000);
    const a = write('a.gz', [['k', long]]);
    const other = write('b.gz', [['m', text(rand, 60_000)]]);
    // Cut short by a few bytes: its read overwrites nearly all the buffer the lookups share.
    truncateSync(join(dir, 'b.gz'), statSync(join(dir, 'b.gz')).size - 100);
    expect(a.stringHead('k', 100)!.text.length).toBeLessThan(long.length);
    expect(() => other.stringHead('m', 100)).toThrow(/cut short/);
    const whole = a.stringHead('k', long.length)!;
    expect(whole.text).toBe(long);
    expect(whole.whole).toBe(true);
  });
});

/** Sixty texts of 500 to 30k characters in 64 KiB blocks: a few to a block, found at every step of a member's inflate. */
function sixtyTexts(): { path: string; texts: Map<string, string> } {
  const path = join(tempDir(), 'part-00000.gz');
  const rand = seededRandom(11);
  const w = new RecordFileWriter(path, { blockSize: 64 << 10 });
  const texts = new Map<string, string>();
  for (let i = 0; i < 60; i++) {
    const key = `http://h.example/${String(i).padStart(3, '0')} sha1:Y`;
    const t = text(rand, 500 + Math.floor(rand() * 30_000));
    texts.set(key, t);
    w.append(key, t);
  }
  w.close();
  return { path, texts };
}

describe('heads of texts found in the last step of a member', () => {
  it('keep where their line starts and ends: the next head of the same text is the same text', () => {
    const { path, texts } = sixtyTexts();
    const r = new RecordFileReader(path);
    for (const [key, whole] of texts)
      for (const chars of [1, 100, 8192, 40_000]) {
        const h = r.stringHead(key, chars)!;
        expect(whole.startsWith(h.text), `${key} ${chars}`).toBe(true);
        expect(h.whole).toBe(h.text.length === whole.length);
      }
  });
});

describe('a block asked for again', () => {
  it('is kept inflated whole: the same heads and values as by prefix, missing keys included', () => {
    const { path, texts } = sixtyTexts();
    const keys = [...texts.keys()];
    // Lookups in an order that comes back to each block after others (as a searcher's hits do),
    // three rounds: the first inflates by prefix, the later ones read the kept bytes.
    const order = keys.map((_, i) => keys[(i * 17) % keys.length]);
    {
      const cache = new BlockCache(16 << 20);
      const r = new RecordFileReader(path, cache);
      expect(r.blockCount).toBeGreaterThan(5);
      for (let round = 0; round < 3; round++) {
        for (const key of order) {
          const whole = texts.get(key)!;
          for (const chars of [1, 100, 8192, 40_000]) {
            const h = r.stringHead(key, chars)!;
            expect(whole.startsWith(h.text), `${round} ${key} ${chars}`).toBe(true);
            expect(h.text.length).toBeGreaterThanOrEqual(Math.min(chars, whole.length));
            expect(h.whole).toBe(h.text.length === whole.length);
          }
          expect(r.valueOf(key)).toBe(whole);
        }
        expect(r.stringHead('http://h.example/0005 sha1:Y', 10)).toBeUndefined();
        expect(r.valueOf('http://h.example/999 sha1:Z')).toBeUndefined();
      }
    }
    // The kept bytes are the blocks' own: reading the part again without a cache agrees.
    const plain = new RecordFileReader(path);
    for (const key of keys) expect(plain.valueOf(key)).toBe(texts.get(key));
  });

  it('is kept only on its second asking, within the recent ones', () => {
    const cache = new BlockCache(1 << 20);
    expect(cache.secondTouch('1:0')).toBe(false);
    expect(cache.secondTouch('1:0')).toBe(true);
    expect(cache.secondTouch('1:0')).toBe(false);
    // Asked once long ago (past the recent window of 64 keys for a 1 MiB budget): a first asking again.
    cache.secondTouch('1:5');
    for (let i = 0; i < 64; i++) cache.secondTouch(`2:${i}`);
    expect(cache.secondTouch('1:5')).toBe(false);
  });
});
