/**
 * WACZ packages read where they lie (archive/wacz.ts), on the real packages in
 * ../shared/fixtures/wacz/ (ReplayWeb.page's example, py-wacz's valid, signed and invalid
 * ones): `nwax cdx` of a package gives the package's own index for every capture and the CDX of
 * its WARC unzipped; a package that is no WACZ, or whose WARC's digest is not
 * datapackage.json's, is named; an import of a manifest listing a package is searched, its
 * stored copies read and its pages replayed from the package.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, createWriteStream, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yazl from 'yazl';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { FIXTURES, HAVE_FIXTURES, nwax, segmentRecords, serveCli, tempDir } from './helpers.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { page, writeWarc } from '../scripts/make-fixtures.mjs';
import { zipEntry } from './zip-entry.js';

const WACZ = join(FIXTURES, 'wacz');
if (!HAVE_FIXTURES) console.log('wacz.test: skipped: no ../shared/fixtures');

describe.skipIf(!HAVE_FIXTURES)('WACZ packages', () => {
  const dir = tempDir();

  it("gives the package's own index for every capture, and the CDX of its WARC unzipped", async () => {
    const pkg = join(WACZ, 'example.wacz');
    const r = await nwax(['cdx', '-f', 'cdxj', pkg]);
    expect(r.code, r.stderr).toBe(0);
    const ours = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Record<string, string>);
    // The package's CDXJ (wabac.js): 17-digit timestamps, numbers as numbers, "sha-256:" digests.
    const theirs = (await zipEntry(pkg, 'indexes/index.cdx'))
      .toString()
      .trim()
      .split('\n')
      .map((l) => {
        const [, ts] = l.split(' ', 2);
        return { ts: ts.slice(0, 14), ...(JSON.parse(l.slice(l.indexOf('{'))) as Record<string, string | number>) };
      });
    expect(theirs.length).toBeGreaterThan(10);
    for (const t of theirs) {
      const o = ours.find((x) => x.url === t.url && Number(x.offset) === t.offset);
      expect(o, `${t.url} at ${t.offset}`).toBeDefined();
      expect([Number(o!.length), o!.mime, Number(o!.status), o!.digest.replace(/^sha256:/, '')], t.url as string).toEqual([
        t.length,
        t.mime,
        t.status,
        String(t.digest).replace(/^sha-?256:/, ''),
      ]);
      expect(o!.filename).toBe('example.wacz#archive/data.warc.gz');
    }
    expect(ours.length).toBe(theirs.length);
    // The same lines as the WARC taken out of the package, but for the name of the file.
    const warc = join(dir, 'data.warc.gz');
    writeFileSync(warc, await zipEntry(pkg, 'archive/data.warc.gz'));
    const unzipped = await nwax(['cdx', '-f', 'cdxj', warc]);
    expect(r.stdout.replaceAll('"example.wacz#archive/data.warc.gz"', '"data.warc.gz"')).toBe(unzipped.stdout);
  });

  it('reads a WARC entry stored deflated (streamed, not by offset) as it reads a stored one', async () => {
    // A package as a ZIP tool that compresses everything would write it: the example's WARC and
    // index deflated, datapackage.json's hashes of them.
    const src = join(WACZ, 'example.wacz');
    const warc = await zipEntry(src, 'archive/data.warc.gz');
    const index = await zipEntry(src, 'indexes/index.cdx');
    const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
    const datapackage = Buffer.from(
      JSON.stringify({
        profile: 'data-package',
        wacz_version: '1.1.1',
        resources: [
          { name: 'data.warc.gz', path: 'archive/data.warc.gz', hash: sha(warc), bytes: warc.length },
          { name: 'index.cdx', path: 'indexes/index.cdx', hash: sha(index), bytes: index.length },
        ],
      }),
    );
    const pkg = join(dir, 'deflated.wacz');
    const zip = new yazl.ZipFile();
    zip.addBuffer(warc, 'archive/data.warc.gz', { compress: true });
    zip.addBuffer(index, 'indexes/index.cdx', { compress: true });
    zip.addBuffer(datapackage, 'datapackage.json', { compress: true });
    zip.end();
    const out = zip.outputStream.pipe(createWriteStream(pkg));
    await once(out, 'close');
    const deflated = await nwax(['cdx', '-f', 'cdxj', pkg]);
    expect(deflated.code, deflated.stderr).toBe(0);
    const stored = await nwax(['cdx', '-f', 'cdxj', src]);
    expect(deflated.stdout.replaceAll('deflated.wacz#', 'example.wacz#')).toBe(stored.stdout);
    expect(deflated.stdout.split('\n').length).toBeGreaterThan(10);
  });

  it('reads a package on a web server by byte ranges, never whole: cdx and import, the same as the local package', async () => {
    const body = readFileSync(join(WACZ, 'example.wacz'));
    const asked: string[] = [];
    let sent = 0;
    const server = createServer((req, res) => {
      if (req.url !== '/pkg/example.wacz') return void res.writeHead(404).end();
      asked.push(`${req.method} ${req.headers.range ?? ''}`.trim());
      if (req.method === 'HEAD') return void res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' }).end();
      const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      if (!m) return void res.writeHead(200, { 'content-length': body.length }).end(body);
      const from = Number(m[1]);
      const to = m[2] ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
      sent += to - from + 1;
      res.writeHead(206, { 'content-length': to - from + 1, 'content-range': `bytes ${from}-${to}/${body.length}` }).end(body.subarray(from, to + 1));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pkg/example.wacz`;
    try {
      const remote = await nwax(['cdx', '-f', 'cdxj', url]);
      expect(remote.code, remote.stderr).toBe(0);
      const local = await nwax(['cdx', '-f', 'cdxj', join(WACZ, 'example.wacz')]);
      expect(remote.stdout).toBe(local.stdout);
      expect(asked[0]).toBe('HEAD');
      expect(asked.slice(1).every((a) => a.startsWith('GET bytes='))).toBe(true);
      // The WARC read twice (its hash, its records), the directory and datapackage once: under
      // three times the package, and never one request for all of it.
      expect(sent).toBeLessThan(3 * body.length);
      const manifest = join(dir, 'remote-manifest');
      writeFileSync(manifest, `${url} web\n`);
      const seg = join(dir, 'remote-seg');
      const imported = await nwax(['import', manifest, seg]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stderr).toMatch(/documents 14\b/);
      const titles = [...segmentRecords(seg, 'parse_data').values()].map((v) => (v as { title?: string }).title).filter(Boolean);
      expect(titles).toContain('Webrecorder');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("uses the package's pages.jsonl beside its own parse: a title where the parse finds none, the rendered text's lines the HTML lacks", async () => {
    const src = join(WACZ, 'example.wacz');
    const warc = await zipEntry(src, 'archive/data.warc.gz');
    // The page as a browser rendered it, with a line a script built (not in the HTML), and a
    // title for the stylesheet, which has none of its own.
    const pages =
      [
        { format: 'json-pages-1.0', id: 'pages', title: 'All Pages', hasText: true },
        {
          url: 'https://webrecorder.net/',
          ts: '2022-09-16T19:15:07.215Z',
          title: 'Webrecorder',
          text: 'Webrecorder\nWeb archiving for all!\nLatest from a script: quokka zyzzyva',
        },
        { url: 'https://webrecorder.net/assets/main.css', ts: '2022-09-16T19:15:07Z', title: 'The site stylesheet' },
      ]
        .map((p) => JSON.stringify(p))
        .join('\n') + '\n';
    const pkg = join(dir, 'with-pages.wacz');
    const zip = new yazl.ZipFile();
    zip.addBuffer(warc, 'archive/data.warc.gz', { compress: false });
    zip.addBuffer(Buffer.from(pages), 'pages/pages.jsonl', { compress: true });
    const listing = {
      profile: 'data-package',
      wacz_version: '1.1.1',
      resources: [
        { name: 'data.warc.gz', path: 'archive/data.warc.gz', hash: `sha256:${createHash('sha256').update(warc).digest('hex')}`, bytes: warc.length },
      ],
    };
    zip.addBuffer(Buffer.from(JSON.stringify(listing)), 'datapackage.json', { compress: true });
    zip.end();
    await once(zip.outputStream.pipe(createWriteStream(pkg)), 'close');
    const manifest = join(dir, 'pages-manifest');
    writeFileSync(manifest, `${pkg}\n`);
    const seg = join(dir, 'pages-seg');
    const r = await nwax(['import', manifest, seg]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/texts from pages\.jsonl 1\b/);
    const text = [...segmentRecords(seg, 'parse_text').entries()].find(([k]) => k.startsWith('https://webrecorder.net/ '))![1] as string;
    expect(text).toMatch(/^Webrecorder Web archiving for all! .* Latest from a script: quokka zyzzyva$/);
    expect(text.match(/Web archiving for all!/g)).toHaveLength(1);
    const titles = Object.fromEntries([...segmentRecords(seg, 'parse_data').entries()].map(([k, v]) => [k.split(' ')[0], (v as { title: string }).title]));
    expect(titles['https://webrecorder.net/']).toBe('Webrecorder');
    expect(titles['https://webrecorder.net/assets/main.css']).toBe('The site stylesheet');
  });

  it('imports a package from a manifest line in a streaming map task, as Hadoop runs one (nothing expands the manifest there)', async () => {
    const map = await nwax(['job', 'import', 'map'], { input: `${join(WACZ, 'example.wacz')} web\n${join(WACZ, 'invalid_example_1.wacz')} web\n` });
    expect(map.code, map.stderr).toBe(0);
    const keys = map.stdout
      .trim()
      .split('\n')
      .map((l) => l.slice(0, l.indexOf('\t')));
    expect(keys).toHaveLength(14);
    expect(keys).toContain(`https://webrecorder.net/ sha256:3158427b8d258c2d1dc08ffc3138cff100f3fe510d1b12b21a36e6373626e16f`);
    expect(map.stderr).toContain('invalid_example_1.wacz: not a WACZ package: no archive/*.warc or *.warc.gz entry');
    expect(map.stderr).toMatch(/reporter:counter:nwax,archives failed,1/);
  });

  it("reads py-wacz's packages, plain and signed, and refuses by name one that is no WACZ and one signed with an untrusted certificate", async () => {
    for (const f of ['valid_example_1.wacz', 'valid_signed_example_1.wacz']) {
      const r = await nwax(['cdx', join(WACZ, f)]);
      expect(r.code, `${f}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^com,example\\)/ \\d{14} .* ${f.replace('.', '\\.')}#archive/\\S+$`, 'm'));
    }
    // Signed with a Let's Encrypt staging certificate: py-wacz refuses it, and so does nwax.
    const staging = await nwax(['cdx', join(WACZ, 'invalid_signed_example_1.wacz')]);
    expect(staging.code).toBe(1);
    expect(staging.stderr).toContain(
      "invalid_signed_example_1.wacz: datapackage-digest.json: the domain certificate's chain leads to no trusted root (it ends at C=US, O=(STAGING) Internet Security Research Group, CN=(STAGING) Pretend Pear X1); package left out",
    );
    const bad = await nwax(['cdx', join(WACZ, 'invalid_example_1.wacz')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'invalid_example_1.wacz: not a WACZ package: no archive/*.warc or *.warc.gz entry (entries: datapackage.json, data/archive/test.txt)',
    );
    expect(bad.stderr).toMatch(/unreadable files: 1/);
    // A package under another name is a ZIP, and said so.
    const renamed = join(dir, 'example.zip');
    copyFileSync(join(WACZ, 'example.wacz'), renamed);
    const zip = await nwax(['cdx', renamed]);
    expect(zip.code).toBe(3);
    expect(zip.stderr).toContain('example.zip: offset 0: not an ARC or WARC file (starts with "PK');
    expect(zip.stderr).toContain('a ZIP file: a WACZ package is read by its path ending .wacz');
    const notZip = join(dir, 'not-a-zip.wacz');
    writeFileSync(notZip, 'WARC/1.0\r\n\r\n'.repeat(40));
    const nz = await nwax(['cdx', notZip]);
    expect(nz.code).toBe(1);
    expect(nz.stderr).toContain('not-a-zip.wacz: not a WACZ package: not a ZIP file (no end of central directory record)');
    expect(nz.stderr).not.toMatch(/\n\s+at /);
  });

  it("checks a signed package's signature: one re-hashed or re-signed after signing is refused by name", async () => {
    const src = join(WACZ, 'valid_signed_example_1.wacz');
    const names = ['indexes/index.cdx.gz', 'indexes/index.idx', 'pages/pages.jsonl', 'datapackage.json'];
    const entries = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await zipEntry(src, n)] as const)));
    const warcName = (await nwax(['cdx', src])).stdout.match(/#(archive\/\S+)/)![1];
    const warc = await zipEntry(src, warcName);
    const digest = JSON.parse((await zipEntry(src, 'datapackage-digest.json')).toString());
    const repack = async (name: string, datapackage: Buffer, dig: unknown) => {
      const zip = new yazl.ZipFile();
      for (const n of names.slice(0, 3)) zip.addBuffer(entries[n], n);
      zip.addBuffer(warc, warcName, { compress: false });
      zip.addBuffer(datapackage, 'datapackage.json');
      zip.addBuffer(Buffer.from(JSON.stringify(dig)), 'datapackage-digest.json');
      zip.end();
      const out = join(dir, name);
      await once(zip.outputStream.pipe(createWriteStream(out)), 'close');
      return out;
    };
    // Repacked as it was: still verifies.
    const same = await nwax(['cdx', await repack('resigned-same.wacz', entries['datapackage.json'], digest)]);
    expect(same.code, same.stderr).toBe(0);
    // A signature that is not the signer's.
    const sig = digest.signedData.signature as string;
    const forged = { ...digest, signedData: { ...digest.signedData, signature: `${sig.slice(0, 20)}${sig[20] === 'A' ? 'B' : 'A'}${sig.slice(21)}` } };
    const f = await nwax(['cdx', await repack('forged.wacz', entries['datapackage.json'], forged)]);
    expect(f.code).toBe(1);
    expect(f.stderr).toContain(
      "forged.wacz: datapackage-digest.json: the signature does not verify with btrix-sign-test.webrecorder.net's key; package left out",
    );
    // datapackage.json changed and hashed again: the signature is of the old hash.
    const changed = Buffer.from(entries['datapackage.json'].toString().replace('py-wacz', 'py-wacZ'));
    const rehashed = { ...digest, hash: `sha256:${createHash('sha256').update(changed).digest('hex')}` };
    const h = await nwax(['cdx', await repack('rehashed.wacz', changed, rehashed)]);
    expect(h.code).toBe(1);
    expect(h.stderr).toMatch(
      /rehashed\.wacz: datapackage-digest\.json: the signed hash sha256:[0-9a-f]{64} is not datapackage-digest\.json's sha256:[0-9a-f]{64}; package left out/,
    );
    // The RFC 3161 timestamp, as authsign checks it: each way of breaking it named.
    const refused = async (name: string, signedData: Record<string, unknown>) => {
      const r = await nwax(['cdx', await repack(name, entries['datapackage.json'], { ...digest, signedData: { ...digest.signedData, ...signedData } })]);
      expect(r.code, r.stderr).toBe(1);
      return r.stderr;
    };
    const other = JSON.parse((await zipEntry(join(WACZ, 'invalid_signed_example_1.wacz'), 'datapackage-digest.json')).toString()).signedData;
    expect(await refused('other-stamp.wacz', { timeSignature: other.timeSignature })).toContain(
      'other-stamp.wacz: datapackage-digest.json: the RFC 3161 timestamp does not hold: it stamps another signature',
    );
    const token = Buffer.from(digest.signedData.timeSignature, 'base64');
    // A byte of the authority's RSA signature, at the token's end.
    token[token.length - 300] ^= 0x01;
    expect(await refused('bad-stamp.wacz', { timeSignature: token.toString('base64') })).toContain(
      "bad-stamp.wacz: datapackage-digest.json: the RFC 3161 timestamp does not hold: the authority's signature over it does not verify; package left out",
    );
    expect(await refused('no-stamp.wacz', { timeSignature: undefined })).toContain(
      'no-stamp.wacz: datapackage-digest.json: the signature has no RFC 3161 timestamp',
    );
    expect(await refused('own-stamp-cert.wacz', { timestampCert: digest.signedData.domainCert })).toContain(
      "own-stamp-cert.wacz: datapackage-digest.json: the timestamp certificate's chain leads to no trusted timestamp root",
    );
    const hourBefore = new Date(Date.parse(digest.signedData.created) - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    expect(await refused('late-stamp.wacz', { created: hourBefore })).toMatch(
      /late-stamp\.wacz: datapackage-digest\.json: the RFC 3161 timestamp \(2022-01-18T19:00:12\.000Z\) is not within ten minutes after the signature's date/,
    );
  });

  it('reads a WARC whose bytes are not those datapackage.json hashed record by record, each checked by its own digest; --strict refuses the package', async () => {
    const pkg = join(dir, 'tampered.wacz');
    copyFileSync(join(WACZ, 'example.wacz'), pkg);
    const bytes = readFileSync(pkg);
    // A byte inside the stored WARC: a gzip member's header has room for it (its OS byte), so
    // every record is still the one its digest names.
    const at = bytes.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), bytes.indexOf('archive/data.warc.gz')) + 9;
    bytes[at] ^= 0x01;
    writeFileSync(pkg, bytes);
    const mismatch =
      /tampered\.wacz: entry archive\/data\.warc\.gz: its SHA-256 is sha256:[0-9a-f]{64}, datapackage\.json says sha256:[0-9a-f]{64}; its records read one by one, each checked by its own digest/;
    const intact = (await nwax(['cdx', join(WACZ, 'example.wacz')])).stdout.replaceAll('example.wacz#', 'tampered.wacz#');
    // Hashed while read (one thread: the lines held until the hash agrees) and hashed first (--jobs 2).
    for (const jobs of ['1', '2']) {
      const j = await nwax(['cdx', '--jobs', jobs, pkg]);
      expect(j.code, `--jobs ${jobs}: ${j.stderr}`).toBe(0);
      expect(j.stderr, `--jobs ${jobs}`).toMatch(mismatch);
      expect(j.stderr, `--jobs ${jobs}`).toMatch(/warnings: wacz-digest 1/);
      expect(j.stdout, `--jobs ${jobs}`).toBe(intact);
    }
    const strict = await nwax(['cdx', '--strict', pkg, join(WACZ, 'valid_example_1.wacz')]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(
      /tampered\.wacz: entry archive\/data\.warc\.gz: its SHA-256 is sha256:[0-9a-f]{64}, datapackage\.json says sha256:[0-9a-f]{64}; package refused \(--strict\)/,
    );
    expect(strict.stdout).not.toContain('tampered.wacz');
    // Imported, the entry is named and counted, its records imported; a missing package is an archive failed.
    const manifest = join(dir, 'tampered-manifest');
    writeFileSync(manifest, `${pkg} c\n${join(dir, 'no-such.wacz')} c\n`);
    const imp = await nwax(['import', manifest, join(dir, 'tampered-seg')]);
    expect(imp.code).toBe(3);
    expect(imp.stderr).toMatch(mismatch);
    expect(imp.stderr).toContain('no-such.wacz: no such file; archive skipped');
    expect(imp.stderr).toMatch(/\barchives failed 1\b/);
    expect(imp.stderr).toMatch(/\bentries read record by record 1\b/);
    expect(imp.stderr).toMatch(/\bimported 14\b/);
  });

  it('skips only the record whose payload is not the one its digest names, in an entry whose package hash failed', async () => {
    // Five pages, each a gzip member; the third's text changed after it was written (its
    // digests, its length and the gzip framing all still whole): the package's hash of the
    // WARC as it was written no longer holds.
    const one = async (i: number) => {
      const f = join(dir, `one-${i}.warc.gz`);
      await writeWarc(f, [
        {
          type: 'response',
          url: `http://five.example/p${i}.html`,
          date: `2020010${i}000000`,
          body: page(`Page ${i}`, `word${i} of page ${i}`),
          id: `00000000-0000-4000-8000-00000000005${i}`,
        },
      ]);
      return readFileSync(f);
    };
    const members = await Promise.all([1, 2, 3, 4, 5].map(one));
    const written = Buffer.concat(members);
    const third = gunzipSync(members[2]);
    const changed = Buffer.from(third.toString('latin1').replace('word3 of page 3', 'WORD3 of page 3'), 'latin1');
    expect(changed.equals(third)).toBe(false);
    const damaged = Buffer.concat([members[0], members[1], gzipSync(changed), members[3], members[4]]);
    const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
    const datapackage = Buffer.from(
      JSON.stringify({
        profile: 'data-package',
        wacz_version: '1.1.1',
        resources: [{ name: 'data.warc.gz', path: 'archive/data.warc.gz', hash: sha(written), bytes: written.length }],
      }),
    );
    const pkg = join(dir, 'one-damaged.wacz');
    const zip = new yazl.ZipFile();
    zip.addBuffer(damaged, 'archive/data.warc.gz', { compress: false });
    zip.addBuffer(datapackage, 'datapackage.json', { compress: true });
    zip.end();
    await once(zip.outputStream.pipe(createWriteStream(pkg)), 'close');
    for (const jobs of ['1', '2']) {
      const r = await nwax(['cdx', '--jobs', jobs, pkg]);
      expect(r.code, `--jobs ${jobs}`).toBe(3);
      expect(r.stderr).toMatch(
        /one-damaged\.wacz: entry archive\/data\.warc\.gz: its SHA-256 is sha256:[0-9a-f]{64}, datapackage\.json says sha256:[0-9a-f]{64}; its records read one by one/,
      );
      expect(r.stderr).toMatch(
        /http:\/\/five\.example\/p3\.html: its payload is not the one its digest sha1:|p3\.html: its payload is not the one its digest [A-Z2-7]{32} names/,
      );
      expect(r.stderr).toMatch(/skipped 1: digest-mismatch 1/);
      const urls = r.stdout
        .trim()
        .split('\n')
        .filter((l) => !/^\s*CDX /.test(l))
        .map((l) => l.split(' ')[2]);
      expect(urls).toEqual([1, 2, 4, 5].map((i) => `http://five.example/p${i}.html`));
    }
    const manifest = join(dir, 'one-damaged-manifest');
    writeFileSync(manifest, `${pkg} c\n`);
    const seg = join(dir, 'one-damaged-seg');
    const imp = await nwax(['import', manifest, seg]);
    expect(imp.code).toBe(3);
    expect(imp.stderr).toMatch(/\bdigest-mismatch 1\b/);
    expect(imp.stderr).toMatch(/\bimported 4\b/);
    expect([...segmentRecords(seg, 'parse_text').keys()].map((k) => k.split(' ')[0]).sort()).toEqual([1, 2, 4, 5].map((i) => `http://five.example/p${i}.html`));
  });

  it('refuses a ZIP without datapackage.json, as py-wacz does', async () => {
    const pkg = join(dir, 'no-datapackage.wacz');
    const zip = new yazl.ZipFile();
    zip.addBuffer(await zipEntry(join(WACZ, 'example.wacz'), 'archive/data.warc.gz'), 'archive/data.warc.gz', { compress: false });
    zip.end();
    await once(zip.outputStream.pipe(createWriteStream(pkg)), 'close');
    const r = await nwax(['cdx', pkg]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no-datapackage.wacz: not a WACZ package: no datapackage.json');
    const lenient = await nwax(['cdx', '-D', 'nwax.wacz.lenient=true', pkg]);
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lenient.stdout.trim().split('\n').length).toBeGreaterThan(10);
  });

  it('names a package whose datapackage.json is not the one datapackage-digest.json vouches for', async () => {
    // datapackage.json changed: datapackage-digest.json no longer vouches for its hashes.
    const listed = join(dir, 'relisted.wacz');
    const again = readFileSync(join(WACZ, 'example.wacz'));
    const profile = again.indexOf('"data-package"');
    expect(profile).toBeGreaterThan(0);
    again[profile + 1] = 'D'.charCodeAt(0);
    writeFileSync(listed, again);
    const d = await nwax(['cdx', listed]);
    expect(d.code).toBe(1);
    expect(d.stderr).toMatch(
      /relisted\.wacz: datapackage\.json's SHA-256 is sha256:[0-9a-f]{64}, datapackage-digest\.json says sha256:[0-9a-f]{64}; package left out/,
    );
  });

  it('imports a package named in a manifest: searched, its stored copy read and its page replayed from the package', async () => {
    const crawl = join(dir, 'crawl');
    const manifest = join(dir, 'manifest');
    writeFileSync(manifest, `${join(WACZ, 'example.wacz')} webrecorder\n`);
    const seg = join(crawl, 'segments', '20220916000000');
    const ok = async (args: string[]) => {
      const r = await nwax(args);
      expect(r.code, `nwax ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r;
    };
    const imported = await ok(['import', manifest, seg]);
    expect(imported.stderr).toMatch(/documents 14\b/);
    await ok(['updatedb', join(crawl, 'crawldb'), seg]);
    await ok(['invertlinks', join(crawl, 'linkdb'), seg]);
    await ok(['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg]);
    expect(readFileSync(join(seg, 'captures.archives'), 'utf8')).toBe(
      `example.wacz#archive/data.warc.gz\t${join(WACZ, 'example.wacz')}#archive/data.warc.gz\twebrecorder\n`,
    );
    // The capture index written again (import --captures-only) from the package: the same.
    const written = readFileSync(join(seg, 'captures.cdx'));
    rmSync(join(seg, 'captures.cdx'));
    await ok(['import', '--captures-only', manifest, seg]);
    expect(readFileSync(join(seg, 'captures.cdx')).equals(written)).toBe(true);
    // import --cdx: the package's CDX lines (file names PACKAGE.wacz#ENTRY) found where the package is.
    const cdx = join(dir, 'example.cdx');
    writeFileSync(cdx, (await ok(['cdx', join(WACZ, 'example.wacz')])).stdout);
    const bySeg = join(dir, 'by-cdx');
    const byCdx = await ok(['import', '--cdx', cdx, '--archives', WACZ, bySeg]);
    expect(byCdx.stderr).toMatch(/14 records to read from 1 archives/);
    expect([...segmentRecords(bySeg, 'parse_text').entries()].sort()).toEqual([...segmentRecords(seg, 'parse_text').entries()].sort());
    // import --cdx PACKAGE: the package's own index (wabac's CDXJ here; a ZipNum cluster's
    // gzip blocks in py-wacz's), its WARCs not indexed again.
    const byOwn = join(dir, 'by-own-index');
    const own = await ok(['import', '--cdx', join(WACZ, 'example.wacz'), byOwn]);
    expect(own.stderr).toMatch(/14 records to read from 1 archives/);
    expect([...segmentRecords(byOwn, 'parse_text').entries()].sort()).toEqual([...segmentRecords(seg, 'parse_text').entries()].sort());
    const zipnum = await ok(['import', '--cdx', join(WACZ, 'valid_signed_example_1.wacz'), join(dir, 'by-zipnum')]);
    expect(zipnum.stderr).toMatch(/2 records to read from 1 archives/);
    expect([...segmentRecords(join(dir, 'by-zipnum'), 'parse_data').values()].map((v) => (v as { title: string }).title)).toEqual(['Example Domain']);
    const srv = await serveCli(['-dir', crawl, '--port', '0', '--replay-port', '-1', '-D', 'nwax.serve.threads=1']);
    try {
      const found = (await (await fetch(`${srv.url}/api/search?query=webrecorder`)).json()) as {
        hits: { url: string; title: string; set: string; doc: number; collection: string }[];
      };
      const home = found.hits.find((h) => h.url === 'https://webrecorder.net/')!;
      expect(home.title).toBe('Webrecorder');
      expect(home.collection).toBe('webrecorder');
      const stored = await fetch(`${srv.url}/stored/${home.set}/${home.doc}`);
      expect(stored.status).toBe(200);
      expect(await stored.text()).toContain('<title>Webrecorder</title>');
      const page = await fetch(`${srv.url}/replay/webrecorder/20220916191507mp_/https://webrecorder.net/`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('Webrecorder');
      // The page's stylesheet, rewritten to the replay, from the same package.
      const css = /href="([^"]*main\.css)"/.exec(html)?.[1];
      expect(css).toBeDefined();
      const sheet = await fetch(new URL(css!, `${srv.url}/replay/webrecorder/20220916191507mp_/https://webrecorder.net/`));
      expect(sheet.status).toBe(200);
      expect(sheet.headers.get('content-type')).toMatch(/text\/css/);
    } finally {
      await srv.close();
    }
  });
});
