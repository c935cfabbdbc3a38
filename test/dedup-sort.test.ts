import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_CDX, EXPECTED_DATES, EXPECTED_DUP } from './dedup-example.js';
import { HAVE_FIXTURES, HAVE_SPEC, ROOT, SPEC, dataLines, fixture, nwax, tempDir } from './helpers.js';
// @ts-expect-error plain JS module shared with the fixture generator
import { DEDUP_CAPTURES } from '../scripts/make-fixtures.mjs';

const cSort = (text: string, args: string[] = []) =>
  spawnSync('sort', args, { input: text, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 1 << 28 }).stdout.toString();

describe('the worked dedup example', () => {
  it('dedup-cdx of its CDX prints exactly its duplicate list', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'example.cdx'), EXAMPLE_CDX);
    const r = await nwax(['dedup-cdx', join(dir, 'example.cdx')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(EXPECTED_DUP);
  });

  // The project keeps the example's facts (test/dedup-example.ts); where the steering folder's
  // copy is at hand (always under CI), they must still be its facts.
  it.skipIf(!HAVE_SPEC)("the project's facts are the spec's: captures, CDX, duplicates and dates", () => {
    const spec = (name: string) => readFileSync(join(SPEC, 'dedup-example', name), 'utf8');
    const tsv = spec('contents.tsv')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(DEDUP_CAPTURES).toEqual(tsv);
    expect(EXAMPLE_CDX).toBe(spec('example.cdx'));
    expect(EXPECTED_DUP).toBe(spec('expected.dup'));
    expect(EXPECTED_DATES).toBe(spec('expected-dates.txt'));
  });
});

describe('dedup-cdx on a real archive', () => {
  it('cdx then dedup-cdx keeps the first capture of each of the five versions', async () => {
    const dir = tempDir();
    const cdx = join(dir, 'example.cdx');
    expect((await nwax(['cdx', '-o', cdx, join(ROOT, 'fixtures', 'example', 'dedup-example.warc.gz')])).code).toBe(0);
    const dup = (await nwax(['dedup-cdx', cdx])).stdout.trim().split('\n');
    // The five duplicate captures of the design's example, with real SHA-1 digests.
    expect(dup.map((l) => l.split(' ')[2])).toEqual(['20071009120000', '20071002120000', '20071005120000', '20071006120000', '20071004120000']);
    const byDigest = new Map<string, string[]>();
    for (const l of dataLines(readFileSync(cdx, 'utf8'))) {
      const f = l.split(' ');
      byDigest.set(f[5], [...(byDigest.get(f[5]) ?? []), f[1]]);
    }
    for (const l of dup) {
      const [key, digest, date, file] = l.split(' ');
      expect(key).toBe('org,example)/index.html');
      expect(file).toBe('dedup-example.warc.gz');
      expect(byDigest.get(digest.slice(5))![0] < date).toBe(true);
    }
  });
});

describe.skipIf(!HAVE_FIXTURES)('revisits', () => {
  it('prints the revisit captures of a CDX11 and of a CDXJ file alike', async () => {
    const cdx = await nwax(['revisits', fixture('pywb/cdx/dupes.cdx')]);
    const cdxj = await nwax(['revisits', fixture('pywb/cdxj/dupes.cdxj')]);
    expect(cdx.code).toBe(0);
    const lines = cdx.stdout.trim().split('\n');
    expect(lines).toHaveLength(9);
    expect(lines[0]).toMatch(/^\S+ sha1:[A-Z2-7]{32} \d{14}$/);
    expect(cdxj.stdout).toBe(cdx.stdout);
  });

  it('names lines that are not CDX by file and line number, skips them and exits 3', async () => {
    const dir = tempDir();
    const p = join(dir, 'mixed.cdx');
    writeFileSync(
      p,
      ' CDX N b a m s k r M S V g\norg,x)/ 20070101000000 http://x.org/ text/html 200 AAAA - - 10 0 a.gz\nnot a cdx line\norg,x)/ 20080101000000 http://x.org/ text/html 200 AAAA - - 10 10 a.gz\n',
    );
    const r = await nwax(['dedup-cdx', p]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('org,x)/ sha1:AAAA 20080101000000 a.gz\n');
    expect(r.stderr).toMatch(/mixed\.cdx: line 3: .*not a cdx line.*\(skipped\)/);
    expect(r.stderr).toMatch(/passed over: not CDX 1/);
  });

  it('counts 2008 Wayback lines with file "-" as revisits', async () => {
    const dir = tempDir();
    const p = join(dir, 'old.cdx');
    writeFileSync(
      p,
      ' CDX N b a m s k r M S V g\norg,x)/ 20080101000000 http://x.org/ text/html 200 AAAA - - - - -\norg,x)/ 20070101000000 http://x.org/ text/html 200 AAAA - - 10 0 a.arc.gz\n',
    );
    expect((await nwax(['revisits', p])).stdout).toBe('org,x)/ sha1:AAAA 20080101000000\n');
  });
});

describe.skipIf(!HAVE_FIXTURES)('dedup-cdx reads CDX11 from its bytes as the NutchWAX script does', () => {
  // The script of NutchWAX's documentation, the oracle for plain CDX11.
  const script = (file: string) =>
    spawnSync('bash', [
      '-c',
      `awk 'substr($0,1,4) != " CDX" { print $1" sha1:"$6" "$2" "$11 }' '${file}' | LC_ALL=C sort -u | awk '{ k = $1" "$2; if (k == p) print; p = k }'`,
    ]).stdout.toString();

  it("gives the script's lines on the Wayback production CDX with non-ASCII keys and CRLF lines, whatever the digest prefix; names each bad line", async () => {
    const dir = tempDir();
    // 2,144 real lines, each again a year later: half of the copies keep their digest.
    const real = dataLines(readFileSync(fixture('openwayback/test-cdx.txt'), 'utf8'));
    const lines = [...real];
    real.forEach((l, i) => {
      const f = l.split(' ');
      f[1] = String(Number(f[1].slice(0, 4)) + 1) + f[1].slice(4);
      if (i % 2) f[5] = `${f[5].slice(0, 31)}Z`;
      f[10] = `copy-${i % 3}.warc.gz`;
      lines.push(f.join(' '));
    });
    // Keys in UTF-8 (IRIs kept as they are by some indexers), and CRLF line ends.
    lines.push('jp,example)/\u65e5\u672c 20100101000000 http://example.jp/ text/html 200 JJJJ - - 1 0 j.warc.gz');
    lines.push('jp,example)/\u65e5\u672c 20110101000000 http://example.jp/ text/html 200 JJJJ - - 1 0 k.warc.gz');
    lines.push('jp,example)/\u65e5 20110101000000 http://example.jp/ text/html 200 JJJJ - - 1 0 k.warc.gz');
    lines.push('org,crlf)/ 20100101000000 http://crlf.org/ text/html 200 CCCC - - 1 0 c.warc.gz\r');
    lines.push('org,crlf)/ 20110101000000 http://crlf.org/ text/html 200 CCCC - - 1 0 c.warc.gz\r');
    const plain = join(dir, 'plain.cdx');
    writeFileSync(plain, ` CDX N b a m s k r M S V g\n${lines.join('\n')}\n`);
    const expected = script(plain);
    expect(expected.split('\n').length).toBeGreaterThan(1000);
    const r = await nwax(['dedup-cdx', '--memory', '64K', plain]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(expected);
    // The same captures with digests written sha1:X and SHA1:X, bad lines among them, and no
    // newline at the end: the same output; each bad line named.
    const prefixed = lines.map((l, i) => {
      const f = l.split(' ');
      if (i % 3 === 1) f[5] = `sha1:${f[5]}`;
      if (i % 3 === 2) f[5] = `SHA1:${f[5]}`;
      return f.join(' ');
    });
    prefixed.splice(100, 0, '- 20100101000000 http://x.org/ text/html 200 AAAA - - 1 0 x.warc.gz');
    prefixed.splice(200, 0, 'org,x)/ 2010-01-01 http://x.org/ text/html 200 AAAA - - 1 0 x.warc.gz');
    prefixed.splice(300, 0, 'org,x)/ 20100101000000 http://x.org/ text/html 200 - - - 1 0 x.warc.gz');
    prefixed.splice(400, 0, 'org,x)/ 20100101000000 three fields');
    const mixed = join(dir, 'mixed.cdx');
    writeFileSync(mixed, ` CDX N b a m s k r M S V g\n${prefixed.join('\n')}`);
    const m = await nwax(['dedup-cdx', '--memory', '64K', mixed]);
    expect(m.code).toBe(3);
    expect(m.stdout).toBe(expected);
    expect(m.stderr).toMatch(/mixed\.cdx: line 102: no URL key/);
    expect(m.stderr).toMatch(/mixed\.cdx: line 202: "2010-01-01" is not a 14-digit date/);
    // The general reader takes a short line as a capture without a digest.
    expect(m.stderr).toMatch(/passed over: no digest 2, not CDX 2/);
  });
});

describe.skipIf(!HAVE_FIXTURES)('sort-cdx is LC_ALL=C sort', () => {
  // 2,144 lines of the Wayback Machine's production CDX.
  let wayback: string;
  beforeAll(() => {
    wayback = readFileSync(fixture('openwayback/test-cdx.txt'), 'utf8');
  });

  it('sorts with spills (a 20 KB budget) exactly as sort does', async () => {
    const dir = tempDir();
    const shuffled = join(dir, 'shuffled.cdx');
    writeFileSync(shuffled, cSort(wayback, ['-R', '--random-source=/dev/zero']));
    const r = await nwax(['sort-cdx', '--memory', '20K', shuffled]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(cSort(wayback));
    expect((await nwax(['sort-cdx', '-u', '--memory', '20K', shuffled, shuffled])).stdout).toBe(cSort(wayback + wayback, ['-u']));
  });

  it('merges sorted files (sort -m) and sorts non-ASCII lines in byte order', async () => {
    const dir = tempDir();
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    const lines = wayback.split('\n').filter(Boolean);
    writeFileSync(a, cSort(lines.filter((_, i) => i % 2).join('\n') + '\n'));
    writeFileSync(b, cSort(lines.filter((_, i) => i % 2 === 0).join('\n') + '\n'));
    expect((await nwax(['sort-cdx', '--merge', a, b])).stdout).toBe(cSort(wayback));
    const odd = ['b\u00e9', 'b\u{1F600}', 'b\uFF21', 'bz', 'a', 'b\u0100'].join('\n') + '\n';
    const f = join(dir, 'odd');
    writeFileSync(f, odd);
    expect((await nwax(['sort-cdx', '--memory', '1K', f])).stdout).toBe(cSort(odd));
  });
});
