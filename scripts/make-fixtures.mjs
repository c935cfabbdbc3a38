#!/usr/bin/env node
/**
 * Writes the project's own example archives with warcio.js (an independent WARC writer, so
 * nwax reads files it did not write):
 *
 *   fixtures/example/dedup-example.warc.gz   the worked dedup example of the design: one page
 *       captured on ten days of October 2007, five distinct versions (gzip per record)
 *   fixtures/example/dedup-example.warc      the same records, uncompressed
 *
 * Deterministic: fixed dates and record ids. Usage: node scripts/make-fixtures.mjs [DIR]
 */
import { WARCRecord, WARCSerializer } from 'warcio';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The ten captures: date, version label, page text (as in the design's worked example). */
export const DEDUP_CAPTURES = [
  ['20071001120000', 'ABC123', 'Hello, welcome to my page.'],
  ['20071002120000', 'ABC123', 'Hello, welcome to my page.'],
  ['20071003120000', 'DEF456', "Sorry I haven't updated this in a while."],
  ['20071004120000', 'DEF456', "Sorry I haven't updated this in a while."],
  ['20071005120000', 'ABC123', 'Hello, welcome to my page.'],
  ['20071006120000', 'ABC123', 'Hello, welcome to my page.'],
  ['20071007120000', 'GHI789', 'Hey, I finally updated this.'],
  ['20071008120000', 'JKL012', 'Under construction.'],
  ['20071009120000', 'JKL012', 'Under construction.'],
  ['20071010120000', 'MNO345', 'My homepage is great!'],
];

const iso = (d) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}Z`;
const enc = new TextEncoder();

/** An HTML page whose body text is `text`. */
export function page(title, text) {
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${title}</title></head>\n<body><h1>${title}</h1>\n<p>${text}</p>\n</body></html>\n`;
}

/**
 * Serializes records to one WARC file. Each record: { type, url, date (14 digits), body
 * (string|Uint8Array), status?, headers? (HTTP), warcHeaders?, id }.
 */
export async function writeWarc(path, records, { gzip = true } = {}) {
  const parts = [];
  for (const r of records) {
    const body = typeof r.body === 'string' ? enc.encode(r.body) : (r.body ?? new Uint8Array());
    const warcHeaders = { 'WARC-Record-ID': `<urn:uuid:${r.id}>`, ...(r.warcHeaders ?? {}) };
    const opts = { url: r.url, date: iso(r.date), type: r.type ?? 'response', warcHeaders, warcVersion: 'WARC/1.0' };
    if ((r.type ?? 'response') === 'response' || r.type === 'revisit') {
      opts.statusline = r.statusline ?? `HTTP/1.1 ${r.status ?? 200} OK`;
      opts.httpHeaders = r.headers ?? { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(body.length) };
    }
    const record = WARCRecord.create(opts, [body]);
    parts.push(await WARCSerializer.serialize(record, { gzip, digest: { algo: 'sha-1', prefix: 'sha1:', base32: true } }));
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, Buffer.concat(parts.map((p) => Buffer.from(p))));
}

export function dedupExampleRecords() {
  return DEDUP_CAPTURES.map(([date, , text], i) => ({
    type: 'response',
    url: 'http://example.org/index.html',
    date,
    body: page('My homepage', text),
    id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
  }));
}

export async function makeFixtures(dir) {
  await writeWarc(join(dir, 'dedup-example.warc.gz'), dedupExampleRecords(), { gzip: true });
  await writeWarc(join(dir, 'dedup-example.warc'), dedupExampleRecords(), { gzip: false });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const here = dirname(fileURLToPath(import.meta.url));
  const dir = process.argv[2] ?? join(here, '..', 'fixtures', 'example');
  await makeFixtures(dir);
  console.log(`wrote ${dir}/dedup-example.warc.gz and dedup-example.warc`);
}
