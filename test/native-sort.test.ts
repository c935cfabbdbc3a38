/**
 * The native sort, gather and merge (native/*.c, issue 15) against the JavaScript ones and a
 * plain comparison sort: bytes across the whole range (0x00, tab, 0x7f, 0x80, 0xff), lines
 * that are prefixes of others, long shared prefixes, duplicates, empty lines, inputs sorted,
 * reversed and all equal, and buffers too small for a line. Under CI the addon must be built.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nativeSort } from '../dist/native/sort.js';
import { sortLineIndex } from '../dist/mapreduce/radix-sort.js';
import { LineArena } from '../dist/mapreduce/line-arena.js';
import { arenaChunks } from '../dist/mapreduce/run-writer.js';
import { ArenaLines, FileLines, mergeLines, mergeLinesJs } from '../dist/mapreduce/byte-merge.js';
import { runLocal } from '../dist/mapreduce/local-runner.js';
import { longSum } from '../dist/mapreduce/long-sum.js';
import type { Job } from '../dist/mapreduce/job.js';
import { RawJson } from '../dist/mapreduce/value-json.js';
import { nwax, seededRandom, tempDir } from './helpers.js';
import { nativeWanted } from '../src/native/addon.js';

const built = nativeSort !== undefined;
// (Under CI the addon is built; a run with NWAX_NATIVE leaving this kernel to JavaScript skips.)
if (!built && process.env.CI === 'true' && nativeWanted('sort'))
  throw new Error('the native addon (build/Release/nwax_native.node) is not built: npm install runs node-gyp');
if (!built) console.warn('native-sort.test: the native addon is not built; its tests are skipped');

/** Lines of random bytes over an alphabet that tells byte order from others, with shared prefixes and repeats. */
function awkwardLines(n: number, seed: number): Buffer[] {
  const rand = seededRandom(seed);
  const alphabet = [0x00, 0x01, 0x09, 0x20, 0x41, 0x61, 0x62, 0x7f, 0x80, 0xc3, 0xff];
  const prefixes = [Buffer.alloc(0), Buffer.from('com,example)/'), Buffer.alloc(150, 0x61), Buffer.from('h12,org,archive)/web/2026')];
  const lines: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0 && rand() < 0.1) {
      lines.push(lines[Math.floor(rand() * i)]);
      continue;
    }
    const tail = Buffer.alloc(Math.floor(rand() * rand() * 40));
    for (let j = 0; j < tail.length; j++) tail[j] = alphabet[Math.floor(rand() * alphabet.length)];
    lines.push(Buffer.concat([prefixes[Math.floor(rand() * prefixes.length)], tail]));
  }
  return lines;
}

function arenaOf(lines: Buffer[]): LineArena {
  const arena = new LineArena(Infinity);
  for (const l of lines) arena.addBytes(l, 0, l.length);
  return arena;
}

/** The chunks of a generator, copied as they come (each is valid until the next). */
function collect(chunks: Iterable<Buffer>): Buffer {
  const parts: Buffer[] = [];
  for (const c of chunks) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

const reference = (lines: Buffer[]): Buffer[] => [...lines].sort(Buffer.compare);
const joined = (lines: Buffer[]): Buffer => Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
const uniq = (sorted: Buffer[]): Buffer[] => sorted.filter((l, i) => i === 0 || !l.equals(sorted[i - 1]));

/** The arena's lines in `order`, as one byte string. */
function inOrder(arena: LineArena, order: Int32Array, from = 0, to = order.length): Buffer {
  return Buffer.concat([...order.subarray(from, to)].map((i) => arena.buf.subarray(arena.start[i], arena.start[i] + arena.len[i] + 1)));
}

describe.skipIf(!built)('the native sort', () => {
  it('orders lines as memcmp does, as the JavaScript sort does, over the whole byte range', () => {
    for (const seed of [1, 2, 3]) {
      const lines = awkwardLines(20000, seed);
      const arena = arenaOf(lines);
      const n = arena.count;
      const order = Int32Array.from({ length: n }, (_, i) => i);
      const js = order.slice();
      nativeSort!.sortLines(arena.buf, arena.start, arena.len, order, new Float64Array(n), 0, n);
      sortLineIndex(js, arena.buf, arena.start, arena.len, 0, n, new Float64Array(n));
      const expected = joined(reference(lines));
      expect(inOrder(arena, order).equals(expected)).toBe(true);
      expect(inOrder(arena, js).equals(expected)).toBe(true);
    }
  });

  it('sorts a sub-range only, and inputs sorted, reversed and all equal', () => {
    const lines = reference(awkwardLines(5000, 4));
    for (const input of [lines, [...lines].reverse(), Array.from({ length: 5000 }, () => Buffer.alloc(300, 0x62))]) {
      const arena = arenaOf(input);
      const order = Int32Array.from({ length: arena.count }, (_, i) => i);
      nativeSort!.sortLines(arena.buf, arena.start, arena.len, order, new Float64Array(arena.count), 1000, 4000);
      expect([...order.subarray(0, 1000)]).toEqual(Array.from({ length: 1000 }, (_, i) => i));
      expect([...order.subarray(4000)]).toEqual(Array.from({ length: 1000 }, (_, i) => 4000 + i));
      expect(inOrder(arena, order, 1000, 4000).equals(joined(reference(input.slice(1000, 4000))))).toBe(true);
    }
  });

  it('gathers lines into chunks, with and without unique, lines longer than the chunk included', () => {
    const lines = awkwardLines(3000, 5);
    lines.push(Buffer.alloc(500, 0x7a), Buffer.alloc(500, 0x7a));
    const arena = arenaOf(lines);
    const { order } = arena.sorted();
    for (const unique of [false, true]) {
      for (const size of [64, 1000, 1 << 20]) {
        const got = collect(arenaChunks(arena, order, 0, arena.count, unique, Buffer.allocUnsafe(size)));
        const sorted = reference(lines);
        expect(got.equals(joined(unique ? uniq(sorted) : sorted))).toBe(true);
      }
    }
  });
});

describe.skipIf(!built)('the native merge', () => {
  /** Run files of sorted lines; the last without a final newline, one empty. */
  function runs(dir: string, lines: Buffer[], k: number): string[] {
    const paths: string[] = [];
    for (let r = 0; r < k; r++) {
      const mine = reference(lines.filter((_, i) => i % k === r));
      const path = join(dir, `run-${r}`);
      const bytes = r === 2 ? Buffer.alloc(0) : joined(mine);
      writeFileSync(path, r === k - 1 ? bytes.subarray(0, Math.max(0, bytes.length - 1)) : bytes);
      paths.push(path);
    }
    return paths;
  }

  it('merges files and an arena as the JavaScript merge does: small reads, small chunks, unique', () => {
    const dir = tempDir();
    const lines = awkwardLines(20000, 6);
    lines.push(Buffer.alloc(2000, 0x79)); // longer than a 64-byte read and chunk
    const paths = runs(dir, lines, 7);
    const fileLines = paths.flatMap((p) => {
      const text = readFileSync(p);
      return text.length === 0
        ? []
        : (text.at(-1) === 0x0a ? text.subarray(0, -1) : text)
            .toString('latin1')
            .split('\n')
            .map((s) => Buffer.from(s, 'latin1'));
    });
    const extra = awkwardLines(3000, 7);
    const arena = arenaOf(extra);
    const { order } = arena.sorted();
    const all = reference([...fileLines, ...extra]);
    for (const unique of [false, true]) {
      for (const [read, chunk] of [
        [64, 64],
        [1000, 333],
        [256 << 10, 1 << 20],
      ]) {
        const cursors = () => [...paths.map((p) => new FileLines(p, 0, Infinity, read)), new ArenaLines(arena, order, 0, arena.count)];
        const native = collect(mergeLines(cursors(), unique, chunk));
        const js = collect(mergeLinesJs(cursors(), unique, chunk));
        const expected = joined(unique ? uniq(all) : all);
        expect(native.equals(expected)).toBe(true);
        expect(js.equals(expected)).toBe(true);
      }
    }
  });

  it('merges no cursors, one cursor, and cursors that are all empty', () => {
    const dir = tempDir();
    const empty = join(dir, 'empty');
    writeFileSync(empty, '');
    const one = join(dir, 'one');
    writeFileSync(one, 'a\nb\nb\nc');
    expect([...mergeLines([])]).toEqual([]);
    expect([...mergeLines([new FileLines(empty), new FileLines(empty)])]).toEqual([]);
    expect(collect(mergeLines([new FileLines(one, 0, Infinity, 16)], true, 4)).toString()).toBe('a\nb\nc\n');
  });
});

describe.skipIf(!built)('with and without the addon (NWAX_NATIVE=0)', () => {
  it('sort-cdx -u and cdx-url-count give the same bytes, and the job the same counters', async () => {
    const dir = tempDir();
    const rand = seededRandom(8);
    const input = join(dir, 'in.cdx');
    const lines = Array.from(
      { length: 40000 },
      (_, i) => `h${Math.floor(rand() * 50)},com,site)/p${Math.floor(rand() * 3000)}${i % 11 === 0 ? '\u00e9' : ''} 2026${i % 97} x`,
    );
    writeFileSync(input, `${lines.join('\n')}\n`);
    const outputs: Buffer[] = [];
    const counters: Record<string, number>[] = [];
    for (const native of ['1', '0']) {
      const sorted = join(dir, `sorted-${native}`);
      const r = await nwax(['sort-cdx', '-u', '--memory', '256K', '-o', sorted, input], { env: { NWAX_NATIVE: native } });
      expect(r.code, r.stderr).toBe(0);
      const counted = join(dir, `count-${native}`);
      const j = await nwax(['job', 'cdx-url-count', 'run', '--force', '--threads', '2', '--reduces', '2', '--memory', '1M', '-o', counted, input], {
        env: { NWAX_NATIVE: native },
      });
      expect(j.code, j.stderr).toBe(0);
      outputs.push(Buffer.concat([readFileSync(sorted), readFileSync(join(counted, 'part-00000.gz')), readFileSync(join(counted, 'part-00001.gz'))]));
      // The counters too: records batched through the addon spill where they did one by one.
      counters.push(
        Object.fromEntries(
          j.stderr
            .slice(j.stderr.indexOf(';') + 1)
            .trim()
            .split(', ')
            .map((c) => [c.replace(/ \d+$/, ''), Number(c.match(/\d+$/)?.[0])]),
        ),
      );
    }
    expect(outputs[0].equals(outputs[1])).toBe(true);
    expect(counters[0]['combine input groups']).toBeGreaterThan(0);
    expect(counters[0]).toEqual(counters[1]);
  });
});

describe.skipIf(!built)('dedup-cdx and revisits by the addon (native/cdx-keys.c: the keys, and the groups of the sorted keys)', () => {
  it('give the bytes, counts and reports of the JavaScript path on awkward CDX, through spills and keys longer than a run', async () => {
    const dir = tempDir();
    const rand = seededRandom(11);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
    // (AAAA and AAAB: groups told apart by their last byte.)
    const digests = ['AAAA', 'AAAB', 'BBBB', 'sha1:AAAA', 'SHA1:AAAB', 'sha1:', '-', 'sha1:-', 'Sha1:CCCC', 'sha1:-X'];
    const dates = ['20100101000000', '2010', '201001011200', '20100101000000', '201', '201001010000001', '2010-01-01', '20100101000000'];
    const keys = ['org,example)/', 'org,example)/a', '-', 'jp,example)/\u65e5\u672c', `org,long)/${'x'.repeat(50000)}`, 'org,example)/a b'];
    const lines = [' CDX N b a m s k r M S V g'];
    for (let i = 0; i < 30000; i++) {
      const r = rand();
      if (r < 0.005)
        lines.push(
          pick([
            '',
            '!comment',
            ' leading space',
            'org,x)/ 20100101000000 {"url": "http://x.org/"}',
            'org,x)/ 20100101000000 three fields',
            'org,x)/ 20100101000000 a b c d',
          ]),
        );
      else {
        const key = rand() < 0.002 ? keys[4] : pick(keys.slice(0, 4)) + (rand() < 0.5 ? String(Math.floor(rand() * 50)) : '');
        const mime = rand() < 0.3 ? 'warc/revisit' : pick(['text/html', 'warc/revisitX', '-']);
        const file = rand() < 0.1 ? '-' : pick(['a.warc.gz', 'b.warc.gz', 'c']);
        const line = [key, pick(dates), 'http://x/', mime, '200', pick(digests), '-', '-', '1', '0', file].join(' ');
        lines.push(rand() < 0.05 ? `${line}\r` : line);
      }
    }
    const input = join(dir, 'awkward.cdx');
    writeFileSync(input, `${lines.join('\n')}\n`);
    for (const command of ['dedup-cdx', 'revisits']) {
      const runs = [];
      for (const native of ['1', '0']) {
        const r = await nwax([command, '--memory', '64K', input], { env: { NWAX_NATIVE: native } });
        runs.push({ code: r.code, stdout: r.stdout, stderr: r.stderr.replace(/in [\d.]+ s/g, 'in T s') });
      }
      expect(runs[0].stdout.split('\n').length, command).toBeGreaterThan(1000);
      expect(runs[0].stderr).toMatch(/no digest \d+, not CDX \d+/);
      expect(runs[0], command).toEqual(runs[1]);
    }
  });
});

describe.skipIf(!built)('the native sum', () => {
  it('writes the parts the Grouper writes with longSum: fractions, exponents, unsafe and infinite sums, long and non-ASCII keys, small blocks', async () => {
    const dir = tempDir();
    const rand = seededRandom(9);
    const values = [
      '1',
      '2',
      '-7',
      '0',
      '-0',
      '0.5',
      '1e3',
      '-2.5E-1',
      '123456789012345',
      '9007199254740993',
      '1234567890123456789',
      'null',
      '"7"',
      'true',
      '[1]',
      '1e308',
    ];
    const keys = [
      'a',
      'b\u00e9',
      'c\u{1F600}',
      'x'.repeat(1500),
      'y'.repeat(5000),
      ...Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? `\u{1F600}${i}` : `k${i}`)),
    ];
    const lines: string[] = [];
    // Most groups sum integers only (the addon writes them); the rest go back to JavaScript.
    const value = () => (rand() < 0.98 ? String(Math.floor(rand() * 200) - 20) : values[Math.floor(rand() * values.length)]);
    for (let i = 0; i < 20000; i++) lines.push(`${keys[Math.floor(rand() * keys.length)]}\t${value()}`);
    const input = join(dir, 'in.tsv');
    writeFileSync(input, `${lines.join('\n')}\n`);
    const map: Job['map'] = (_key, value, emit) => {
      const line = value as string;
      const tab = line.indexOf('\t');
      emit(line.slice(0, tab), new RawJson(line.slice(tab + 1)));
    };
    const native: Job = { name: 'sum-native', description: '', input: 'lines', map, reduce: longSum };
    const grouper: Job = { name: 'sum-grouper', description: '', input: 'lines', map, reduce: (k, vs, emit) => longSum(k, vs, emit) };
    const parts: Buffer[] = [];
    const counters: Record<string, number>[] = [];
    for (const job of [native, grouper]) {
      const out = join(dir, job.name);
      const r = await runLocal(job, { inputs: [input], output: out, numReduces: 2, sortMemory: 64 << 10, recordFile: { blockSize: 256 } });
      counters.push(r.counters);
      parts.push(Buffer.concat(['part-00000.gz', '.part-00000.gz.idx', 'part-00001.gz', '.part-00001.gz.idx'].map((f) => readFileSync(join(out, f)))));
    }
    expect(parts[0].equals(parts[1])).toBe(true);
    expect(counters[0]['reduce input groups']).toBe(counters[1]['reduce input groups']);
    expect(counters[0]['reduce output records']).toBe(counters[1]['reduce output records']);
  });
});
