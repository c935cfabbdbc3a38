/**
 * The capture index is part of the segment's commit (issue: nothing lies): import writes
 * captures.cdx into the segment it writes aside, before the rename, so a kill leaves the old
 * segment or the new one with its capture index, never a finished segment that replays
 * nothing. A segment without one (an older import, --cdx, Hadoop) is named by readseg and
 * serve with the command that writes it, and that command gives the index import writes.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, nwax, serveCli, tempDir } from './helpers.js';
import { warcResponse, page } from '../src/tools/damage-kit.js';
import { pipeline } from './example-pipeline.js';

const dir = tempDir();

/** A plain WARC of `n` small responses: enough that sorting its capture index takes a while. */
function archive(name: string, n: number): string {
  const path = join(dir, name);
  const records = Array.from({ length: n }, (_, i) => warcResponse(`http://example.org/${name}/page-${i}`, page(200, `${name} ${i}`), i).bytes);
  writeFileSync(path, Buffer.concat(records));
  return path;
}

function manifest(name: string, archives: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${archives.join('\n')}\n`);
  return path;
}

const captureLines = (seg: string) =>
  readFileSync(join(seg, 'captures.cdx'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith(' CDX')).length;

/** Starts an import, SIGKILLs it when `ready()` holds; whether it was killed (not finished first). */
async function importKilledWhen(args: string[], ready: () => boolean): Promise<boolean> {
  const child = spawn(process.execPath, [BIN, 'import', ...args], { stdio: 'ignore' });
  const exited = new Promise<string | null>((r) => child.once('exit', (_c, sig) => r(sig)));
  let done = false;
  void exited.then(() => (done = true));
  while (!done && !ready()) await new Promise((r) => setTimeout(r, 2));
  child.kill('SIGKILL');
  return (await exited) === 'SIGKILL';
}

describe('the capture index is committed with its segment', () => {
  it('a kill at any point of an import leaves the previous segment or a whole new one, with its capture index', async () => {
    const small = manifest('small.txt', [archive('small.warc', 50)]);
    const large = manifest('large.txt', [archive('large.warc', 30_000)]);
    const seg = join(dir, 'seg');
    expect((await nwax(['import', small, seg])).code).toBe(0);
    expect(captureLines(seg)).toBe(50);
    const first = statSync(join(seg, '_SUCCESS')).ino;
    // Killed while the new segment is written aside: the previous one stands, capture index and all.
    const aside = () => readdirSync(dir).some((n) => n.startsWith('.seg.tmp-') && existsSync(join(dir, n, 'content')));
    expect(await importKilledWhen([large, seg], aside)).toBe(true);
    expect(statSync(join(seg, '_SUCCESS')).ino).toBe(first);
    expect(captureLines(seg)).toBe(50);
    // Killed the moment the new segment is in place: its capture index is already there, whole.
    const replaced = () => {
      try {
        return statSync(join(seg, '_SUCCESS')).ino !== first;
      } catch {
        return false;
      }
    };
    await importKilledWhen([large, seg], replaced);
    expect(replaced()).toBe(true);
    expect(captureLines(seg)).toBe(30_000);
    expect(readdirSync(seg).filter((n) => n.includes('.tmp-'))).toEqual([]);
  }, 120_000);

  it('a segment without its capture index is named by readseg and serve, and --captures-only writes the one import writes', async () => {
    const crawl = join(dir, 'crawl');
    await pipeline(crawl, manifest('example.txt', [join(__dirname, '..', 'fixtures', 'example', 'dedup-example.warc.gz')]));
    const seg = join(crawl, 'segments', '20200101000000');
    const written = readFileSync(join(seg, 'captures.cdx'), 'utf8');
    renameSync(join(seg, 'captures.cdx'), join(dir, 'captures.cdx.saved'));
    const list = await nwax(['readseg', '-list', seg]);
    expect(list.code).toBe(0);
    expect(list.stderr).toContain(
      `${seg}: no capture index (captures.cdx): replay finds its captures only through nwax.serve.cdx; write it with: nwax import --captures-only MANIFEST ${seg}`,
    );
    const srv = await serveCli(['-dir', crawl, '--port', '0', '-D', 'nwax.serve.threads=1']);
    try {
      expect(srv.stderr()).toContain(`replay: ${seg}: no capture index (captures.cdx)`);
    } finally {
      await srv.close();
    }
    rmSync(join(seg, 'captures.archives'));
    const r = await nwax(['import', '--captures-only', join(dir, 'example.txt'), seg]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(seg, 'captures.cdx'), 'utf8')).toBe(written);
    expect(existsSync(join(seg, 'captures.archives'))).toBe(true);
    expect((await nwax(['readseg', '-list', seg])).stderr).not.toContain('no capture index');
  }, 120_000);
});

describe('a kill between the two renames of a commit', () => {
  it('leaves the previous segment aside, put back by the next reader or writer', async () => {
    const small = manifest('again.txt', [archive('again.warc', 20)]);
    const seg = join(dir, 'seg-aside');
    expect((await nwax(['import', small, seg])).code).toBe(0);
    // As a writer killed after moving the current version aside, before moving its own in.
    renameSync(seg, `${seg}.old`);
    const list = await nwax(['readseg', '-list', seg]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/seg-aside\s+\?\s+\S+\s+\S+\s+20\s+20/);
    expect(existsSync(join(seg, 'captures.cdx'))).toBe(true);
    renameSync(seg, `${seg}.old`);
    expect((await nwax(['import', small, seg])).code).toBe(0);
    expect(existsSync(`${seg}.old`)).toBe(false);
    expect(captureLines(seg)).toBe(20);
  });
});

describe('--captures-only on bad input', () => {
  it('names a truncated, a garbage and a missing archive with file and offset, keeps the good ones, exits 3', async () => {
    const good = archive('good.warc', 5);
    const seg = join(dir, 'seg-bad');
    expect((await nwax(['import', manifest('good.txt', [good]), seg])).code).toBe(0);
    const whole = readFileSync(good);
    const cut = join(dir, 'cut.warc');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const junk = join(dir, 'junk.warc');
    writeFileSync(junk, Buffer.from('no archive here\n'.repeat(50)));
    const r = await nwax(['import', '--captures-only', manifest('bad.txt', [good, cut, junk, join(dir, 'gone.warc')]), seg]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`${cut.replace(/[.]/g, '\\.')}: offset \\d+: .*record skipped`));
    expect(r.stderr).toContain(`${junk}: offset 0: not an ARC or WARC file`);
    expect(r.stderr).toContain(`${join(dir, 'gone.warc')}: no such file; its captures are left out`);
    expect(r.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
    // The good archive's five and the cut one's whole records before the cut.
    expect(captureLines(seg)).toBeGreaterThanOrEqual(5);
  });
});
