/** The worked dedup example and the import-to-index pipeline, shared by the search and serve tests. */
import { expect } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nwax, nwaxAsync } from './helpers.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc, dedupExampleRecords } from '../scripts/make-fixtures.mjs';

/** import, updatedb, invertlinks, index (and add-dates with `dates`) over `manifest` into `crawl`. */
export async function pipeline(crawl: string, manifest: string, opts: { exclusions?: string; dates?: string; reduces?: number } = {}): Promise<void> {
  const seg = join(crawl, 'segments', '20200101000000');
  const steps = [
    ['import', ...(opts.exclusions ? ['-e', opts.exclusions] : []), manifest, seg],
    ['updatedb', join(crawl, 'crawldb'), seg],
    ['invertlinks', join(crawl, 'linkdb'), seg],
    ['index', '--reduces', String(opts.reduces ?? 1), join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg],
  ];
  for (const s of steps) {
    const r = await nwaxAsync(s);
    expect([0, 3], `${s.join(' ')}: ${r.stderr}`).toContain(r.code);
  }
  if (opts.dates) {
    for (let p = 0; p < (opts.reduces ?? 1); p++) {
      const part = join(crawl, 'indexes', `part-0000${p}`);
      const r = await nwaxAsync(['add-dates', part, part, join(crawl, 'pindexes', `part-0000${p}`, 'dates'), opts.dates]);
      expect(r.code, r.stderr).toBe(0);
    }
  }
}

/**
 * The worked example (ten captures, five versions) written as a WARC in `dir`, its duplicate
 * list made with cdx and dedup-cdx, and a manifest of it in collection "october".
 */
export async function workedExample(dir: string): Promise<{ manifest: string; dups: string }> {
  const warc = join(dir, 'example.warc.gz');
  await writeWarc(warc, dedupExampleRecords());
  await nwax(['cdx', '-o', join(dir, 'example.cdx'), warc]);
  const dups = join(dir, 'all.dup');
  writeFileSync(dups, (await nwax(['dedup-cdx', join(dir, 'example.cdx')])).stdout);
  const manifest = join(dir, 'manifest');
  writeFileSync(manifest, `${warc} october\n`);
  return { manifest, dups };
}
