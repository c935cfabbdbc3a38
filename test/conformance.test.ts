import { describe, expect, it } from 'vitest';
import { HAVE_FIXTURES, FIXTURES } from './helpers.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConformance, renderTable, replaceTable } from '../src/tools/conformance.js';
import { RULES } from '../src/tools/conformance-rules.js';
import { ROOT } from './helpers.js';

describe.skipIf(!HAVE_FIXTURES)('conformance with the reference indexers', () => {
  it('agrees field by field with every reference index, except the explained differences', async () => {
    const results = await runConformance(FIXTURES);
    expect(results.length).toBeGreaterThan(900);
    const unexplained = results.flatMap((r) =>
      r.differences.filter((d) => !d.reason).map((d) => `${d.file} [${d.ref.code}] ${d.field}: ours=${d.ours} theirs=${d.theirs}`),
    );
    expect(unexplained).toEqual([]);
    // cdxj-indexer in CDX11 mode is the reference nwax follows: on the well-formed WARCs it is
    // identical to the letter.
    const cc = results.filter((r) => r.ref.code === 'Cc' && !/\.arc|made-here|bad|trunc/.test(r.file));
    const identical = cc.filter((r) =>
      r.differences.every((d) => d.reason === 'redirect-field' || d.reason === 'robot-flags' || d.reason === 'digest-encoding'),
    );
    expect(identical.length / cc.length).toBeGreaterThan(0.9);
    // The table in docs/conformance.md is the one this run makes.
    const doc = readFileSync(join(ROOT, 'docs', 'conformance.md'), 'utf8');
    expect(doc, 'run node dist/tools/conformance.js --update-docs').toBe(replaceTable(doc, renderTable(results)));
    // Every rule that explained something is written up there.
    const used = new Set(results.flatMap((r) => r.differences.map((d) => d.reason)));
    for (const id of used) expect(doc).toContain(`#### ${id}\n`);
  });

  it('documents every rule', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'conformance.md'), 'utf8');
    for (const r of RULES) expect(doc, r.id).toContain(`#### ${r.id}\n`);
  });
});
