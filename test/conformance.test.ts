import { describe, expect, it } from 'vitest';
import { HAVE_FIXTURES, FIXTURES } from './helpers.js';
import { runConformance, renderTable } from '../src/tools/conformance.js';

describe.skipIf(!HAVE_FIXTURES)('conformance with the reference indexers', () => {
  it('agrees field by field with every reference index, except the explained differences', async () => {
    const results = await runConformance(FIXTURES);
    expect(results.length).toBeGreaterThan(900);
    const unexplained = results.flatMap((r) =>
      r.differences.filter((d) => !d.reason).map((d) => `${d.file} [${d.ref.code}] ${d.field}: ours=${d.ours} theirs=${d.theirs}`));
    expect(unexplained).toEqual([]);
    // cdxj-indexer in CDX11 mode is the reference nwax follows: on the well-formed WARCs it is
    // identical to the letter.
    const cc = results.filter((r) => r.ref.code === 'Cc' && !/\.arc|made-here|bad|trunc/.test(r.file));
    const identical = cc.filter((r) => r.differences.every((d) => d.reason === 'redirect-field' || d.reason === 'robot-flags' || d.reason === 'digest-encoding'));
    expect(identical.length / cc.length).toBeGreaterThan(0.9);
    expect(renderTable(results)).toContain('| pywb/iana.warc.gz |');
  });
});
