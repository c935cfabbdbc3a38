import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAVE_FIXTURES, ROOT, dataLines, fixture, nwax, tempDir } from './helpers.js';

const EXAMPLE = join(ROOT, 'fixtures', 'example', 'dedup-example.warc.gz');
const EXAMPLE_PLAIN = join(ROOT, 'fixtures', 'example', 'dedup-example.warc');

describe('nwax cdx on the project example archive', () => {
  it('writes CDX11 with the legend, one line per capture, digests as warcio.js wrote them', async () => {
    const r = await nwax(['cdx', EXAMPLE]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines[0]).toBe(' CDX N b a m s k r M S V g');
    expect(lines).toHaveLength(11);
    expect(lines[1].split(' ')).toEqual([
      'org,example)/index.html',
      '20071001120000',
      'http://example.org/index.html',
      'text/html',
      '200',
      expect.stringMatching(/^[A-Z2-7]{32}$/),
      '-',
      '-',
      expect.any(String),
      '0',
      'dedup-example.warc.gz',
    ]);
    // Five distinct versions among the ten captures.
    expect(new Set(lines.slice(1).map((l) => l.split(' ')[5])).size).toBe(5);
    expect(r.stderr).toMatch(/1 file, 10 records, 10 lines/);
  });

  it('gives the same captures from the gzipped and the plain copy, and from stdin', async () => {
    const pick = (s: string) => dataLines(s).map((l) => l.split(' ').slice(0, 6).join(' '));
    const gz = (await nwax(['cdx', EXAMPLE])).stdout;
    expect(pick((await nwax(['cdx', EXAMPLE_PLAIN])).stdout)).toEqual(pick(gz));
    const stdin = await nwax(['cdx', '-'], { input: readFileSync(EXAMPLE) });
    expect(dataLines(stdin.stdout)).toEqual(dataLines(gz).map((l) => l.replace(/dedup-example\.warc\.gz$/, '-')));
  });

  it('writes CDX9 and CDXJ', async () => {
    const cdx9 = (await nwax(['cdx', '--format', 'cdx9', EXAMPLE])).stdout.split('\n');
    expect(cdx9[0]).toBe(' CDX N b a m s k r V g');
    expect(cdx9[1].split(' ')).toHaveLength(9);
    const cdxj = dataLines((await nwax(['cdx', '-f', 'cdxj', EXAMPLE])).stdout);
    expect(cdxj).toHaveLength(10);
    const [key, ts, json] = [cdxj[0].split(' ')[0], cdxj[0].split(' ')[1], JSON.parse(cdxj[0].slice(cdxj[0].indexOf('{')))];
    expect([key, ts]).toEqual(['org,example)/index.html', '20071001120000']);
    expect(json).toMatchObject({ url: 'http://example.org/index.html', mime: 'text/html', status: '200', offset: '0', filename: 'dedup-example.warc.gz' });
    expect(json.digest).toMatch(/^sha1:[A-Z2-7]{32}$/);
  });

  it('sorts as LC_ALL=C sort does, and writes a file only when complete', async () => {
    const dir = tempDir();
    const out = join(dir, 'all.cdx');
    const r = await nwax(['cdx', '--sort', '--memory', '1K', '-o', out, EXAMPLE_PLAIN, EXAMPLE]);
    expect(r.code).toBe(0);
    const unsorted = dataLines((await nwax(['cdx', EXAMPLE_PLAIN, EXAMPLE])).stdout).join('\n') + '\n';
    const sorted = spawnSync('sort', [], { input: unsorted, env: { ...process.env, LC_ALL: 'C' } }).stdout.toString();
    expect(readFileSync(out, 'utf8')).toBe(` CDX N b a m s k r M S V g\n${sorted}`);
    expect(readdirSync(dir)).toEqual(['all.cdx']);
  });

  it('keys on massaged URLs when asked, and takes -D properties', async () => {
    expect(dataLines((await nwax(['cdx', '--canonicalizer', 'massaged', EXAMPLE])).stdout)[0]).toMatch(/^example\.org\/index\.html /);
    expect(dataLines((await nwax(['cdx', '-D', 'nwax.cdx.format=cdxj', EXAMPLE])).stdout)[0]).toMatch(/ \{"url": /);
    const bad = await nwax(['cdx', '-D', 'nwax.no.such=1', EXAMPLE]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown property nwax\.no\.such/);
  });
});

describe.skipIf(!HAVE_FIXTURES)('nwax cdx over several files', () => {
  const files = ['pywb/iana.warc.gz', 'pywb/dupes.warc.gz', 'warcio/example.warc', 'cdx-writer/uncompressed.arc', 'wget/crawl2.warc.gz'].map(fixture);

  it('gives the same output with --jobs 2 (worker threads) as with one job', async () => {
    const one = await nwax(['cdx', '--jobs', '1', ...files]);
    const two = await nwax(['cdx', '--jobs', '2', ...files]);
    expect(two.code).toBe(0);
    expect(two.stdout).toBe(one.stdout);
    expect(dataLines(one.stdout).length).toBeGreaterThan(500);
  });

  it('indexes all records with --all-records', async () => {
    const all = dataLines((await nwax(['cdx', '--all-records', fixture('pywb/iana.warc.gz')])).stdout);
    expect(all).toHaveLength(343); // 171 requests, 123 revisits, 48 responses, 1 warcinfo
  });
});

describe.skipIf(!HAVE_FIXTURES)('bad input: reported with file and offset, skipped, the rest read', () => {
  const dir = tempDir();
  // Read before the tests, not while vitest collects them (a clone without the fixtures skips this block).
  let iana: Buffer;
  let reference: string[];
  beforeAll(() => {
    iana = readFileSync(fixture('pywb/iana.warc.gz'));
    reference = dataLines(readFileSync(fixture('pywb/iana.warc.gz.cdxj-indexer.cdx'), 'utf8'));
  });
  const offsetsOf = (text: string) => dataLines(text).map((l) => Number(l.split(' ')[9]));
  const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .*:\d+:\d+/);

  it('a file cut inside a gzip member: every record before the cut is indexed, exit 3', async () => {
    const cut = 400_000;
    const path = join(dir, 'iana-cut.warc.gz');
    writeFileSync(path, iana.subarray(0, cut));
    const r = await nwax(['cdx', path]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/iana-cut\.warc\.gz: offset \d+: gzip member cut short/);
    expect(r.stderr).toMatch(/skipped 1: gzip-truncated 1/);
    noStack(r.stderr);
    const before = reference.filter((l) => Number(l.split(' ')[9]) + Number(l.split(' ')[8]) <= cut);
    expect(offsetsOf(r.stdout)).toEqual(before.map((l) => Number(l.split(' ')[9])));
  });

  it('garbage between two records: reported at its offset, all records still indexed', async () => {
    const at = Number(reference[10].split(' ')[9]);
    const junk = Buffer.from('this is not a gzip member '.repeat(8));
    const path = join(dir, 'iana-junk.warc.gz');
    writeFileSync(path, Buffer.concat([iana.subarray(0, at), junk, iana.subarray(at)]));
    const r = await nwax(['cdx', path]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`iana-junk.warc.gz: offset ${at}: ${junk.length} bytes that are not a gzip member`);
    expect(dataLines(r.stdout)).toHaveLength(reference.length);
  });

  it('a corrupt gzip member: that record is skipped, the others are indexed', async () => {
    const victim = reference[5].split(' ');
    const at = Number(victim[9]);
    const bytes = Buffer.from(iana);
    for (let i = at + 40; i < at + 56; i++) bytes[i] ^= 0xff;
    const path = join(dir, 'iana-flip.warc.gz');
    writeFileSync(path, bytes);
    const r = await nwax(['cdx', path]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`iana-flip\\.warc\\.gz: offset ${at}: `));
    expect(offsetsOf(r.stdout)).toEqual(offsetsOf(reference.join('\n')).filter((o) => o !== at));
    const strict = await nwax(['cdx', '--strict', path]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(new RegExp(`offset ${at}`));
    noStack(strict.stderr);
  });

  it('a record whose Content-Length is short (plain WARC): read as declared, the bytes after it reported with their count, the next records still read', async () => {
    const src = readFileSync(fixture('warcio/example.warc'), 'latin1');
    // The response record's Content-Length, made 100 bytes short.
    const lied = src.replace(/(WARC-Type: response\r\n(?:[^\r]+\r\n)*?Content-Length: )(\d+)/, (_, h: string, n: string) => `${h}${Number(n) - 100}`);
    expect(lied).not.toBe(src);
    const path = join(dir, 'lie.warc');
    writeFileSync(path, Buffer.from(lied, 'latin1'));
    const r = await nwax(['cdx', '--all-records', path]);
    // The 100 bytes the length left out and the separator after them start no record.
    expect(r.stderr).toMatch(/lie\.warc: offset \d+: 104 bytes that start no record, skipped: no WARC record starts here .*\(not-a-record; bytes skipped\)/);
    expect(r.code).toBe(3);
    const good = dataLines((await nwax(['cdx', '--all-records', fixture('warcio/example.warc')])).stdout);
    // Every record after the damaged one is still found.
    expect(
      dataLines(r.stdout)
        .slice(-3)
        .map((l) => l.split(' ')[0]),
    ).toEqual(good.slice(-3).map((l) => l.split(' ')[0]));
  });

  it('empty, missing, directory and non-archive inputs: one clear line each, no stack', async () => {
    const empty = join(dir, 'empty.warc.gz');
    writeFileSync(empty, '');
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'just some notes\n');
    const cases: Array<[string, number, RegExp]> = [
      [empty, 3, /empty\.warc\.gz: offset 0: empty file/],
      [join(dir, 'nope.warc'), 1, /nope\.warc: no such file/],
      [dir, 1, /is a directory/],
      [text, 3, /notes\.txt: offset 0: not an ARC or WARC file/],
    ];
    for (const [path, code, msg] of cases) {
      const r = await nwax(['cdx', path]);
      expect(r.code, path).toBe(code);
      expect(r.stderr).toMatch(msg);
      noStack(r.stderr);
    }
  });

  it('a failed run leaves no half-written output file', async () => {
    const out = join(dir, 'out.cdx');
    copyFileSync(fixture('pywb/example.warc.gz'), join(dir, 'good.warc.gz'));
    expect((await nwax(['cdx', '-o', out, join(dir, 'good.warc.gz')])).code).toBe(0);
    const before = readFileSync(out, 'utf8');
    const r = await nwax(['cdx', '--strict', '-o', out, fixture('made-here/dupes-corrupt-member-at-1858.warc.gz')]);
    expect(r.code).toBe(1);
    expect(readFileSync(out, 'utf8')).toBe(before);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(existsSync(out)).toBe(true);
  });
});
