/**
 * The head of a text read by key from a record file (RecordFileReader.stringHead, what a snippet
 * reads of parse_text): a longer head of the same text goes on inflating and decoding where the
 * shorter one stopped. Checked against the text itself on texts dense in what a cut can go
 * through (UTF-8 sequences of 2 to 4 bytes, escapes of 2 and 6 bytes, surrogate pairs), the
 * inflate's steps falling at every offset of them, and with other lookups in between (which
 * start their own inflate: the next head of the first text starts again).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordFileReader, RecordFileWriter } from '../src/mapreduce/record-file.js';
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
