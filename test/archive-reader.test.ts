import { describe, expect, it } from 'vitest';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { WARCParser } from 'warcio';
import { readArchive } from '../src/archive/reader.js';
import { base32 } from '../src/archive/digest.js';
import { HAVE_FIXTURES, fixture, tempDir } from './helpers.js';
// @ts-expect-error plain JS module shared with the fixture generator
import { writeWarc } from '../scripts/make-fixtures.mjs';

interface Seen {
  type: string;
  url: string;
  offset: number;
}

async function ours(path: string, opts = {}): Promise<Seen[]> {
  const out: Seen[] = [];
  for await (const r of await readArchive(path, opts)) {
    await r.finish();
    out.push({ type: r.type, url: r.url, offset: r.offset });
  }
  return out;
}

async function warcio(path: string): Promise<Seen[]> {
  const parser = new WARCParser(createReadStream(path));
  const out: Seen[] = [];
  for await (const r of parser) {
    await r.readFully();
    const url = (r.warcTargetURI ?? '').replace(/^<|>$/g, '');
    out.push({ type: r.warcType ?? '', url, offset: parser.offset });
  }
  return out;
}

// Well-formed WARCs written by many tools: warcio.js (the oracle here) reads them all correctly.
const WARCS = [
  'pywb/iana.warc.gz',
  'pywb/dupes.warc.gz',
  'pywb/example.warc.gz',
  'pywb/post-test.warc.gz',
  'warcio/example-iana.org-chunked.warc',
  'warcio/example.warc',
  'cdxj-indexer/cc.warc.gz',
  'webarchive-discovery/BL-20140325121225068-00000-32090~opera~8443.warc.gz',
  'webarchive-discovery/flashfrozen-jwat-recompressed.warc.gz',
  'webarchive-commons/IAH-urls-wget.warc',
  'warc-specifications/hello-world.warc',
  'wget/crawl2.warc.gz',
  'cdx-writer/empty-gzips.warc.gz',
  'warcio-js/redirect.warc',
];

describe.skipIf(!HAVE_FIXTURES)('reading real WARC files', () => {
  it.each(WARCS)('%s: the same records at the same offsets as warcio.js', async (f) => {
    const a = await ours(fixture(f));
    const b = await warcio(fixture(f));
    expect(a.length).toBeGreaterThan(0);
    expect(a.map((r) => [r.type, r.url])).toEqual(b.map((r) => [r.type, r.url]));
    // warcio.js puts an empty gzip member's record at the empty member; nwax at its own member.
    if (f !== 'cdx-writer/empty-gzips.warc.gz') expect(a.map((r) => r.offset)).toEqual(b.map((r) => r.offset));
  });

  it('streams payloads whose SHA-1 is the declared WARC-Payload-Digest', async () => {
    let checked = 0;
    for await (const r of await readArchive(fixture('pywb/iana.warc.gz'))) {
      const h = createHash('sha1');
      for await (const c of r.payload()) h.update(c);
      await r.finish();
      if (r.type === 'response' && r.payloadDigest) {
        expect(base32(h.digest())).toBe(r.payloadDigest);
        checked++;
      }
    }
    expect(checked).toBe(48);
  });

  it('reads ARC v1 headers, the filedesc and HTTP status', async () => {
    const recs: Array<[string, string, string | undefined, string | undefined]> = [];
    for await (const r of await readArchive(fixture('webarchive-discovery/IAH-20080430204825-00000-blackbook-truncated.arc.gz'))) {
      recs.push([r.type, r.url, r.date, r.http?.status]);
      await r.finish();
    }
    expect(recs[0][0]).toBe('filedesc');
    expect(recs[1]).toEqual(['response', 'dns:www.archive.org', '20080430204825', undefined]);
    expect(recs[2]).toEqual(['response', 'http://www.archive.org/robots.txt', '20080430204825', '200']);
    expect(recs.length).toBe(9);
  });
});

describe('records larger than the in-memory limit', () => {
  const dir = tempDir();
  it('streams a 40 MB record through the streamed inflater, with the right digest, offset and length', async () => {
    const big = Buffer.alloc(40 << 20);
    for (let i = 0; i < big.length; i += 4096) big.write(`line ${i} of a large page\n`, i);
    const path = join(dir, 'big.warc.gz');
    await writeWarc(path, [
      { type: 'response', url: 'http://example.org/small', date: '20200101000000', body: 'small page', id: '00000000-0000-4000-8000-000000000001' },
      {
        type: 'response',
        url: 'http://example.org/big',
        date: '20200101000001',
        body: big,
        id: '00000000-0000-4000-8000-000000000002',
        headers: { 'Content-Type': 'application/octet-stream' },
      },
      { type: 'response', url: 'http://example.org/after', date: '20200101000002', body: 'after', id: '00000000-0000-4000-8000-000000000003' },
    ]);
    const expected = await warcio(path);
    const seen: Array<{ url: string; offset: number; length: number; sha: string; max: number }> = [];
    // A 1 MiB in-memory limit and a 256 KiB window force the streamed path for the big record.
    for await (const r of await readArchive(path, { inflateMaxBuffer: 1 << 20, inflateWindow: 256 << 10 })) {
      const h = createHash('sha1');
      let max = 0;
      for await (const c of r.payload()) {
        h.update(c);
        max = Math.max(max, c.length);
      }
      const end = await r.finish();
      seen.push({ url: r.url, offset: r.offset, length: end.length, sha: base32(h.digest()), max });
    }
    expect(seen.map((s) => s.url)).toEqual(['http://example.org/small', 'http://example.org/big', 'http://example.org/after']);
    expect(seen.map((s) => s.offset)).toEqual(expected.map((e) => e.offset));
    expect(seen[1].sha).toBe(base32(createHash('sha1').update(big).digest()));
    // Delivered in pieces, never as one 40 MB buffer.
    expect(seen[1].max).toBeLessThanOrEqual(1 << 20);
    const size = readFileSync(path).length;
    expect(seen[2].offset + seen[2].length).toBe(size);
  });
});

describe.skipIf(!HAVE_FIXTURES)('HTTP transfer encoding', () => {
  it('streams chunked payloads transfer-decoded, and digests the payload as stored', async () => {
    for await (const r of await readArchive(fixture('warcio/example-iana.org-chunked.warc'))) {
      if (r.type !== 'response') {
        await r.finish();
        continue;
      }
      expect(r.http?.headers.get('Transfer-Encoding')).toMatch(/chunked/i);
      const decoded: Buffer[] = [];
      for await (const c of r.payload()) decoded.push(c);
      const html = Buffer.concat(decoded).toString('latin1');
      expect(html.trimStart().toLowerCase().startsWith('<!doctype html>')).toBe(true);
      expect(html.trimEnd().endsWith('</html>')).toBe(true);
      await r.finish();
      // The declared digest (hex, by warcprox) is that of the stored, still-chunked bytes.
      const raw = createHash('sha1');
      for await (const c of await rawOf('warcio/example-iana.org-chunked.warc', r.offset)) raw.update(c);
      expect(base32(raw.digest())).toBe(r.payloadDigest);
    }
  });

  it('reads a record whose HTTP body was written in a gzip member of its own', async () => {
    // warcio's example-wrong-chunks: WARC and HTTP headers in one member, the body in the next.
    const seen: Array<[string, number, string]> = [];
    for await (const r of await readArchive(fixture('warcio/example-wrong-chunks.warc.gz'))) {
      const parts: Buffer[] = [];
      for await (const c of r.payload()) parts.push(c);
      await r.finish();
      const body = Buffer.concat(parts);
      seen.push([r.type, body.length, createHash('sha1').update(body).digest('base64')]);
      if (r.type === 'response') expect(base32(createHash('sha1').update(body).digest())).toBe(r.payloadDigest);
    }
    // Content-Length 1613 = 343 bytes of HTTP head + 1270 of body, across the two members.
    expect(seen.map((s) => [s[0], s[1]])).toEqual([
      ['response', 1270],
      ['request', 0],
    ]);
  });
});

describe('chunked transfer decoding', () => {
  it('decodes chunks split anywhere, and passes bad framing through as stored', async () => {
    const { dechunk } = await import('../src/archive/dechunk.js');
    const body = Buffer.from('4\r\nWiki\r\n7;ext=1\r\npedia i\r\nB\r\nn \r\nchunks.\r\n0\r\nX-Trailer: 1\r\n\r\n');
    for (const size of [1, 2, 3, 5, 64]) {
      const pieces = [];
      for (let i = 0; i < body.length; i += size) pieces.push(body.subarray(i, i + size));
      const out: Buffer[] = [];
      for await (const c of dechunk(
        (async function* () {
          yield* pieces;
        })(),
      ))
        out.push(c);
      expect(Buffer.concat(out).toString()).toBe('Wikipedia in \r\nchunks.');
    }
    let warned = 0;
    const out: Buffer[] = [];
    for await (const c of dechunk(
      (async function* () {
        yield Buffer.from('<!doctype html>\nnot chunked');
      })(),
      () => warned++,
    ))
      out.push(c);
    expect(Buffer.concat(out).toString()).toBe('<!doctype html>\nnot chunked');
    expect(warned).toBe(1);
  });
});

/** The raw payload of the record at `offset`, read again from the start. */
async function rawOf(file: string, offset: number): Promise<AsyncIterable<Buffer>> {
  for await (const r of await readArchive(fixture(file))) {
    if (r.offset === offset) {
      const parts: Buffer[] = [];
      for await (const c of r.rawPayload()) parts.push(Buffer.from(c));
      return parts;
    }
    await r.finish();
  }
  throw new Error(`no record at ${offset}`);
}

describe('an HTTP head that runs past its record block', () => {
  it('ends at the block, and the next record is still read', async () => {
    const dir = tempDir();
    const head = 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Long: ' + 'x'.repeat(200) + '\r\n';
    // Content-Length stops inside the header block: no blank line before the block ends.
    const rec1 = `WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\nWARC-Date: 2020-01-01T00:00:00Z\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: 60\r\n\r\n${head.slice(0, 60)}\r\n\r\n`;
    const rec2 = `WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://b.example/\r\nWARC-Date: 2020-01-01T00:00:01Z\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n`;
    const path = join(dir, 'short-head.warc');
    (await import('node:fs')).writeFileSync(path, rec1 + rec2);
    const seen: Array<[string, string | undefined]> = [];
    const issues: string[] = [];
    for await (const r of await readArchive(path, { onIssue: (i) => issues.push(`${i.offset} ${i.reason}`) })) {
      seen.push([r.url, r.http?.status]);
      await r.finish();
    }
    expect(seen).toEqual([
      ['http://a.example/', '200'],
      ['http://b.example/', undefined],
    ]);
    // Read in step: nothing taken for damage.
    expect(issues).toEqual([]);
  });
});
