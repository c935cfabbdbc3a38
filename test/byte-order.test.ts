import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { compareBytes } from '../src/mapreduce/byte-order.js';
import { LineArena } from '../src/mapreduce/line-arena.js';

/** The lines sorted as the engine sorts a run: as bytes in a line arena. */
function sortByteOrder(lines: string[]): string[] {
  const arena = new LineArena(1 << 24);
  for (const l of lines) arena.add(l);
  const { order } = arena.sorted();
  return Array.from(order, (i) => arena.line(i));
}

const cSort = (lines: string[]) =>
  spawnSync('sort', [], { input: `${lines.join('\n')}\n`, env: { ...process.env, LC_ALL: 'C' } })
    .stdout.toString()
    .split('\n')
    .slice(0, -1);

describe('byte-order sorting', () => {
  it('matches LC_ALL=C sort for first fields that end in spaces or tabs, prefixes and repeats', () => {
    const lines: string[] = [];
    for (let i = 0; i < 20000; i++) {
      const k = ['a', 'ab', 'a b', 'a\tb', 'abc', 'a!', 'ab ', 'a\u00e9', 'a\u{1F600}'][i % 9] + (i % 13);
      lines.push(i % 3 ? `${k}\t${i}` : `${k} ${i}`);
    }
    expect(sortByteOrder(lines.slice())).toEqual(cSort(lines));
  });

  it('compares as UTF-8 bytes across the surrogate range', () => {
    // U+FF21 (EF BC A1) sorts before U+1F600 (F0 9F 98 80) in UTF-8 bytes, after it in UTF-16 code units.
    expect(compareBytes('\uFF21', '\u{1F600}')).toBeLessThan(0);
    expect(compareBytes('\u{1F600}', '\uFF21')).toBeGreaterThan(0);
    expect(compareBytes('ab', 'abc')).toBeLessThan(0);
  });
});
