/**
 * gzip files inflated on the calling thread (util/gunzip-sync.ts), by the inflate kernel
 * (libdeflate) where it is built and by node:zlib under NWAX_NATIVE=0, held to node:zlib's own
 * gunzip: members one after another, member ends at every read boundary, zero padding after
 * the last member, data that is cut short, corrupt or followed by garbage, header CRCs, members
 * larger than the buffers.
 */
import { describe, expect, it } from 'vitest';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { crc32, gunzipSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { GunzipError, gunzipChunksSync, gunzipsSync } from '../src/util/gunzip-sync.js';
import { lineChunks } from '../src/mapreduce/line-reader.js';
import { RecordFileWriter } from '../src/mapreduce/record-file.js';
import { seededRandom, tempDir } from './helpers.js';

const dir = tempDir();

/** gunzipChunksSync of `bytes` written to a file, chunks joined; or the error's code. */
function inflated(bytes: Buffer, chunkBytes: number): Buffer | string {
  const path = join(dir, 'in.gz');
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r');
  try {
    const out: Buffer[] = [];
    for (const c of gunzipChunksSync(fd, chunkBytes)) out.push(Buffer.from(c));
    return Buffer.concat(out);
  } catch (err) {
    if (!(err instanceof GunzipError)) throw err;
    return err.code;
  } finally {
    closeSync(fd);
  }
}

/** zlib.gunzipSync of the same bytes, or its error's code. */
function oracle(bytes: Buffer): Buffer | string {
  try {
    return gunzipSync(bytes);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code!;
  }
}

describe.skipIf(!gunzipsSync)('gzip inflated on the calling thread', () => {
  const rand = seededRandom(11);
  const text = (n: number) => Buffer.from(Array.from({ length: n }, () => 'abcdefgh \n\u00e9'[Math.floor(rand() * 11)]).join(''));
  const members = [text(5000), text(1), text(70000), Buffer.alloc(0), text(300)];
  const joined = Buffer.concat(members.map((m) => gzipSync(m, { level: 3 })));

  it("gives node:zlib's bytes for members one after another, whatever the read size", () => {
    for (const chunk of [1, 7, 64, 1000, 4093, 1 << 20]) expect(inflated(joined, chunk), `reads of ${chunk}`).toEqual(Buffer.concat(members));
  });

  it('ends where node:zlib ends: zero padding after the last member is not data', () => {
    const padded = Buffer.concat([joined, Buffer.alloc(100)]);
    for (const chunk of [10, 1 << 20]) expect(inflated(padded, chunk)).toEqual(oracle(padded));
  });

  it('throws what node:zlib throws for data cut short, corrupt, or followed by garbage', () => {
    const corrupt = Buffer.from(joined);
    // A byte inside the third member's deflate data.
    corrupt[gzipSync(members[0], { level: 3 }).length + gzipSync(members[1], { level: 3 }).length + 2000] ^= 0xff;
    const cases = {
      cut: joined.subarray(0, joined.length - 100),
      'cut in the header': joined.subarray(0, 5),
      corrupt,
      garbage: Buffer.concat([joined, Buffer.from('garbage')]),
    };
    for (const [name, bytes] of Object.entries(cases)) {
      const want = oracle(bytes);
      expect(typeof want, name).toBe('string');
      for (const chunk of [13, 1 << 20]) expect(inflated(bytes, chunk), `${name}, reads of ${chunk}`).toBe(want);
    }
  });

  it('reads a gzip part into the same line chunks, and names where one is cut', async () => {
    const lines = Array.from({ length: 30000 }, (_, i) => `key ${i}\t{"n":${i},"s":"caf\u00e9"}`).join('\n');
    const path = join(dir, 'part-00000.gz');
    writeFileSync(path, Buffer.concat([gzipSync(lines.slice(0, 200000)), gzipSync(lines.slice(200000))]));
    const got: Buffer[] = [];
    for await (const c of lineChunks(path)) {
      expect(c[c.length - 1]).toBe(0x0a);
      got.push(Buffer.from(c));
    }
    expect(Buffer.concat(got).toString()).toBe(`${lines}\n`);
    writeFileSync(path, gzipSync(lines).subarray(0, 50000));
    let n = 0;
    await expect(
      (async () => {
        for await (const c of lineChunks(path, () => n)) n += c.toString().split('\n').length - 1;
      })(),
    ).rejects.toThrow(/part-00000\.gz: after line \d+: corrupt or cut-short gzip data \(unexpected end of file\)/);
  });
});

/** The same bytes, or the same error code (Buffer.equals: a deep compare of megabytes is slow). */
function sameAs(got: Buffer | string, want: Buffer | string): void {
  if (typeof got === 'string' || typeof want === 'string') expect(got).toEqual(want);
  else expect(got.length === want.length && got.equals(want), `${got.length} bytes, ${want.length} wanted`).toBe(true);
}

describe.skipIf(!gunzipsSync)('gzip members the inflate kernel leaves to node:zlib, or takes whole', () => {
  const rand = seededRandom(5);
  const words = (n: number) => Array.from({ length: n }, () => ['web', 'archive', 'caf\u00e9', '\u6771\u4eac', 'x'][Math.floor(rand() * 5)]).join(' ');

  /** `member` with FHCRC set and the header's CRC-16 after it (`wrong`: a CRC that does not match). */
  function withHeaderCrc(member: Buffer, wrong = false): Buffer {
    const head = Buffer.from(member.subarray(0, 10));
    head[3] |= 0x02;
    const crc = Buffer.alloc(2);
    crc.writeUInt16LE((crc32(head) & 0xffff) ^ (wrong ? 1 : 0));
    return Buffer.concat([head, crc, member.subarray(10)]);
  }

  it("gives node:zlib's bytes and errors for header CRCs, which zlib checks", () => {
    const a = gzipSync(words(2000));
    const b = gzipSync(words(3000));
    for (const bytes of [Buffer.concat([a, withHeaderCrc(b), a]), Buffer.concat([a, withHeaderCrc(b, true), a])])
      for (const chunk of [64, 1 << 20]) sameAs(inflated(bytes, chunk), oracle(bytes));
    expect(typeof oracle(Buffer.concat([a, withHeaderCrc(b, true)]))).toBe('string');
  });

  it('takes members larger than its buffers, and an empty file as node:zlib does', () => {
    const big = Buffer.concat([gzipSync(words(1000)), gzipSync(words(150_000)), gzipSync(words(10))]);
    for (const chunk of [1000, 4096, 1 << 20]) sameAs(inflated(big, chunk), oracle(big));
    expect(inflated(Buffer.alloc(0), 4096)).toEqual(oracle(Buffer.alloc(0)));
  });

  it('reads a record file of many blocks as node:zlib does, cut at any byte', () => {
    const path = join(dir, 'blocks.gz');
    const w = new RecordFileWriter(path);
    for (let i = 0; i < 3000; i++) w.append(`http://example.com/${String(i).padStart(5, '0')} sha1:${i}`, words(40));
    w.close();
    const bytes = readFileSync(path);
    for (const chunk of [777, 1 << 16]) sameAs(inflated(bytes, chunk), oracle(bytes));
    for (const cut of [1, 1000, Math.floor(bytes.length / 2), bytes.length - 3]) sameAs(inflated(bytes.subarray(0, cut), 4096), oracle(bytes.subarray(0, cut)));
  });
});
