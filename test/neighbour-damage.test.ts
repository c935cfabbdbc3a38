/**
 * No damaged record changes a good one (issue: nothing lies). Real archives from the shared
 * fixtures, damaged here the ways the reliability audit found: bytes after a plain ARC's or
 * WARC's last record or between two records, NUL padding, and an `.arc.gz` member whose ARC
 * header length is negative, not a number or missing. Every undamaged record keeps the digest
 * and URL it has in the clean file; garbage is reported with its offset and byte count (exit 3).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { dataLines, fixture, HAVE_FIXTURES, nwax, tempDir } from './helpers.js';

const dir = tempDir();
const HERITRIX_GZ = 'webarchive-discovery/IAH-20080430204825-00000-blackbook-truncated.arc.gz';
const HERITRIX_PLAIN = 'webarchive-discovery/IAH-20080430204825-00000-blackbook-truncated.arc';
const PLAIN_WARC = 'warcio/example-iana.org-chunked.warc';

interface Line {
  url: string;
  digest: string;
  length: number;
  offset: number;
}

function lines(stdout: string): Line[] {
  return dataLines(stdout).map((l) => {
    const f = l.split(' ');
    return { url: f[2], digest: f[5], length: Number(f[8]), offset: Number(f[9]) };
  });
}

/** url+date -> digest: what must not change. */
function digests(ls: Line[]): Map<string, string> {
  return new Map(ls.map((l) => [`${l.url} ${l.offset}`, l.digest]));
}

describe.skipIf(!HAVE_FIXTURES)('a damaged neighbour never changes a good record', () => {
  it('.arc.gz: a member whose ARC length is -10, -1, xyz or missing is never read into the record before it', async () => {
    const clean = readFileSync(fixture(HERITRIX_GZ));
    const cleanRun = await nwax(['cdx', fixture(HERITRIX_GZ)]);
    expect(cleanRun.code).toBe(0);
    const records = lines(cleanRun.stdout).sort((a, b) => a.offset - b.offset);
    // The filedesc member comes first; the CDX names every other member by offset and length.
    const members = [{ offset: 0, length: records[0].offset }, ...records];
    const plain = members.map((m) => gunzipSync(clean.subarray(m.offset, m.offset + m.length)));
    let cases = 0;
    // Four members, as the audit's sixteen variants: the first after the dns record, two in the middle, the last.
    for (const victim of [2, 3, 5, members.length - 1]) {
      for (const field of ['-10', '-1', 'xyz', '']) {
        const eol = plain[victim].indexOf(10);
        const header = plain[victim].toString('latin1', 0, eol).replace(/ \d+$/, field ? ` ${field}` : '');
        const parts = plain.map((p, i) => (i === victim ? Buffer.concat([Buffer.from(header, 'latin1'), p.subarray(eol)]) : p));
        const path = join(dir, `victim-${victim}${field || 'empty'}.arc.gz`);
        writeFileSync(path, Buffer.concat(parts.map((p) => gzipSync(p))));
        const r = await nwax(['cdx', path]);
        const got = lines(r.stdout);
        const victimUrl = records[victim - 1].url;
        // Every other record: the same URL and digest, in the same order.
        const others = got.filter((l) => l.url !== victimUrl).map((l) => `${l.url} ${l.digest}`);
        expect(others, `${path}`).toEqual(records.filter((l) => l.url !== victimUrl).map((l) => `${l.url} ${l.digest}`));
        expect(r.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
        if (field) {
          // Five fields: the member bounds the record (as CDX-Writer reads it), with a warning.
          expect(r.code, path).toBe(0);
          expect(r.stderr).toMatch(/offset \d+: ARC header length .*; used the gzip member's \d+ bytes \(bad-length; warning\)/);
          expect(got.find((l) => l.url === victimUrl)?.digest).toBe(records[victim - 1].digest);
        } else {
          expect(r.code, path).toBe(3);
          expect(r.stderr).toMatch(/has 4 fields.*bad-header; record skipped/);
          expect(got.some((l) => l.url === victimUrl)).toBe(false);
        }
        cases++;
      }
    }
    expect(cases).toBe(16);
  });

  for (const file of [HERITRIX_PLAIN, PLAIN_WARC]) {
    it(`${file}: bytes after a record that start no record are reported and skipped, never read into it`, async () => {
      const clean = readFileSync(fixture(file));
      const cleanRun = await nwax(['cdx', fixture(file)]);
      expect(cleanRun.code).toBe(0);
      const want = lines(cleanRun.stdout).sort((a, b) => a.offset - b.offset);
      const middle = want[Math.floor(want.length / 2)];
      const cases: Array<{ name: string; bytes: Buffer; at: number; count: number }> = [
        { name: 'ga', bytes: Buffer.concat([clean, Buffer.from('ga')]), at: clean.length, count: 2 },
        { name: 'line', bytes: Buffer.concat([clean, Buffer.from('garbage\n')]), at: clean.length, count: 8 },
        {
          // A line of garbage right before the middle record, after the previous one's separator.
          name: 'between',
          bytes: Buffer.concat([clean.subarray(0, middle.offset), Buffer.from('garbage\n'), clean.subarray(middle.offset)]),
          at: middle.offset,
          count: 8,
        },
      ];
      for (const c of cases) {
        const path = join(dir, `${c.name}-${file.replace(/\//g, '-')}`);
        writeFileSync(path, c.bytes);
        const r = await nwax(['cdx', path]);
        const got = lines(r.stdout);
        const shift = (l: Line) => (c.name === 'between' && l.offset >= middle.offset ? 8 : 0);
        // Same records, digests and lengths; only offsets after inserted bytes move.
        expect(
          got.map((l) => `${l.url} ${l.digest} ${l.length}`),
          `${c.name}`,
        ).toEqual(want.map((l) => `${l.url} ${l.digest} ${l.length}`));
        expect(got.map((l) => l.offset)).toEqual(want.map((l) => l.offset + shift(l)));
        expect(r.code, `${c.name}: ${r.stderr}`).toBe(3);
        expect(r.stderr).toContain(`${path}: offset ${c.at}: ${c.count} bytes that start no record`);
        expect(r.stderr).toMatch(/not-a-record; bytes skipped/);
        expect(r.stderr).not.toMatch(/content-length-mismatch/);
      }
      // NUL padding: every record the same, a warning with the count, exit 0.
      const path = join(dir, `nul-${file.replace(/\//g, '-')}`);
      writeFileSync(path, Buffer.concat([clean, Buffer.alloc(5)]));
      const r = await nwax(['cdx', path]);
      expect(digests(lines(r.stdout))).toEqual(digests(want));
      expect(lines(r.stdout).map((l) => l.length)).toEqual(want.map((l) => l.length));
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/5 NUL bytes between records, skipped \(nul-bytes; warning\)/);
    });
  }
});

describe('impossible lengths', () => {
  it('a length above 2^53 is named as written and its record skipped, in WARC and in ARC (not "Content-Length" there)', async () => {
    const huge = '18446744073709551615';
    const warc = join(dir, 'huge.warc');
    const good =
      'WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://example.org/good\r\nWARC-Date: 2020-01-01T00:00:00Z\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok\r\n\r\n';
    writeFileSync(warc, `WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://example.org/huge\r\nContent-Length: ${huge}\r\n\r\nabc\r\n\r\n${good}`);
    const w = await nwax(['cdx', warc]);
    expect(w.code).toBe(3);
    expect(w.stderr).toContain(`offset 0: WARC Content-Length ${huge} is larger than any file (bad-header; record skipped)`);
    expect(lines(w.stdout).map((l) => l.url)).toEqual(['http://example.org/good']);
    const arc = join(dir, 'huge.arc');
    writeFileSync(
      arc,
      `http://example.org/huge 192.0.2.1 20200101000000 text/plain ${huge}\nabc\nhttp://example.org/good 192.0.2.1 20200101000000 text/plain 2\nok\n`,
    );
    const a = await nwax(['cdx', arc]);
    expect(a.code).toBe(3);
    expect(a.stderr).toContain(`offset 0: ARC header length ${huge} is larger than any file (bad-header; record skipped)`);
    expect(a.stderr).not.toContain('Content-Length');
    expect(lines(a.stdout).map((l) => l.url)).toEqual(['http://example.org/good']);
  });
});

describe('messages that count', () => {
  it('an .arc.gz length too long names how many bytes its member holds, as ARC length', async () => {
    const { arcRecord, page, ARC_FILEDESC } = await import('../src/tools/damage-kit.js');
    const odd = arcRecord('http://example.org/odd', page(1500, 'odd'), 3);
    const good = arcRecord('http://example.org/good', page(100, 'good'));
    const block = odd.bytes.length - odd.bytes.indexOf(10) - 1;
    const declared = block - 1 + 3;
    const path = join(dir, 'long.arc.gz');
    writeFileSync(path, Buffer.concat([ARC_FILEDESC, odd.bytes, good.bytes].map((b) => gzipSync(b))));
    const r = await nwax(['cdx', path]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`ARC length ${declared}, but the record's gzip member ends after ${block} bytes of it and the next member starts a record`);
    expect(lines(r.stdout).map((l) => [l.url, l.digest])).toEqual([
      ['http://example.org/odd', odd.digest],
      ['http://example.org/good', good.digest],
    ]);
  });
});
