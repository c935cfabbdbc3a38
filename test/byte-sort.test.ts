/**
 * The engine's sort over bytes (issue 15): line arenas, the radix sort over UTF-8, runs merged
 * as bytes by a tournament of losers, and a combiner that passes single keys on undecoded.
 * Every check is against GNU sort (`LC_ALL=C`) or against the same job without the shortcut.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Job } from '../src/mapreduce/job.js';
// The built modules (npm test builds first): the sort starts its spill worker from dist.
import { externalSort } from '../dist/mapreduce/external-sort.js';
import { LineArena } from '../dist/mapreduce/line-arena.js';
import { writeRun } from '../dist/mapreduce/run-writer.js';
import { FileLines, mergeLines } from '../dist/mapreduce/byte-merge.js';
import { runLocal } from '../dist/mapreduce/local-runner.js';
import { nwax, partRecords, tempDir } from './helpers.js';

const gnuSort = (input: Buffer | string, args: string[] = []): Buffer =>
  spawnSync('sort', args, { input, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 1 << 28 }).stdout;

/** Lines that tell byte order from other orders: UTF-8 across the surrogate range, Latin-1
 * letters, tabs and spaces as separators, prefixes, repeats, empty lines, a CR. */
function awkwardLines(n: number, seed = 1): string[] {
  const parts = ['a', 'ab', 'a b', 'a\tb', 'abc', 'a!', 'ab ', 'a\u00e9', 'a\u{1F600}', 'a\uFF21', 'A', '', 'a\r', 'z\u0100', '\u00ff'];
  const lines: string[] = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    lines.push(parts[x % parts.length] + (x % 7 === 0 ? '' : String(x % 101)));
  }
  return lines;
}

/** Where two byte strings first differ, or -1 (vitest's deep equality walks a Buffer element by element: seconds on megabytes). */
function firstDifference(a: Buffer | string, b: Buffer): number {
  const x = Buffer.from(a);
  if (x.equals(b)) return -1;
  let i = 0;
  while (i < x.length && i < b.length && x[i] === b[i]) i++;
  return i;
}

async function sortAll(lines: string[], memory: number, unique = false): Promise<string> {
  const batches = async function* () {
    for (let i = 0; i < lines.length; i += 999) yield lines.slice(i, i + 999);
  };
  const out: string[] = [];
  for await (const b of externalSort(batches(), { memory, unique, tmpDir: tempDir() })) out.push(...b);
  return out.length ? `${out.join('\n')}\n` : '';
}

describe('the external sort over bytes', () => {
  const lines = awkwardLines(30000);
  const text = `${lines.join('\n')}\n`;

  it("gives LC_ALL=C sort's bytes in memory, with many spills, and with -u", async () => {
    expect(firstDifference(await sortAll(lines, 256 << 20), gnuSort(text))).toBe(-1);
    // 64 KB runs: about 20 spills, merged by the tournament.
    expect(firstDifference(await sortAll(lines, 64 << 10), gnuSort(text))).toBe(-1);
    expect(firstDifference(await sortAll(lines, 64 << 10, true), gnuSort(text, ['-u']))).toBe(-1);
  });

  it('sorts long lines that agree far into their length (repeats, prefixes, tails that differ late) as sort does', async () => {
    // Captures of one URL repeated, as a CDX made of many copies of a crawl: ranges that agree
    // for hundreds of bytes, where the sort jumps over the shared prefix and compares tails by memcmp.
    const stem = 'com,example)/a/long/path/shared/by/every/line?query=1 20240101000000 http://example.com/a/long/path';
    const file = ` ${'crawl-2024/'.repeat(8)}f.warc`;
    const tails = [
      '',
      ` text/html 200 AAAA - - 1000 0${file}.gz`,
      ` text/html 200 AAAA - - 1000 0${file}.gz`,
      ` text/html 200 AAAB - - 1000 0${file}.gz`,
      ` text/html 200 AAAA - - 1000 0${file}.gz\u00e9`,
      ` text/html 200 AAAA - - 1000 0${file}`,
      ` text/html 200 AAAA - - 1000 0${file}.gz\t`,
      ` text/html 200 AAAA - - 1000 0${file}.gy`,
      'x'.repeat(300),
    ];
    const long: string[] = [];
    let x = 7;
    for (let i = 0; i < 20000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      long.push(`${stem}${x % 3 === 0 ? '' : String(x % 2000)}${tails[(x >> 4) % tails.length]}`);
    }
    const longText = `${long.join('\n')}\n`;
    expect(firstDifference(await sortAll(long, 256 << 20), gnuSort(longText))).toBe(-1);
    expect(firstDifference(await sortAll(long, 256 << 10, true), gnuSort(longText, ['-u']))).toBe(-1);
  });

  it('sorts nothing into nothing, and a lone line as itself', async () => {
    expect(await sortAll([], 1 << 20)).toBe('');
    expect(await sortAll(['\u00e9'], 1 << 20)).toBe('\u00e9\n');
  });

  it("keeps lines longer than a merge's read buffer whole (3 MB lines through 1 MiB reads)", async () => {
    const big = ['b', 'a', 'c'].map((c, i) => c.repeat(3_000_000 + i));
    const mixed = [...big, 'b', 'bb', 'a\u00e9'];
    // A budget smaller than a line: each line is a run of its own.
    const sorted = await sortAll(mixed, 1 << 20);
    expect(firstDifference(sorted, gnuSort(`${mixed.join('\n')}\n`))).toBe(-1);
  });

  it('merges run files whose last line has no newline, and reads them as sort does', () => {
    const dir = tempDir();
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    writeFileSync(a, 'a\nc\ne');
    writeFileSync(b, 'b\nd\nf\n');
    const out = [...mergeLines([new FileLines(a), new FileLines(b)])].map((c) => c.toString()).join('');
    expect(out).toBe('a\nb\nc\nd\ne\nf\n');
  });

  it("sort-cdx of a file with a final line without newline, duplicates and non-ASCII is sort's output", async () => {
    const dir = tempDir();
    const f = join(dir, 'in.txt');
    writeFileSync(f, `${awkwardLines(5000, 7).filter(Boolean).join('\n')}`);
    const r = await nwax(['sort-cdx', '--memory', '16K', f]);
    expect(r.code, r.stderr).toBe(0);
    expect(firstDifference(r.stdout, gnuSort(readFileSync(f)))).toBe(-1);
  });

  it("sort-cdx merges on both cores (passes side by side, the final merge cut in two) with sort's output, with and without -u", async () => {
    // 24 MB through 1 MB of memory: dozens of runs merged two passes at a time, then a final
    // merge over 16 MB cut at a splitting line, the half above it merged by the worker.
    const dir = tempDir();
    const f = join(dir, 'big.txt');
    const words = awkwardLines(2000, 3);
    const pad = 'p'.repeat(90);
    const big: string[] = [];
    let x = 11;
    for (let i = 0; i < 200000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      big.push(`${words[x % words.length]} ${pad}${x % 50000}`);
    }
    writeFileSync(f, `${big.join('\n')}\n`);
    const expected = gnuSort(readFileSync(f));
    const out = join(dir, 'out.txt');
    let r = await nwax(['sort-cdx', '--memory', '1M', '-o', out, f]);
    expect(r.code, r.stderr).toBe(0);
    expect(firstDifference(readFileSync(out), expected)).toBe(-1);
    r = await nwax(['sort-cdx', '--memory', '1M', '-u', '-o', out, f]);
    expect(r.code, r.stderr).toBe(0);
    expect(firstDifference(readFileSync(out), gnuSort(readFileSync(f), ['-u']))).toBe(-1);
    // The upper half is written in its place in an output file, after a legend kept on top;
    // to stdout it goes through a file of its own, as before.
    const legend = ' CDX N b a m s k r M S V g\n';
    const withLegend = join(dir, 'legend.cdx');
    writeFileSync(withLegend, `${legend}${big.join('\n')}\n`);
    r = await nwax(['sort-cdx', '--memory', '1M', '-o', out, withLegend]);
    expect(r.code, r.stderr).toBe(0);
    expect(firstDifference(readFileSync(out), Buffer.concat([Buffer.from(legend), expected]))).toBe(-1);
    r = await nwax(['sort-cdx', '--memory', '1M', f]);
    expect(r.code, r.stderr).toBe(0);
    expect(firstDifference(r.stdout, expected)).toBe(-1);
  });

  it("writes an arena's run in order, and unique when asked", () => {
    const arena = new LineArena(1 << 20);
    for (const l of ['b', 'a\u00e9', 'a', 'b', '']) arena.add(l);
    const dir = tempDir();
    writeRun(arena, join(dir, 'run'), true);
    expect(readFileSync(join(dir, 'run'), 'utf8')).toBe('\na\na\u00e9\nb\n');
  });
});

describe('a combiner over a spill', () => {
  // A count whose combiner also emits a tally under another key after each group: its output
  // is out of order, so the run must be sorted again; the reduce leaves the tally out.
  const job = (combine: boolean): Job => ({
    name: 'count-test',
    description: 'test',
    input: 'lines',
    map(_k, v, emit) {
      if (v) emit(String(v).toLowerCase(), 1);
    },
    ...(combine
      ? {
          combine(key: string, values: unknown[], emit: (k: string, v: unknown) => void) {
            const sum = (values as number[]).reduce((a, b) => a + b, 0);
            emit(key, sum);
            emit('!tally', sum);
          },
        }
      : {}),
    reduce(key, values, emit) {
      if (key !== '!tally')
        emit(
          key,
          (values as number[]).reduce((a, b) => a + b, 0),
        );
    },
  });

  it('gives the same output with or without it, single keys passed on undecoded, output out of order sorted again', async () => {
    const dir = tempDir();
    const input = join(dir, 'words.txt');
    const words = awkwardLines(20000, 3).filter((w) => w && !w.includes('\t'));
    writeFileSync(input, `${words.join('\n')}\n`);
    const run = async (combine: boolean, memory: number) => {
      const out = join(dir, `out-${combine}-${memory}`);
      await runLocal(job(combine), { inputs: [input], output: out, numReduces: 2, sortMemory: memory, tmpDir: dir });
      return [0, 1].flatMap((p) => partRecords(join(out, `part-0000${p}.gz`)));
    };
    const plain = await run(false, 1 << 20);
    // Several spills (64 KB) with the combiner: repeated keys combined, the tallies sorted in.
    expect(await run(true, 64 << 10)).toEqual(plain);
    expect(await run(true, 1 << 20)).toEqual(plain);
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w.toLowerCase(), (counts.get(w.toLowerCase()) ?? 0) + 1);
    expect(new Map(plain as [string, number][])).toEqual(counts);
  });
});
