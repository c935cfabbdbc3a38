/**
 * The README's pipeline, as written there, on the worked example with every default (issue:
 * one collection however it is cut): its commands are read from the README's first bash block
 * under "The pipeline on your own archives", run in a shell in a folder holding the example archive and a manifest,
 * and a search must then show each of the five versions with every date it was captured
 * (test/dedup-example.ts), whatever number of index parts the
 * defaults give.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectedVersionDates } from './dedup-example.js';
import { BIN, ROOT, nwax, run, tempDir } from './helpers.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc, dedupExampleRecords } from '../scripts/make-fixtures.mjs';

/** The README's pipeline commands, up to the first search. */
function readmeSession(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /### The pipeline on your own archives\s+Put[^`]*```bash\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, 'README: the bash block under "### The pipeline on your own archives"').toBeDefined();
  const lines = block!
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  return lines.slice(
    0,
    lines.findIndex((l) => l.startsWith('nwax search')),
  );
}

describe("the README's session on the worked example", () => {
  it('shows every version with all of its capture dates', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'archives'));
    await writeWarc(join(dir, 'archives', 'example.warc.gz'), dedupExampleRecords());
    writeFileSync(join(dir, 'manifest.txt'), `${join(dir, 'archives', 'example.warc.gz')}\n`);
    const session = readmeSession();
    expect(session.some((l) => l.startsWith('nwax add-dates'))).toBe(true);
    const script = `set -euo pipefail\nnwax() { node ${JSON.stringify(BIN)} "$@"; }\n${session.join('\n')}\n`;
    const r = await run('bash', ['-c', script], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    // The defaults made more than one index part here, and each has its dates.
    const parts = readdirSync(join(dir, 'crawl', 'indexes')).filter((n) => n.startsWith('part-'));
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(readdirSync(join(dir, 'crawl', 'pindexes', p))).toContain('dates');
    const found = JSON.parse((await nwax(['search', '-dir', join(dir, 'crawl'), '--json', 'url:http://example.org/index.html'], { cwd: dir })).stdout) as {
      hits: { dates: string[] }[];
    };
    const got = found.hits.map((h) => h.dates.map((d) => d.slice(0, 8)).join(' ')).sort();
    const want = expectedVersionDates()
      .map((dates) =>
        dates
          .split(' ')
          .map((d) => d.slice(0, 8))
          .join(' '),
      )
      .sort();
    expect(got).toEqual(want);
    // Over all parts at once: a line of no version in any part is counted once, not once a part.
    const dup = readFileSync(join(dir, 'all.dup'), 'utf8');
    writeFileSync(join(dir, 'more.dup'), `${dup}org,example)/gone.html sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA 20071011120000\n`);
    const again = await nwax(['add-dates', 'crawl/indexes', 'crawl/indexes', 'crawl/pindexes', 'more.dup'], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`crawl/pindexes (${parts.length} parts): 5 documents, 5 dates added from 6 lines (1 for no document in any part, 0 bad)`);
  }, 120_000);
});
