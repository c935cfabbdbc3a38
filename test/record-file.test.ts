import { describe, expect, it } from 'vitest';
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordFileReader, RecordFileWriter } from '../src/mapreduce/record-file.js';
import { lock, parts, partName, recover, writeDataset } from '../src/mapreduce/dataset.js';
import { gzipBlock } from '../src/mapreduce/block-gzip.js';
import { seededRandom, tempDir } from './helpers.js';

const cSort = (keys: string[]) =>
  spawnSync('sort', [], { input: keys.join('\n') + '\n', env: { ...process.env, LC_ALL: 'C' } })
    .stdout.toString()
    .split('\n')
    .filter(Boolean);

describe('sorted record files', () => {
  const dir = tempDir();
  // Keys of real shape with non-ASCII ones, in LC_ALL=C order, some repeated across blocks.
  const base = Array.from({ length: 5000 }, (_, i) => `org,example)/page/${i}?q=${'é✓𝄞'[i % 3]}`);
  const keys = cSort([...base, ...Array.from({ length: 300 }, () => 'org,example)/dup')]);
  const path = join(dir, 'part-00000');
  const w = new RecordFileWriter(path, { blockSize: 2048 });
  keys.forEach((k, i) => w.append(k, { n: i, k }));
  w.close();
  const r = new RecordFileReader(path);

  it('is plain text after zcat, in key order', () => {
    const text = spawnSync('zcat', [path]).stdout.toString('utf8');
    const lines = text.split('\n').filter(Boolean);
    expect(lines.map((l) => l.split('\t')[0])).toEqual(keys);
    expect(JSON.parse(lines[0].split('\t')[1])).toEqual({ n: 0, k: keys[0] });
    expect(r.blockCount).toBeGreaterThan(50);
  });

  it('finds values by key, including a key repeated across blocks', () => {
    for (const i of [0, 17, 2500, keys.length - 1]) {
      expect(r.get(keys[i])).toContainEqual({ n: i, k: keys[i] });
    }
    expect(r.get('org,example)/dup')).toHaveLength(300);
    expect(r.get('org,example)/missing')).toEqual([]);
    expect(r.get('a')).toEqual([]);
    expect(r.get('zzz')).toEqual([]);
  });

  it('gives the value of a key stored once from the head of its block, as get() gives it; none for a key not there', () => {
    // (Well-formed keys: a lone surrogate of the keys above is written as U+FFFD.)
    const wellFormed = (k: string) => Buffer.from(k).toString() === k;
    const once = base.filter((k, i) => (i % 7 === 0 || i < 40) && wellFormed(k));
    for (const k of once) expect(r.valueOf(k), k).toEqual(r.get(k)[0]);
    // Keys that start a block (matched where no newline comes before them), and keys between, before and after all.
    const firsts = keys.filter((k, i) => i > 0 && keys[i - 1] !== k && keys[i + 1] !== k && wellFormed(k)).slice(0, 400);
    for (const k of firsts) expect(r.valueOf(k)).toEqual(r.get(k)[0]);
    for (const k of ['a', 'org,example)/page/1?q=', 'org,example)/page/10?q=é ', 'zzz']) expect(r.valueOf(k), k).toBeUndefined();
    // A value across the whole of a block larger than one inflation step.
    const big = join(dir, 'part-00009');
    const wb = new RecordFileWriter(big, { blockSize: 1 << 20 });
    const long = 'é'.repeat(300_000);
    wb.append('a', 'x');
    wb.append('b', long);
    wb.append('c', 'y');
    wb.close();
    const rb = new RecordFileReader(big);
    expect(rb.valueOf('b')).toBe(long);
    expect(rb.valueOf('c')).toBe('y');
    expect(rb.valueOf('a')).toBe('x');
  });

  it('scans ranges and prefixes in order', () => {
    const pre = [...r.prefix('org,example)/page/12')].map((x) => x.key);
    expect(pre).toEqual(keys.filter((k) => k.startsWith('org,example)/page/12')));
    const mid = [...r.range(keys[400], keys[900])].map((x) => x.key);
    expect(mid).toEqual(keys.slice(400, 900));
    expect([...r.range(keys[100], keys[100])]).toEqual([]);
    expect([...r.entries()]).toHaveLength(keys.length);
  });

  it('rejects keys out of order and keys with tabs, naming the file', () => {
    const w2 = new RecordFileWriter(join(dir, 'bad'));
    w2.append('b', 1);
    expect(() => w2.append('a', 2)).toThrow(/bad: key "a" after "b": records must be appended in key order/);
    expect(() => w2.append('c\td', 3)).toThrow(/holds a tab or newline/);
    w2.close();
    expect(() => new RecordFileReader(join(dir, 'nope'))).toThrow(/nope: no such part/);
  });
});

describe('block members from a reused gzip engine', () => {
  it("are gzipSync's bytes, member after member, at every level: empty, tiny, incompressible, repetitive and large blocks", async () => {
    const { gzipSync } = await import('node:zlib');
    const random = seededRandom(5);
    const noise = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
    const blocks = [
      Buffer.alloc(0),
      Buffer.from('a'),
      noise(70_000),
      Buffer.from('abc'.repeat(30_000)),
      noise(300),
      Buffer.from('key\t{"v":"w"}\n'.repeat(20_000)),
    ];
    for (let round = 0; round < 2; round++) {
      for (const level of [1, 3, 6, 9]) {
        for (const b of blocks) expect(Buffer.from(gzipBlock(b, level)).equals(gzipSync(b, { level })), `level ${level}, ${b.length} bytes`).toBe(true);
      }
    }
    // One engine made them all (its output buffer, reused), not gzipSync's fallback.
    expect(gzipBlock(blocks[3], 3).buffer).toBe(gzipBlock(blocks[5], 3).buffer);
  });
});

describe('datasets', () => {
  const writeParts = (n: number, tag: string) => async (tmp: string) => {
    for (let p = 0; p < n; p++) {
      const w = new RecordFileWriter(join(tmp, partName(p)));
      w.append(`key-${p}`, tag);
      w.close();
    }
  };

  it('replaces a dataset only when the new version is complete', async () => {
    const root = tempDir();
    const ds = join(root, 'crawldb');
    await writeDataset(ds, writeParts(2, 'v1'));
    expect(parts(ds).map((p) => p.slice(-10))).toEqual(['part-00000', 'part-00001']);
    await expect(
      writeDataset(ds, async (tmp) => {
        await writeParts(3, 'v2')(tmp);
        throw new Error('the job failed half way');
      }),
    ).rejects.toThrow(/half way/);
    expect(new RecordFileReader(parts(ds)[0]).get('key-0')).toEqual(['v1']);
    expect(readdirSync(root).sort()).toEqual(['crawldb']);
    await writeDataset(ds, writeParts(1, 'v3'));
    expect(parts(ds)).toHaveLength(1);
    expect(new RecordFileReader(parts(ds)[0]).get('key-0')).toEqual(['v3']);
  });

  it('keeps a second job off a locked dataset; a lock whose holder is gone is taken over with a warning', () => {
    const root = tempDir();
    const ds = join(root, 'linkdb');
    const unlock = lock(ds);
    expect(() => lock(ds)).toThrow(/linkdb is locked .*held by running process/);
    unlock();
    // A lock of an older nwax (pid alone) whose process is gone.
    writeFileSync(`${ds}.locked`, '999999999\n');
    const warnings: string[] = [];
    lock(ds, false, (m) => warnings.push(m))();
    expect(warnings).toEqual([expect.stringMatching(/linkdb: took over the lock left by process 999999999, which is gone/)]);
    expect(existsSync(`${ds}.locked`)).toBe(false);
    // A holder on another host: this one cannot tell whether it runs, so only --force takes it.
    writeFileSync(`${ds}.locked`, '999999999 some-other-host\n');
    expect(() => lock(ds)).toThrow(/held by process 999999999 on some-other-host\); use --force/);
    lock(ds, true)();
    // A lock that names no process (an older nwax killed between creating and writing it; pid
    // 0 would ask kill() about this process group, which always answers "alive").
    for (const text of ['', '0\n', 'garbage\n']) {
      writeFileSync(`${ds}.locked`, text);
      const said: string[] = [];
      const release = lock(ds, false, (m) => said.push(m));
      expect(said, JSON.stringify(text)).toEqual([expect.stringMatching(/linkdb: took over a lock that names no process/)]);
      expect(readFileSync(`${ds}.locked`, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
      release();
    }
    expect(readdirSync(root)).toEqual([]);
  });

  it('leaves the old version readable when the writer is killed mid-write', async () => {
    const root = tempDir();
    const ds = join(root, 'segments');
    await writeDataset(ds, writeParts(1, 'good'));
    // A child that writes a new version slowly and is killed with SIGKILL half way.
    const script = `
      const { writeDataset, partName } = await import(${JSON.stringify(join(__dirname, '..', 'dist', 'mapreduce', 'dataset.js'))});
      const { RecordFileWriter } = await import(${JSON.stringify(join(__dirname, '..', 'dist', 'mapreduce', 'record-file.js'))});
      await writeDataset(${JSON.stringify(ds)}, async (tmp) => {
        const w = new RecordFileWriter(tmp + '/' + partName(0));
        w.append('key-0', 'new'); w.close();
        console.log('writing'); await new Promise((r) => setTimeout(r, 60000));
      }, { force: true });`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((res) => child.stdout.once('data', () => res()));
    child.kill('SIGKILL');
    await new Promise((res) => child.once('exit', res));
    recover(ds);
    expect(new RecordFileReader(parts(ds)[0]).get('key-0')).toEqual(['good']);
    // The rerun takes over the dead writer's lock and succeeds.
    await writeDataset(ds, writeParts(1, 'rerun'), { force: true });
    expect(new RecordFileReader(parts(ds)[0]).get('key-0')).toEqual(['rerun']);
    expect(readFileSync(join(ds, '_SUCCESS'), 'utf8')).toBe('');
  });
});

describe('parts written by either engine', () => {
  // The same 3000 records as nwax writes them, as Hadoop Streaming writes text, and gzipped whole.
  const dir = tempDir();
  const keys = cSort(Array.from({ length: 3000 }, (_, i) => `org,example)/${i}/${'é✓'[i % 2]}`));
  const lines = keys.map((k, i) => `${k}\t${JSON.stringify({ n: i })}\n`).join('');

  it('reads a part without its block index: plain text by a scan, a gzip stream whole, an older sidecar beside it', () => {
    const text = join(dir, 'text', 'part-00000');
    const gz = join(dir, 'gz', 'part-00000.gz');
    const old = join(dir, 'old', 'part-00000');
    for (const d of ['text', 'gz', 'old']) spawnSync('mkdir', ['-p', join(dir, d)]);
    writeFileSync(text, lines);
    writeFileSync(gz, spawnSync('gzip', ['-c'], { input: lines }).stdout);
    const w = new RecordFileWriter(old, { blockSize: 1024 });
    keys.forEach((k, i) => w.append(k, { n: i }));
    w.close();
    // The sidecar is hidden from Hadoop's FileInputFormat; an older nwax wrote it beside the part.
    expect(existsSync(join(dir, 'old', '.part-00000.idx'))).toBe(true);
    spawnSync('mv', [join(dir, 'old', '.part-00000.idx'), `${old}.idx`]);
    for (const p of [text, gz, old]) {
      const r = new RecordFileReader(p);
      expect(
        [...r.entries()].map((e) => e.key),
        p,
      ).toEqual(keys);
      expect(r.get(keys[1234]), p).toEqual([{ n: 1234 }]);
      expect(r.get('org,example)/nope'), p).toEqual([]);
      expect([...r.prefix('org,example)/29')].length, p).toBe(keys.filter((k) => k.startsWith('org,example)/29')).length);
    }
    expect(new RecordFileReader(text).blockCount).toBeGreaterThan(1);
  });

  it("takes a streaming job's output as a dataset: .crc files left out, a named output complete by its parent's _SUCCESS", () => {
    const seg = join(dir, 'seg');
    spawnSync('mkdir', ['-p', join(seg, 'content')]);
    writeFileSync(join(seg, '_SUCCESS'), '');
    writeFileSync(join(seg, '._SUCCESS.crc'), 'crc');
    writeFileSync(join(seg, 'content', 'part-00001.gz'), spawnSync('gzip', ['-c'], { input: lines }).stdout);
    writeFileSync(join(seg, 'content', '.part-00001.gz.crc'), 'crc');
    writeFileSync(join(seg, 'content', 'part-00000'), '');
    expect(parts(join(seg, 'content')).map((p) => p.split('/').pop())).toEqual(['part-00000', 'part-00001.gz']);
    spawnSync('mkdir', ['-p', join(dir, 'half', 'content')]);
    expect(() => parts(join(dir, 'half', 'content'))).toThrow(/content: no _SUCCESS: the job that wrote it did not finish/);
  });
});
