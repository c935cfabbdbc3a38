/**
 * `nwax export-wacz`: a collection, or the versions a query finds, as a WACZ package. Checked
 * by reading the package back: nwax verifies its hashes and indexes it; its own index is the
 * CDX of its WARC; its records are the source archives' bytes; its pages list titles and
 * text; imported and indexed again it answers queries as the collection it came from.
 * On ReplayWeb.page's example package (imported first) and on the worked example's plain WARC.
 */
import { describe, expect, it } from 'vitest';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FIXTURES, HAVE_FIXTURES, ROOT, nwax, tempDir } from './helpers.js';
import { zipEntry } from './zip-entry.js';
import { waczProblems } from './wacz-validate.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';

const WACZ = join(FIXTURES, 'wacz');
if (!HAVE_FIXTURES) console.log('wacz-export.test: skipped: no ../shared/fixtures');

function bytesAt(file: string, offset: number, length: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(length);
    readSync(fd, b, 0, length, offset);
    return b;
  } finally {
    closeSync(fd);
  }
}

const ok = async (args: string[], codes = [0]) => {
  const r = await nwax(args);
  expect(codes, `nwax ${args.join(' ')}: ${r.stderr}`).toContain(r.code);
  return r;
};

/** The pipeline over one archive into `crawl`. */
async function crawlOf(archive: string, crawl: string, collection: string) {
  const manifest = `${crawl}.manifest`;
  writeFileSync(manifest, `${archive} ${collection}\n`);
  const seg = join(crawl, 'segments', '20220916000000');
  await ok(['import', manifest, seg]);
  await ok(['updatedb', join(crawl, 'crawldb'), seg]);
  await ok(['invertlinks', join(crawl, 'linkdb'), seg]);
  await ok(['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg]);
}

type Hit = { url: string; digest: string; title: string; dates: string[] };
const hitsOf = async (dir: string, q: string) =>
  (JSON.parse((await ok(['search', '--json', '--hits', '50', '--dir', dir, q])).stdout).hits as Hit[]).map((h) => [h.url, h.digest, h.title]).sort();

describe.skipIf(!HAVE_FIXTURES)('export-wacz', () => {
  const dir = tempDir();

  it('writes a collection as a package nwax reads back: hashes, its own index, the source records byte for byte, pages, the same answers', async () => {
    const crawl = join(dir, 'crawl');
    await crawlOf(join(WACZ, 'example.wacz'), crawl, 'webrecorder');
    const out = join(dir, 'all.wacz');
    const r = await ok(['export-wacz', out, '-dir', crawl]);
    // Every capture of the collection (here each one a document: images are indexed too), one of
    // them a page (its home page; the rest its images, stylesheets and scripts).
    expect(r.stderr).toMatch(/all\.wacz: 1 pages and 13 other versions, 0 other captures, 14 records/);
    // Read back: datapackage-digest.json and every SHA-256 checked (exit 0), every capture indexed.
    const back = await ok(['cdx', '-f', 'cdxj', out]);
    const lines = back.stdout.trim().split('\n');
    expect(lines).toHaveLength(14);
    // The package's own index is the CDX of its WARC, sorted in byte order.
    const index = (await zipEntry(out, 'indexes/index.cdx')).toString().trim().split('\n');
    const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    expect(index).toEqual(lines.map((l) => l.replace('all.wacz#archive/data.warc.gz', 'data.warc.gz')).sort(byBytes));
    // Each record is the source's bytes: the same gzip member at another offset.
    const src = (await ok(['cdx', '-f', 'cdxj', join(WACZ, 'example.wacz')])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))));
    const warc = join(dir, 'exported.warc.gz');
    writeFileSync(warc, await zipEntry(out, 'archive/data.warc.gz'));
    const original = join(dir, 'original.warc.gz');
    writeFileSync(original, await zipEntry(join(WACZ, 'example.wacz'), 'archive/data.warc.gz'));
    for (const l of lines) {
      const e = JSON.parse(l.slice(l.indexOf('{')));
      const s = src.find((x) => x.url === e.url && x.digest === e.digest)!;
      expect(bytesAt(warc, Number(e.offset), Number(e.length)).equals(bytesAt(original, Number(s.offset), Number(s.length))), e.url).toBe(true);
    }
    // pages.jsonl: the list's header, then a page per version with its title and text.
    const pages = (await zipEntry(out, 'pages/pages.jsonl'))
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(pages[0]).toMatchObject({ format: 'json-pages-1.0', id: 'pages' });
    // Pages that are pages: the HTML one, not its images, stylesheets or scripts.
    expect(pages.slice(1).map((p) => p.url)).toEqual(['https://webrecorder.net/']);
    const home = pages.find((p) => p.url === 'https://webrecorder.net/');
    expect(home).toMatchObject({ ts: '2022-09-16T19:15:07Z', title: 'Webrecorder' });
    expect(home.text).toContain('Web archiving for all!');
    const datapackage = JSON.parse((await zipEntry(out, 'datapackage.json')).toString());
    expect(datapackage).toMatchObject({ profile: 'data-package', wacz_version: '1.1.1' });
    expect(datapackage.resources.map((x: { path: string }) => x.path).sort()).toEqual(['archive/data.warc.gz', 'indexes/index.cdx', 'pages/pages.jsonl']);
    // With the index a large package has (gzip members and their summary): hashes checked, and
    // `import --cdx` reads the records that index lists.
    const gz = join(dir, 'all-gz.wacz');
    await ok(['export-wacz', gz, '-dir', crawl, '-D', 'nwax.export.index.plain.max=0']);
    const gzPackage = JSON.parse((await zipEntry(gz, 'datapackage.json')).toString());
    expect(gzPackage.resources.map((x: { path: string }) => x.path).sort()).toEqual([
      'archive/data.warc.gz',
      'indexes/index.cdx.gz',
      'indexes/index.idx',
      'pages/pages.jsonl',
    ]);
    expect((await ok(['cdx', '-f', 'cdxj', gz])).stdout.trim().split('\n')).toHaveLength(14);
    // Both forms pass py-wacz's `wacz validate` rules; a package changed after it was written does not.
    expect(await waczProblems(out)).toEqual([]);
    expect(await waczProblems(gz)).toEqual([]);
    const changed = join(dir, 'changed.wacz');
    const bytes = readFileSync(out);
    // (A gzip member's OS byte in the stored WARC.)
    bytes[bytes.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), bytes.indexOf('archive/data.warc.gz')) + 9] ^= 1;
    writeFileSync(changed, bytes);
    expect(await waczProblems(changed)).toEqual([expect.stringMatching(/^archive\/data\.warc\.gz: hash sha256:[0-9a-f]{64}, datapackage\.json says sha256:/)]);
    const byIndex = await ok(['import', '--cdx', gz, join(dir, 'by-gz-index')]);
    expect(byIndex.stderr).toMatch(/14 records/);
    // Imported again, the package answers as the collection it came from.
    const again = join(dir, 'again');
    await crawlOf(out, again, 'webrecorder');
    for (const q of ['webrecorder', 'archiving tools', 'url:https://webrecorder.net/assets/main.css']) {
      expect(await hitsOf(again, q), q).toEqual(await hitsOf(crawl, q));
    }
  });

  it("writes the versions a query finds with what their pages embed, and a plain WARC's records as gzip members", async () => {
    const crawl = join(dir, 'crawl');
    const out = join(dir, 'query.wacz');
    const r = await ok(['export-wacz', out, '-dir', crawl, 'web', 'archiving', 'for', 'all']);
    // The page, and an image it shows among those words (found by the words around it).
    expect(r.stderr).toMatch(/query\.wacz: 1 pages and 1 other versions, 0 captures at the versions' other dates, (\d+) embedded resources/);
    const urls = (await ok(['cdx', '-f', 'cdxj', out])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))).url as string);
    expect(urls).toContain('https://webrecorder.net/');
    // The page's stylesheet and images came with it.
    expect(urls).toContain('https://webrecorder.net/assets/main.css');
    expect(urls.filter((u) => u.endsWith('.png')).length).toBeGreaterThan(0);
    // Every version the query finds, however many, not the first page of ranked hits.
    const images = JSON.parse((await ok(['search', '--json', '--hits', '1', '--dir', crawl, 'type:image'])).stdout).total as number;
    expect(images).toBeGreaterThan(3);
    const img = await ok(['export-wacz', join(dir, 'images.wacz'), '-dir', crawl, '--no-resources', 'type:image']);
    expect(img.stderr).toContain(
      `images.wacz: 0 pages and ${images} other versions, 0 captures at the versions' other dates, 0 embedded resources (0 not in the archive), ${images} records`,
    );
    // What the access rules withhold from the public leaves on no route: a blocked stylesheet is
    // neither a page nor a capture of the collection's package.
    const rules = join(dir, 'rules.aclj');
    writeFileSync(rules, 'net,webrecorder)/assets/main.css - {"access": "block"}\n');
    const held = join(dir, 'held.wacz');
    const h = await ok(['export-wacz', held, '-dir', crawl, '-D', `nwax.access.rules=${rules}`]);
    expect(h.stderr).toMatch(/held\.wacz: 1 pages and 12 other versions, 0 other captures, 13 records/);
    const heldUrls = (await ok(['cdx', '-f', 'cdxj', held])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))).url as string);
    expect(heldUrls).toHaveLength(13);
    expect(heldUrls).not.toContain('https://webrecorder.net/assets/main.css');
    expect((await zipEntry(held, 'pages/pages.jsonl')).toString()).not.toContain('main.css');
    // Bad input: named, no stack, nothing left behind.
    const badOut = await nwax(['export-wacz', join(dir, 'no-dir', 'x.wacz'), '-dir', crawl]);
    expect(badOut.code).toBe(1);
    expect(badOut.stderr).toMatch(/no-dir\/x\.wacz: \S*no-dir: no such file/);
    const broken = join(dir, 'broken');
    mkdirSync(join(broken, 'indexes'), { recursive: true });
    writeFileSync(join(broken, 'indexes', 'part-00000'), readFileSync(join(crawl, 'indexes', 'part-00000')).subarray(0, 20000));
    const bad = await nwax(['export-wacz', join(dir, 'broken.wacz'), '-dir', broken]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/broken\/indexes\/part-00000: not an nwax index/);
    for (const r of [badOut, bad]) expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
    expect(readdirSync(dir).filter((f) => f.startsWith('.nwax-export-') || f === 'broken.wacz')).toEqual([]);
    const none = await nwax(['export-wacz', join(dir, 'none.wacz'), '-dir', crawl, 'zzzzqqqxxy']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('zzzzqqqxxy: no version found to export');

    // The worked example's plain WARC: its records gzipped one by one, the same captures.
    const plain = join(dir, 'plain');
    await crawlOf(join(ROOT, 'fixtures', 'example', 'dedup-example.warc'), plain, 'example');
    const pOut = join(dir, 'plain.wacz');
    await ok(['export-wacz', pOut, '-dir', plain]);
    const warc = await zipEntry(pOut, 'archive/data.warc.gz');
    expect(
      gunzipSync(warc)
        .toString('latin1')
        .match(/^WARC\/1\.[01]\r$/gm)!.length,
    ).toBeGreaterThan(0);
    const digests = (f: string) =>
      nwax(['cdx', '-f', 'cdxj', f]).then((x) =>
        x.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l.slice(l.indexOf('{'))))
          .map((e) => `${e.url} ${e.digest}`)
          .sort(),
      );
    const versions = JSON.parse((await ok(['search', '--json', '--hits', '50', '--dir', plain, 'url:http://example.org/index.html'])).stdout)
      .hits.map((h: Hit) => `${h.url} ${h.digest}`)
      .sort();
    expect([...new Set((await digests(pOut)).filter((d) => d.startsWith('http://example.org/index.html ')))]).toEqual(versions);
    // A collection's package holds every capture, not each version's first: the ten captures of
    // five versions, so that imported again each version has every date it was captured.
    const example = join(ROOT, 'fixtures', 'example', 'dedup-example.warc');
    expect(await digests(pOut)).toEqual(await digests(example));
    const again = join(dir, 'plain-again');
    await crawlOf(pOut, again, 'example');
    const dated = async (d: string) =>
      (JSON.parse((await ok(['search', '--json', '--hits', '50', '--dir', d, 'url:http://example.org/index.html'])).stdout).hits as Hit[])
        .map((h) => [h.url, h.digest, [...h.dates].sort()] as const)
        .sort((x, y) => (x[1] < y[1] ? -1 : 1));
    const dates = await dated(plain);
    expect(dates.flatMap(([, , d]) => d).length).toBeGreaterThan(dates.length);
    expect(await dated(again)).toEqual(dates);
    // So does a query's package of them: each version found at every date, not at its first.
    const qOut = join(dir, 'versions.wacz');
    const q = await ok(['export-wacz', qOut, '-dir', plain, 'url:http://example.org/index.html']);
    expect(q.stderr).toMatch(/versions\.wacz: 5 pages, 5 captures at the versions' other dates, 0 embedded resources \(0 not in the archive\), 10 records/);
    expect(await digests(qOut)).toEqual(await digests(example));
    const qAgain = join(dir, 'versions-again');
    await crawlOf(qOut, qAgain, 'example');
    expect(await dated(qAgain)).toEqual(dates);
  });

  it('leaves out, by name and offset, a record damaged since it was indexed, and exports the rest (exit 3)', async () => {
    const warc = join(dir, 'three.warc.gz');
    await writeWarc(
      warc,
      ['a', 'b', 'c'].map((x, i) => ({
        id: `t${x}`,
        url: `http://three.example/${x}`,
        date: `2020010203040${i}`,
        body: `<html><head><title>Page ${x}</title></head><body>words of page ${x}, the three pages</body></html>`,
      })),
    );
    const crawl = join(dir, 'three');
    await crawlOf(warc, crawl, 'three');
    const source = (await ok(['cdx', '-f', 'cdxj', warc])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))));
    // Page b's member overwritten in place with bytes that are no gzip member (the archive's size unchanged).
    const b = source.find((e) => e.url === 'http://three.example/b');
    const bytes = readFileSync(warc);
    bytes.fill(0x41, Number(b.offset), Number(b.offset) + Number(b.length));
    writeFileSync(warc, bytes);
    const out = join(dir, 'three.wacz');
    const r = await ok(['export-wacz', out, '-dir', crawl], [3]);
    expect(r.stderr).toContain(`three.warc.gz: offset ${b.offset}: `);
    expect(r.stderr).toMatch(/not exported/);
    expect(r.stderr).toMatch(/three\.wacz: 2 pages, .* 2 records, .*1 records left out \(not-a-record 1\)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // The package holds the two good records byte for byte, indexed and listed; nothing of b.
    const pages = (await zipEntry(out, 'pages/pages.jsonl'))
      .toString()
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l).url);
    expect(pages.sort()).toEqual(['http://three.example/a', 'http://three.example/c']);
    const lines = (await ok(['cdx', '-f', 'cdxj', out])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))));
    expect(lines.map((e) => e.url).sort()).toEqual(['http://three.example/a', 'http://three.example/c']);
    const exported = await zipEntry(out, 'archive/data.warc.gz');
    for (const e of lines) {
      const original = source.find((x) => x.url === e.url);
      expect(
        exported.subarray(Number(e.offset), Number(e.offset) + Number(e.length)).equals(bytesAt(warc, Number(original.offset), Number(original.length))),
      ).toBe(true);
    }
    // The archive cut short since, before page c: c's offset lies past its end, and is said so.
    const c = source.find((e) => e.url === 'http://three.example/c');
    writeFileSync(warc, bytes.subarray(0, Number(c.offset)));
    const cut = await ok(['export-wacz', join(dir, 'cut.wacz'), '-dir', crawl, 'pages'], [3]);
    expect(cut.stderr).toContain(`three.warc.gz: offset ${c.offset}: no bytes at this offset: the archive ends before it (truncated); not exported`);
    expect(cut.stderr).toMatch(/cut\.wacz: 1 pages, .*2 records left out \(not-a-record 1, truncated 1\)/);
    expect(cut.stderr).not.toMatch(/\n\s+at /);
  });

  it("streams a record too large to hold (a plain one gzipped on the way), and its page's records stay whole", async () => {
    // A plain WARC with a 12 MB page: past what an export reads whole (8 MB), it is streamed.
    const big = 'big words of a large page '.repeat((12 << 20) >> 5);
    const warc = join(dir, 'big.warc');
    await writeWarc(
      warc,
      [
        {
          id: 'b1',
          url: 'http://big.example/',
          date: '20200102030405',
          body: `<html><head><title>Big page</title><link rel="stylesheet" href="/s.css"></head><body>${big}</body></html>`,
        },
        { id: 'b2', url: 'http://big.example/s.css', date: '20200102030406', body: 'body { color: red }', headers: { 'Content-Type': 'text/css' } },
      ],
      { gzip: false },
    );
    const crawl = join(dir, 'big');
    await crawlOf(warc, crawl, 'big');
    const out = join(dir, 'big.wacz');
    const r = await ok(['export-wacz', out, '-dir', crawl, 'big', 'page']);
    // Its text (as the segment keeps it) deflates to less than ReplayWeb.page reads of a list: listed with it.
    expect(r.stderr).toMatch(/big\.wacz: 1 pages, 0 captures at the versions' other dates, 1 embedded resources \(0 not in the archive\), 2 records/);
    const listed = (await zipEntry(out, 'pages/pages.jsonl'))
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(listed[0]).toEqual({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages', hasText: true });
    expect(listed.slice(1)).toEqual([
      {
        id: expect.any(String),
        url: 'http://big.example/',
        ts: '2020-01-02T03:04:05Z',
        title: 'Big page',
        text: expect.stringContaining('big words of a large page'),
      },
    ]);
    const lines = (await ok(['cdx', '-f', 'cdxj', out])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))));
    const source = (await ok(['cdx', '-f', 'cdxj', warc])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))));
    expect(lines.map((e) => `${e.url} ${e.digest}`).sort()).toEqual(source.map((e) => `${e.url} ${e.digest}`).sort());
    // Each record a gzip member of its own, inflating to the source's bytes.
    const exported = await zipEntry(out, 'archive/data.warc.gz');
    const page = lines.find((e) => e.url === 'http://big.example/');
    const original = source.find((e) => e.url === 'http://big.example/');
    expect(
      gunzipSync(exported.subarray(Number(page.offset), Number(page.offset) + Number(page.length))).equals(
        bytesAt(warc, Number(original.offset), Number(original.length)),
      ),
    ).toBe(true);
  }, 120_000);
});
