import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import zlib from 'node:zlib';
import { Inflater } from '../src/archive/inflater.js';
import { HAVE_FIXTURES, fixture } from './helpers.js';

describe.skipIf(!HAVE_FIXTURES)('the reused inflater', () => {
  it('gives what inflateRawSync gives for every member of a real file, with the bytes used', () => {
    const file = readFileSync(fixture('pywb/iana.warc.gz'));
    const inflater = new Inflater();
    let pos = 0;
    let members = 0;
    while (pos < file.length) {
      const body = file.subarray(pos + 10);
      const ref = zlib.inflateRawSync(body, { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      // A deliberately small size hint: the output must grow across buffers.
      const r = inflater.inflate(body, 100, 32 << 20);
      expect(r.code).toBeUndefined();
      expect(r.out!.equals(ref.buffer)).toBe(true);
      expect(r.consumed).toBe(ref.engine.bytesWritten);
      pos += 10 + r.consumed + 8;
      members++;
    }
    expect(members).toBe(343);
  });

  it('reports truncated and corrupt input with zlib codes, and works on after them', () => {
    const data = Buffer.from('the quick brown fox '.repeat(500));
    const member = zlib.deflateRawSync(data);
    const inflater = new Inflater();
    expect(inflater.inflate(member.subarray(0, member.length >> 1), 4096, 1 << 20).code).toBe('Z_BUF_ERROR');
    const bad = Buffer.from(member);
    bad.fill(0xff, 2, 12);
    expect(inflater.inflate(bad, 4096, 1 << 20).code).toBe('Z_DATA_ERROR');
    expect(inflater.inflate(member, 4096, 100).code).toBe('ERR_BUFFER_TOO_LARGE');
    const ok = inflater.inflate(Buffer.concat([member, Buffer.from('trailing bytes')]), 10000, 1 << 20);
    expect(ok.out!.equals(data)).toBe(true);
    expect(ok.consumed).toBe(member.length);
  });
});
