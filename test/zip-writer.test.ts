/**
 * The ZIP writer of WACZ exports (src/export/zip-writer.ts), read back by yauzl (the reader nwax
 * opens packages with, and a check of every size and offset) and, where it is installed, by
 * Info-ZIP's `unzip -t` (every CRC-32): entries streamed stored and deflated, entries made
 * beforehand (deflated, or at level 0 stored), small ones; in 32-bit records and in ZIP64's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { ZipWriter } from '../src/export/zip-writer.js';
import { seededRandom, tempDir } from './helpers.js';

interface Read {
  name: string;
  method: number;
  crc: number;
  size: number;
  compressedSize: number;
  dataStart: number;
  descriptor: boolean;
  data: Buffer;
}

/** Every entry as yauzl reads it: its central directory record, where its data starts, its bytes. */
function readZip(path: string): Promise<Read[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out: Read[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        zip.readLocalFileHeader(e, { minimal: true }, (err2, header) => {
          if (err2) return reject(err2);
          zip.openReadStream(e, (err3, stream) => {
            if (err3) return reject(err3);
            const parts: Buffer[] = [];
            stream.on('data', (c: Buffer) => parts.push(c));
            stream.on('error', reject);
            stream.on('end', () => {
              out.push({
                name: e.fileName,
                method: e.compressionMethod,
                crc: e.crc32,
                size: e.uncompressedSize,
                compressedSize: e.compressedSize,
                dataStart: (header as { fileDataStart: number }).fileDataStart,
                descriptor: (e.generalPurposeBitFlag & 8) !== 0,
                data: Buffer.concat(parts),
              });
              zip.readEntry();
            });
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** Text that deflates (words), `n` bytes of it. */
function words(n: number, seed: number): Buffer {
  const rand = seededRandom(seed);
  const vocab = ['archive', 'record', 'capture', 'web', 'page', 'the', 'of', 'nwax', 'index', 'search', '\n'];
  let s = '';
  while (s.length < n) s += `${vocab[Math.floor(rand() * vocab.length)]} `;
  return Buffer.from(s.slice(0, n));
}

/** A package of every kind of entry, written to `path`; what each entry holds. */
async function writeAll(path: string, opts: { forceZip64?: boolean } = {}): Promise<Map<string, Buffer>> {
  const want = new Map<string, Buffer>();
  const zip = new ZipWriter(path, opts);
  // Stored, written through in pieces (the export's WARC).
  const warc = Buffer.concat([words(100_000, 1), Buffer.from([0, 1, 2, 255, 0x50, 0x4b, 3, 4])]);
  await zip.stored('archive/data.warc.gz', async (sink) => {
    for (let at = 0; at < warc.length; at += 7_777) sink.write(warc.subarray(at, at + 7_777));
    expect(sink.size).toBe(warc.length);
  });
  want.set('archive/data.warc.gz', warc);
  // Streamed in at level 1 and at level 0 (stored: pages.jsonl at nwax.export.pages.level=0).
  for (const level of [1, 0]) {
    const pages = words(300_000, 2 + level);
    await zip.deflated(`pages/pages-${level}.jsonl`, level, async (sink) => {
      for (let at = 0; at < pages.length; at += 65_536) await sink.write(pages.subarray(at, at + 65_536));
    });
    want.set(`pages/pages-${level}.jsonl`, pages);
  }
  // Deflated as it is streamed in (the index).
  const index = words(50_000, 9);
  await zip.deflated('indexes/index.cdx', 6, async (sink) => {
    await sink.write(index.subarray(0, 10));
    await sink.write(index.subarray(10));
  });
  want.set('indexes/index.cdx', index);
  // Small ones, one of them empty, one named in UTF-8.
  zip.buffer('datapackage.json', Buffer.from('{"profile":"data-package"}\n'));
  zip.buffer('empty', Buffer.alloc(0));
  zip.buffer('pages/été.txt', Buffer.from('été\n'));
  want.set('datapackage.json', Buffer.from('{"profile":"data-package"}\n'));
  want.set('empty', Buffer.alloc(0));
  want.set('pages/été.txt', Buffer.from('été\n'));
  zip.finish();
  return want;
}

const haveUnzip = spawnSync('unzip', ['-v']).status === 0;

describe('ZipWriter', () => {
  for (const forceZip64 of [false, true]) {
    it(`writes entries yauzl${haveUnzip ? ' and unzip -t' : ''} read back whole${forceZip64 ? ', in ZIP64 records' : ''}`, async () => {
      const dir = tempDir();
      const path = join(dir, 'out.zip');
      const want = await writeAll(path, { forceZip64 });
      const read = await readZip(path);
      expect(read.map((e) => e.name)).toEqual([...want.keys()]);
      const file = readFileSync(path);
      for (const e of read) {
        const data = want.get(e.name)!;
        expect(e.data.equals(data), e.name).toBe(true);
        expect(e.size, e.name).toBe(data.length);
        expect(e.crc, e.name).toBe(crc32(data));
        // The stored ones are where the local header says: what a WACZ reader reads by offset.
        const raw = file.subarray(e.dataStart, e.dataStart + e.compressedSize);
        expect((e.method === 0 ? raw : inflateRawSync(raw)).equals(data), e.name).toBe(true);
      }
      // Sizes and CRC-32 after the data where they were not known before it.
      expect(read.filter((e) => e.descriptor).map((e) => e.name)).toEqual([
        'archive/data.warc.gz',
        'pages/pages-1.jsonl',
        'pages/pages-0.jsonl',
        'indexes/index.cdx',
      ]);
      expect(read.find((e) => e.name === 'pages/pages-0.jsonl')!.method).toBe(0);
      expect(read.find((e) => e.name === 'pages/pages-1.jsonl')!.method).toBe(8);
      // ZIP64's end of central directory record where forced, none where not needed.
      expect(file.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(forceZip64);
      if (haveUnzip) expect(execFileSync('unzip', ['-t', path]).toString()).toMatch(/No errors detected/);
    });
  }
});
