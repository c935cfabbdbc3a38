import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { HAVE_FIXTURES, dataLines, fixture, nwax } from './helpers.js';

// pywb ships CDX files made by its own indexer beside its sample archives (not in the
// conformance manifest): the keys, dates, URLs, digests, lengths and offsets must agree.
const pick = (line: string) => {
  const f = line.split(' ');
  return [f[0], f[1], f[2], f[5], f[8], f[9]].join(' ');
};

describe.skipIf(!HAVE_FIXTURES)("pywb's shipped CDX", () => {
  it.each([
    ['pywb/cdx/iana.cdx', 'pywb/iana.warc.gz', 'surt'],
    ['pywb/cdx/dupes.cdx', 'pywb/dupes.warc.gz', 'surt'],
    ['pywb/cdx/example.cdx', 'pywb/example.warc.gz', 'surt'],
    ['pywb/non-surt-cdx/example-non-surt.cdx', 'pywb/example.warc.gz', 'massaged'],
  ])('%s: the same captures from %s (%s keys)', async (cdx, warc, canonicalizer) => {
    const theirs = dataLines(readFileSync(fixture(cdx), 'utf8'))
      .map(pick)
      .sort();
    const ours = dataLines((await nwax(['cdx', '-q', '--sort', '--canonicalizer', canonicalizer, fixture(warc)])).stdout)
      .map(pick)
      .sort();
    expect(theirs.length).toBeGreaterThan(2);
    expect(ours).toEqual(theirs);
  });
});

describe.skipIf(!HAVE_FIXTURES)('a corrupt gzip member in the middle of a file', () => {
  it("gives pywb's dupes.cdx minus the line of the damaged record (offset 1858)", async () => {
    const r = await nwax(['cdx', '--sort', fixture('made-here/dupes-corrupt-member-at-1858.warc.gz')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/offset 1858: corrupt gzip member/);
    const theirs = dataLines(readFileSync(fixture('pywb/cdx/dupes.cdx'), 'utf8'))
      .filter((l) => l.split(' ')[9] !== '1858')
      .map(pick)
      .sort();
    const ours = dataLines(r.stdout).map(pick).sort();
    expect(ours).toEqual(theirs);
  });
});
