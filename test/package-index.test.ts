/**
 * A package's index above its plain size: gzip members of 1024 lines, each one decompressible
 * alone where its summary line says it lies, the summary's keys each member's first, and the
 * members together the sorted lines; the plain form below. Read back with yauzl and zlib, not
 * with nwax's own readers.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { tempDir } from './helpers.js';
import { zipEntry } from './zip-entry.js';
import { ZipWriter } from '../src/export/zip-writer.js';
import { LINES_PER_BLOCK, writePackageIndex } from '../src/export/package-index.js';

/** Sorted CDXJ lines in batches of uneven sizes, as the external sort gives them. */
async function* batches(lines: string[]): AsyncGenerator<string[]> {
  for (let i = 0, size = 7; i < lines.length; i += size, size = (size * 13) % 997 || 1) yield lines.slice(i, i + size);
}

const LINES = Array.from(
  { length: 2500 },
  (_, i) =>
    `com,example)/p${String(i).padStart(5, '0')} 2020010100${String(i % 10000).padStart(4, '0')} {"url": "http://example.com/p${i}", "offset": "${i * 100}"}`,
);

async function written(lines: string[], plainMax: number) {
  const path = join(tempDir(), 'index.zip');
  const zip = new ZipWriter(path);
  const files = await writePackageIndex(zip, batches(lines), plainMax);
  zip.finish();
  return { path, files };
}

describe('the package index', () => {
  it('is gzip members of 1024 lines and a summary of where each lies, above its plain size', async () => {
    const { path, files } = await written(LINES, 1024);
    expect(files.map((f) => f.path)).toEqual(['indexes/index.cdx.gz', 'indexes/index.idx']);
    const gz = await zipEntry(path, 'indexes/index.cdx.gz');
    const idx = (await zipEntry(path, 'indexes/index.idx')).toString().trim().split('\n');
    expect(idx[0]).toBe('!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}');
    const blocks = idx
      .slice(1)
      .map((l) => ({ prefix: l.slice(0, l.indexOf(' {')), ...(JSON.parse(l.slice(l.indexOf(' {'))) as { offset: number; length: number }) }));
    expect(blocks).toHaveLength(Math.ceil(LINES.length / LINES_PER_BLOCK));
    let next = 0;
    const back: string[] = [];
    for (const b of blocks) {
      expect(b.offset).toBe(next);
      next += b.length;
      const member = gunzipSync(gz.subarray(b.offset, b.offset + b.length))
        .toString()
        .trim()
        .split('\n');
      // The summary names each member by its first line's key and timestamp.
      expect(b.prefix).toBe(member[0].split(' ').slice(0, 2).join(' '));
      back.push(...member);
    }
    expect(next).toBe(gz.length);
    expect(back).toEqual(LINES);
    expect(back.slice(0, LINES_PER_BLOCK).length).toBe(1024);
    // datapackage.json's hashes and sizes are the entries' own.
    expect(files[0]).toMatchObject({ bytes: gz.length });
    expect(files[0].hash.digest('hex')).toBe(createHash('sha256').update(gz).digest('hex'));
  });

  it('is one plain CDXJ up to its plain size', async () => {
    const { path, files } = await written(LINES.slice(0, 1024), 1024);
    expect(files.map((f) => f.path)).toEqual(['indexes/index.cdx']);
    expect((await zipEntry(path, 'indexes/index.cdx')).toString()).toBe(`${LINES.slice(0, 1024).join('\n')}\n`);
    const one = await written(LINES.slice(0, 1025), 1024);
    expect(one.files.map((f) => f.path)).toEqual(['indexes/index.cdx.gz', 'indexes/index.idx']);
  });
});
