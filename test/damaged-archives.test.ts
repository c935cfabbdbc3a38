/**
 * Damage of any size (issue: hostile input and damaged archives): each archive is made here
 * by src/tools/damage-kit.ts, indexed by the real `nwax cdx`, and every undamaged record
 * before and after the damage must be indexed with its right digest; the damaged one is
 * reported with the file and its offset, and the exit status says whether anything was skipped.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DAMAGE_KINDS, makeDamaged, page, rng, warcResponse, type DamageKind, type DamagedArchive } from '../src/tools/damage-kit.js';
import { dataLines, nwax, nwaxAsync, tempDir } from './helpers.js';

const dir = tempDir();

function write(a: DamagedArchive, name = a.name): string {
  const path = join(dir, name);
  writeFileSync(path, a.bytes);
  return path;
}

/** url -> digest of the CDX lines. */
function indexed(stdout: string): Map<string, string> {
  return new Map(
    dataLines(stdout).map((l) => {
      const f = l.split(' ');
      return [f[2], f[5]];
    }),
  );
}

function expectRead(a: DamagedArchive, r: { code: number; stdout: string; stderr: string }, path: string): void {
  const got = indexed(r.stdout);
  for (const rec of a.intact) expect(got.get(rec.url), `${a.kind}: ${rec.url}`).toBe(rec.digest);
  expect(r.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
  if (a.skips) {
    expect(r.code).toBe(3);
    for (const url of a.damaged) expect(got.has(url), `${a.kind}: ${url} indexed though damaged`).toBe(false);
    expect(r.stderr).toContain(`${path}: offset `);
    expect(r.stderr).toMatch(/(record|bytes) skipped/);
  } else {
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/(content-length-mismatch|nul-bytes|bad-length); warning/);
  }
}

/** A smaller "big" record and in-memory limit: the same streamed path, a tenth of the bytes. */
const SMALL_WINDOW = ['-D', 'nwax.archive.inflate.max.buffer=1048576', '-D', 'nwax.archive.inflate.window=262144'];

describe('damaged archives: every undamaged record indexed, the damage reported', () => {
  it.each(DAMAGE_KINDS.map((k) => [k]))('%s (small window, three seeds)', async (kind: DamageKind) => {
    for (const seed of [1, 2, 3]) {
      const a = makeDamaged(kind, rng(seed * 101 + kind.length), { bigSize: 3 << 20 });
      const path = write(a, `${seed}-${a.name}`);
      expectRead(a, await nwax(['cdx', ...SMALL_WINDOW, path]), path);
    }
  });

  it('a flipped byte in a 40 MB member (default window): the record skipped with the file and offset, the rest indexed, no hang (defect 3)', async () => {
    const a = makeDamaged('big-flip', rng(7));
    const path = write(a);
    const r = await nwax(['cdx', path]);
    expectRead(a, r, path);
    expect(r.stderr).toMatch(/offset \d+: (corrupt gzip member|gzip member fails its CRC)/);
  });

  it('with --jobs 2 the same file gives the same lines and exit 3, not silence (defect 3)', async () => {
    const a = makeDamaged('big-flip', rng(7));
    const path = write(a, 'jobs-big-flip.warc.gz');
    const clean = makeDamaged('cut-then-good', rng(3));
    const other = write(clean, 'jobs-other.warc.gz');
    const r = await nwax(['cdx', '--jobs', '2', path, other]);
    expect(r.code).toBe(3);
    const got = indexed(
      dataLines(r.stdout)
        .filter((l) => l.endsWith(' jobs-big-flip.warc.gz'))
        .join('\n'),
    );
    for (const rec of a.intact) expect(got.get(rec.url)).toBe(rec.digest);
    expect(got.has('http://example.org/big')).toBe(false);
    expect(dataLines(r.stdout).filter((l) => l.endsWith(' jobs-other.warc.gz')).length).toBe(clean.intact.length);
    expect(r.stderr).toContain(`${path}: offset `);
  });

  it('a bad CRC on a 40 MB member is found (defect 4)', async () => {
    const a = makeDamaged('big-crc', rng(11));
    const path = write(a);
    const r = await nwax(['cdx', path]);
    expectRead(a, r, path);
    expect(r.stderr).toMatch(/fails its CRC-32\/length check .*\(gzip-crc; record skipped\)/);
  });

  it('a Content-Length 40 MB too long in a gzip file loses no later record (defect 5)', async () => {
    const a = makeDamaged('big-lying-length', rng(5));
    const path = write(a);
    expectRead(a, await nwax(['cdx', path]), path);
  });

  it('a member cut short never hides the members after it, streamed or not (defect 6)', async () => {
    for (const seed of [21, 22, 23, 24, 25]) {
      for (const kind of ['cut-then-good', 'big-cut-then-good'] as const) {
        const a = makeDamaged(kind, rng(seed), { bigSize: 8 << 20 });
        const path = write(a, `${seed}-${a.name}`);
        expectRead(a, await nwax(['cdx', ...SMALL_WINDOW, path]), path);
      }
    }
  });

  it('an ARC length off by one to six bytes, gzipped or plain, leaves the next record whole, and a short one is read as declared (defect 7)', async () => {
    for (const seed of [31, 32, 33, 34, 35, 36]) {
      for (const kind of ['arc-gz-off-by-n', 'arc-off-by-n', 'warc-off-by-n', 'warc-gz-off-by-n'] as const) {
        const a = makeDamaged(kind, rng(seed));
        const path = write(a, `${seed}-${a.name}`);
        const r = await nwax(['cdx', path]);
        const got = indexed(r.stdout);
        for (const rec of a.intact) expect(got.get(rec.url), `${kind} seed ${seed}: ${rec.url}`).toBe(rec.digest);
        expect([...got.keys()].every((u) => u.startsWith('http://example.org/'))).toBe(true);
      }
    }
  });

  it('a gzipped WARC record whose Content-Length is off by 1 to 6 keeps its digest and says so, its page ending in a newline or not', async () => {
    for (const newline of [false, true]) {
      const body = Buffer.concat([page(1500, 'odd'), Buffer.from(newline ? '\n' : '')]);
      for (const lie of [-6, -3, -1, 1, 2, 3, 5]) {
        const records = [
          warcResponse('http://example.org/a', page(700, 'a'), 0),
          warcResponse('http://example.org/odd', body, 1, lie),
          warcResponse('http://example.org/b', page(700, 'b'), 2),
        ];
        const path = join(dir, `gz-lie${lie}-${newline}.warc.gz`);
        writeFileSync(path, Buffer.concat(records.map((r) => gzipSync(r.bytes))));
        const r = await nwax(['cdx', path]);
        const tag = `lie ${lie}, newline ${newline}`;
        expect(r.code, `${tag}: ${r.stderr}`).toBe(0);
        for (const rec of records) expect(indexed(r.stdout).get(rec.url), `${tag}: ${rec.url}`).toBe(rec.digest);
        // Never silent: the message names the length and what was read.
        expect(r.stderr, tag).toMatch(/offset \d+: Content-Length \d+[^\n]*; read to (there|the end of its member) \(content-length-mismatch; warning\)/);
      }
    }
  });

  it('garbage without a newline right before a record in a plain file loses only the garbage (defect 8)', async () => {
    for (const seed of [41, 42, 43, 44]) {
      const a = makeDamaged('garbage-no-newline', rng(seed));
      const path = write(a, `${seed}-${a.name}`);
      const r = await nwax(['cdx', path]);
      expectRead(a, r, path);
      expect(r.stderr).toMatch(/not-a-record; bytes skipped/);
    }
  });

  it('import of a file with a damaged 40 MB member ends (exit 3) and imports the rest (defect 3)', async () => {
    const a = makeDamaged('big-flip', rng(9));
    const path = write(a, 'import-big-flip.warc.gz');
    const manifest = join(dir, 'manifest.txt');
    writeFileSync(manifest, `${path}\n`);
    const seg = join(dir, 'segment');
    const r = await nwaxAsync(['import', manifest, seg]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${path}: offset`);
    const list = await nwax(['readseg', '-list', seg]);
    expect(list.stdout).toMatch(new RegExp(`${a.intact.length}`));
  });
});
