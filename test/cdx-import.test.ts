import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { HAVE_FIXTURES, breathe, fixture, nwax, nwaxAsync, segmentRecords, tempDir } from './helpers.js';

const PARTS = ['content', 'parse_data', 'parse_text', 'crawl_fetch', 'crawl_parse'];
const ARCHIVES = ['iana.warc.gz', 'dupes.warc.gz', 'example.warc.gz'];

function segment(dir: string): Record<string, Map<string, unknown>> {
  return Object.fromEntries(PARTS.map((p) => [p, segmentRecords(dir, p)]));
}

/** A segment with the archive location taken out of content (a URL or a path, same bytes). */
function withoutLocation(seg: Record<string, Map<string, unknown>>): Record<string, Map<string, unknown>> {
  return { ...seg, content: new Map([...seg.content].map(([k, v]) => [k, { ...(v as object), location: undefined }])) };
}

function restrict(seg: Record<string, Map<string, unknown>>, keep: (key: string) => boolean): Record<string, Map<string, unknown>> {
  return Object.fromEntries(Object.entries(seg).map(([p, m]) => [p, new Map([...m].filter(([k]) => keep(k)))]));
}

/** A server for the fixture archives that logs every byte range asked for; /norange/ ignores Range. */
function rangeServer(files: Record<string, Buffer>) {
  const ranges: string[] = [];
  const server = createServer((req, res) => {
    const [, mode, name] = /^\/(files|norange)\/(.+)$/.exec(req.url ?? '') ?? [];
    const body = name ? files[decodeURIComponent(name)] : undefined;
    if (!body) return void res.writeHead(404).end('not here');
    if (req.method === 'HEAD') return void res.writeHead(200, { 'content-length': body.length }).end();
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (!m || mode === 'norange') {
      ranges.push(`${name} whole`);
      return void res.writeHead(200, { 'content-length': body.length }).end(body);
    }
    const from = Number(m[1]);
    const to = m[2] ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
    ranges.push(`${name} ${from}-${to}`);
    res.writeHead(206, { 'content-length': to - from + 1, 'content-range': `bytes ${from}-${to}/${body.length}` }).end(body.subarray(from, to + 1));
  });
  return { server, ranges };
}

describe.skipIf(!HAVE_FIXTURES)('import --cdx', () => {
  const dir = tempDir();
  const pywb = fixture('pywb');
  const cluster = fixture('pywb/zipcdx/zipnum-sample.idx');
  let full: Record<string, Map<string, unknown>>;

  beforeAll(async () => {
    writeFileSync(join(dir, 'manifest'), ARCHIVES.map((a) => `${join(pywb, a)}\n`).join(''));
    const r = await nwaxAsync(['import', join(dir, 'manifest'), join(dir, 'full')]);
    expect(r.code, r.stderr).toBe(0);
    full = segment(join(dir, 'full'));
  });

  it("gives the full import's segment from pywb's CDX of the same archive, reading each listed record once", async () => {
    const r = await nwaxAsync(['import', '--cdx', join(pywb, 'cdx', 'iana.cdx'), '--archives', pywb, join(dir, 'iana')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/iana\.cdx: 171 lines, 171 records to read from 1 archives/);
    expect(r.stderr).toMatch(/records read 171,/);
    writeFileSync(join(dir, 'iana-manifest'), `${join(pywb, 'iana.warc.gz')}\n`);
    expect((await nwaxAsync(['import', join(dir, 'iana-manifest'), join(dir, 'iana-full')])).code).toBe(0);
    expect(segment(join(dir, 'iana'))).toEqual(segment(join(dir, 'iana-full')));
  });

  it('skips the captures an exclusion list names (-e), as the manifest import does', async () => {
    const cdx = join(pywb, 'cdx', 'iana.cdx');
    const dups = join(dir, 'iana.dup');
    writeFileSync(dups, (await nwax(['dedup-cdx', cdx])).stdout);
    writeFileSync(join(dir, 'iana-only'), `${join(pywb, 'iana.warc.gz')}\n`);
    const full = await nwaxAsync(['import', '-e', dups, join(dir, 'iana-only'), join(dir, 'iana-e-full')]);
    expect(full.code, full.stderr).toBe(0);
    const r = await nwaxAsync(['import', '-e', dups, '--cdx', cdx, '--archives', pywb, join(dir, 'iana-e')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/excluded \d+/);
    expect(segment(join(dir, 'iana-e'))).toEqual(segment(join(dir, 'iana-e-full')));
  });

  it('reads CDX9 (no record length: one record read from the offset) and gzipped CDXJ alike', async () => {
    const archive = join(pywb, 'dupes.warc.gz');
    const cdx9 = await nwax(['cdx', '--format', 'cdx9', '-o', join(dir, 'dupes.cdx9'), archive]);
    expect(cdx9.code, cdx9.stderr).toBe(0);
    const cdxj = await nwax(['cdx', '--format', 'cdxj', archive]);
    writeFileSync(join(dir, 'dupes.cdxj.gz'), gzipSync(cdxj.stdout));
    writeFileSync(join(dir, 'dupes-manifest'), `${archive}\n`);
    expect((await nwaxAsync(['import', join(dir, 'dupes-manifest'), join(dir, 'dupes-full')])).code).toBe(0);
    const want = segment(join(dir, 'dupes-full'));
    for (const input of ['dupes.cdx9', 'dupes.cdxj.gz']) {
      const r = await nwaxAsync(['import', '--cdx', join(dir, input), '--archives', pywb, join(dir, `seg-${input}`)]);
      expect(r.code, r.stderr).toBe(0);
      expect(segment(join(dir, `seg-${input}`)), input).toEqual(want);
    }
  });

  it('imports what the filters keep from a ZipNum cluster, equal to the full import of those captures; a wrong offset is named by its line', async () => {
    const r = await nwaxAsync(['import', '--cdx', cluster, '--filter', 'mime:text/html', '--filter', 'status:200', '--archives', pywb, join(dir, 'html')]);
    // The sample's two test lines (time-zones/x, /y) point at the record of time-zones.
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      /zipnum-sample\.idx: line \d+: .*iana\.warc\.gz: offset 569675 holds a response record of http:\/\/www\.iana\.org\/time-zones, not http:\/\/www\.iana\.org\/time-zones\/X; skipped/,
    );
    expect(r.stderr).toMatch(/cdx-offset-mismatch 2\b/);
    const got = segment(join(dir, 'html'));
    // Independently: the full import's documents whose capture is an HTML 200.
    const html = (k: string) => {
      const c = full.content.get(k) as { mime: string; status: number };
      return c.mime === 'text/html' && c.status === 200;
    };
    expect(got.content.size).toBeGreaterThan(5);
    expect(got).toEqual(restrict(full, html));
  });

  it('reports lines whose offset starts no record, and archives found nowhere, with CDX file and line', async () => {
    const lines = readFileSync(join(pywb, 'cdx', 'dupes.cdx'), 'utf8').split('\n');
    const f = lines[1].split(' ');
    lines[1] = [...f.slice(0, 9), String(Number(f[9]) + 7), f[10]].join(' ');
    lines[2] = lines[2].replace('dupes.warc.gz', 'nowhere.warc.gz');
    writeFileSync(join(dir, 'bad.cdx'), lines.join('\n'));
    const r = await nwaxAsync(['import', '--cdx', join(dir, 'bad.cdx'), '--archives', pywb, join(dir, 'bad')]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/bad\.cdx: line 2: .*dupes\.warc\.gz: offset \d+ does not start a record/);
    expect(r.stderr).toMatch(/bad\.cdx: line 3: archive nowhere\.warc\.gz is in none of the archive locations/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // The rest was imported.
    expect(segmentRecords(join(dir, 'bad'), 'content').size).toBeGreaterThan(0);
  });

  describe('over HTTP', () => {
    // The server reads `files` per request; they are read before the tests, not at collection.
    const files: Record<string, Buffer> = {};
    const { server, ranges } = rangeServer(files);
    let base = '';
    beforeAll(async () => {
      for (const a of ARCHIVES) files[a] = readFileSync(join(pywb, a));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('asks only for the byte ranges of the listed records, and gives the local result', async () => {
      const cdx = ['iana', 'dupes', 'example'].map((n) => join(pywb, 'cdx', `${n}.cdx`));
      const local = await nwaxAsync(['import', '--cdx', cdx.join(','), '--archives', pywb, join(dir, 'local')]);
      expect(local.code, local.stderr).toBe(0);
      await breathe();
      // A path index first (names not in it fall through), then the server.
      writeFileSync(join(dir, 'paths'), `example.warc.gz\t${base}/files/example.warc.gz\n`);
      const remote = await nwaxAsync(['import', '--cdx', cdx.join(','), '--archives', `${join(dir, 'paths')},${base}/files/`, join(dir, 'remote')]);
      expect(remote.code, remote.stderr).toBe(0);
      expect(withoutLocation(segment(join(dir, 'remote')))).toEqual(withoutLocation(segment(join(dir, 'local'))));
      // Every range asked is exactly one listed record (offset, offset + length - 1).
      const listed = new Set(
        cdx.flatMap((c) =>
          readFileSync(c, 'utf8')
            .split('\n')
            .filter((l) => l && !l.startsWith(' '))
            .map((l) => {
              const x = l.split(' ');
              return `${x[10]} ${x[9]}-${Number(x[9]) + Number(x[8]) - 1}`;
            }),
        ),
      );
      expect(ranges.length).toBe(listed.size);
      for (const r of ranges) expect(listed.has(r), r).toBe(true);
    });

    it('refuses a server that answers a range with the whole file', async () => {
      const r = await nwaxAsync(['import', '--cdx', join(pywb, 'cdx', 'example.cdx'), '--archives', `${base}/norange/`, join(dir, 'norange')]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(
        /example\.cdx: line \d+: .*norange\/example\.warc\.gz: HTTP 200 to a request for bytes \d+-\d+: the server does not serve byte ranges/,
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  });
});
