import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, HAVE_FIXTURES, fixture, nwax, tempDir } from './helpers.js';
import { startServer } from '../src/serve/server.js';

const N_FIELDS = ['urlkey', 'timestamp', 'url', 'mime', 'status', 'digest', 'redirect', 'meta', 'length', 'offset', 'filename'];
const fields = (l: string) => Object.fromEntries(l.split(' ').map((v, i) => [N_FIELDS[i], v]));

/** pywb's own CDX of the archives its sample cluster indexes, merged in byte order. */
function pywbFlatLines(): string[] {
  const all = ['iana', 'dupes', 'example']
    .flatMap((n) => readFileSync(fixture(`pywb/cdx/${n}.cdx`), 'utf8').split('\n'))
    .filter((l) => l !== '' && !l.startsWith(' CDX'));
  return all.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** The lines a query must give, worked out here from the flat lines (not by nwax's code). */
function expected(lines: string[], keyTest: (k: string) => boolean, extra: (f: Record<string, string>) => boolean = () => true): string[] {
  return lines.filter((l) => keyTest(l.split(' ')[0]) && extra(fields(l)));
}

const query = async (src: string, ...args: string[]) => {
  const r = await nwax(['cdx-query', src, ...args]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
};

describe.skipIf(!HAVE_FIXTURES)('ZipNum clusters and cdx-query', () => {
  const dir = tempDir();
  const sample = fixture('pywb/zipcdx/zipnum-sample.idx');
  const flatFile = join(dir, 'flat.cdx');
  // Read before the tests, not while vitest collects them (a clone without the fixtures skips this block).
  let flat: string[];
  let sampleLines: string[];
  beforeAll(() => {
    flat = pywbFlatLines();
    const tz = flat.find((l) => l.startsWith('org,iana)/time-zones '))!;
    sampleLines = [
      ...flat,
      ...['x', 'y'].map((c) => tz.replace('time-zones ', `time-zones/${c} `).replace('/time-zones ', `/time-zones/${c.toUpperCase()} `)),
    ].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    writeFileSync(flatFile, ` CDX N b a m s k r M S V g\n${flat.join('\n')}\n`);
  });

  it("reads pywb's sample cluster: exact, prefix, host and domain lookups find what a scan of the same CDX finds", async () => {
    const cases: [string[], (k: string) => boolean][] = [
      [['http://www.iana.org/'], (k) => k === 'org,iana)/'],
      [['iana.org/_css/*'], (k) => k.startsWith('org,iana)/_css')],
      [['iana.org/domains/', '--match-type', 'prefix'], (k) => k.startsWith('org,iana)/domains/')],
      [['iana.org', '--match-type', 'host'], (k) => k.startsWith('org,iana)/')],
      [['*.example.com'], (k) => k.startsWith('com,example)') || k.startsWith('com,example,')],
      [['example.com/?example=1'], (k) => k === 'com,example)/?example=1'],
      [['iana.org/nothing-here'], () => false],
    ];
    for (const [args, test] of cases) {
      const want = expected(flat, test);
      // pywb's sample adds two test lines, time-zones/x and /y (copies of time-zones).
      expect(await query(sample, ...args), args.join(' ')).toEqual(expected(sampleLines, test));
      expect(await query(flatFile, ...args), `flat ${args.join(' ')}`).toEqual(want);
    }
    expect(await query(sample, '*.org')).toHaveLength(flat.filter((l) => l.startsWith('org,')).length + 2);
  });

  it('applies dates, filters, collapse, sort, limit and the output forms as pywb does', async () => {
    const css = (k: string) => k.startsWith('org,iana)/_css/2013.1/screen.css');
    expect(await query(sample, 'iana.org/_css/2013.1/screen.css', '--from', '201401262008', '--to', '2014012620')).toEqual(
      expected(flat, css, (f) => f.timestamp >= '20140126200800' && f.timestamp <= '20140126205959'),
    );
    expect(await query(sample, 'iana.org/_css/*', '--filter', 'status:200', '--filter', '!mime:text/css')).toEqual(
      expected(
        flat,
        (k) => k.startsWith('org,iana)/_css'),
        (f) => f.status.startsWith('200') && !f.mime.startsWith('text/css'),
      ),
    );
    expect(await query(sample, 'iana.org/*', '--filter', '~url:fonts/OpenSans-B', '--filter', '=mime:warc/revisit')).toEqual(
      expected(
        flat,
        (k) => k.startsWith('org,iana)/'),
        (f) => f.url.includes('fonts/OpenSans-B') && f.mime === 'warc/revisit',
      ),
    );
    // collapse=urlkey: the first line of each URL.
    const firsts = expected(flat, (k) => k.startsWith('org,iana)/_img')).filter((l, i, a) => i === 0 || a[i - 1].split(' ')[0] !== l.split(' ')[0]);
    expect(await query(sample, 'iana.org/_img/*', '--collapse', 'urlkey')).toEqual(firsts);
    expect(await query(sample, 'iana.org/_img/*', '--limit', '2')).toEqual(firsts.slice(0, 1).concat(expected(flat, (k) => k.startsWith('org,iana)/_img'))[1]));
    const all = expected(flat, css);
    expect(await query(sample, 'iana.org/_css/2013.1/screen.css', '--sort', 'reverse')).toEqual([...all].reverse());
    const closest = await query(sample, 'iana.org/_css/2013.1/screen.css', '--sort', 'closest', '--closest', '20140126201000', '--limit', '3');
    const byDistance = [...all].sort((a, b) => Math.abs(Number(fields(a).timestamp) - 20140126201000) - Math.abs(Number(fields(b).timestamp) - 20140126201000));
    expect(closest).toEqual(byDistance.slice(0, 3));
    const json = (await query(sample, 'iana.org/_css/2013.1/screen.css', '--output', 'json')).map((l) => JSON.parse(l));
    expect(json.map((j) => j.timestamp)).toEqual(all.map((l) => fields(l).timestamp));
    expect(json[0]).toMatchObject({ urlkey: 'org,iana)/_css/2013.1/screen.css', filename: fields(all[0]).filename, offset: fields(all[0]).offset });
    const cdxj = await query(sample, 'iana.org/_css/2013.1/screen.css', '--output', 'cdxj');
    expect(JSON.parse(cdxj[0].split(' ').slice(2).join(' '))).toMatchObject({ url: fields(all[0]).url, length: fields(all[0]).length });
    expect(await query(sample, 'iana.org/_css/2013.1/screen.css', '--fl', 'timestamp,statuscode')).toEqual(
      all.map((l) => `${fields(l).timestamp} ${fields(l).status}`),
    );
  });

  it('builds a cluster in parallel shards that pywb layout readers and nwax read back line for line', async () => {
    const out = join(dir, 'cluster');
    const r = await nwax(['zipnum', 'build', '-D', 'nwax.zipnum.lines=7', '--shards', '3', flatFile, out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`: ${flat.length} lines in \\d+ blocks, 3 part files`));
    const idx = readFileSync(join(out, 'cluster.idx'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'));
    const loc = readFileSync(join(out, 'cluster.loc'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'));
    expect(loc.map((l) => l[0])).toEqual(['part-00000', 'part-00001', 'part-00002']);
    expect(idx.map((f) => Number(f[4]))).toEqual(idx.map((_, i) => i + 1));
    // Every block is a gzip member of its own, at its offset, and starts with its summary key.
    const lines: string[] = [];
    for (const f of idx) {
      const part = readFileSync(join(out, loc.find((l) => l[0] === f[1])![1]));
      const block = gunzipSync(part.subarray(Number(f[2]), Number(f[2]) + Number(f[3])))
        .toString('utf8')
        .split('\n')
        .filter(Boolean);
      expect(block.length).toBeLessThanOrEqual(7);
      expect(block[0].startsWith(f[0])).toBe(true);
      lines.push(...block);
    }
    expect(lines).toEqual(flat);
    expect(readdirSync(out).sort()).toEqual(['cluster.idx', 'cluster.loc', 'part-00000.cdx.gz', 'part-00001.cdx.gz', 'part-00002.cdx.gz']);
    for (const q of [['iana.org/_css/*'], ['*.example.com'], ['iana.org', '--match-type', 'host'], ['http://www.iana.org/']]) {
      expect(await query(out, ...q), q.join(' ')).toEqual(await query(flatFile, ...q));
    }
  });

  it('refuses unsorted input and broken clusters, naming the file and line', async () => {
    const bad = join(dir, 'unsorted.cdx');
    writeFileSync(bad, `${flat[5]}\n${flat[4]}\n`);
    const r = await nwax(['zipnum', 'build', bad, join(dir, 'never')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/unsorted\.cdx: line 2: not sorted/);
    expect(readdirSync(dir)).not.toContain('never');
    // Garbage, an empty file and a file cut inside its last line (a query that reaches it):
    // named, nothing written.
    writeFileSync(join(dir, 'garbage.cdx'), Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0a, 0x80, 0x81]));
    writeFileSync(join(dir, 'empty.cdx'), '');
    writeFileSync(join(dir, 'cut.cdx'), `${flat.slice(0, 3).join('\n')}\n${flat[3].slice(0, 40)}`);
    for (const [file, message] of [
      ['garbage.cdx', /garbage\.cdx: .*line 1: not a CDX line/],
      ['empty.cdx', /empty\.cdx: (empty file|no CDX lines)/],
      ['cut.cdx', /cut\.cdx: .*the last line is cut short/],
    ] as const) {
      for (const args of [
        ['zipnum', 'build', join(dir, file), join(dir, `z-${file}`)],
        ['cdx-query', join(dir, file), flat[3].split(' ')[2], '--match-type', 'host'],
      ]) {
        const r = await nwax(args);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
        expect(r.stderr).toMatch(message);
        expect(r.stderr).not.toMatch(/\n\s+at /);
        expect(r.stdout).toBe('');
      }
      expect(readdirSync(dir)).not.toContain(`z-${file}`);
    }
    const b = await nwax(['cdx-query', fixture('pywb/zipcdx/zipnum-bad.idx'), 'iana.org/']);
    expect(b.code).not.toBe(0);
    expect(b.stderr).toMatch(/zipnum-bad\.idx: part "foo" is not in its \.loc file/);
    const q = await nwax(['cdx-query', sample, 'iana.org', '--from', '2014x']);
    expect(q.code).toBe(2);
    expect(q.stderr).toMatch(/from=2014x: not a date/);
    expect(`${b.stderr}${q.stderr}`).not.toMatch(/\n\s+at /);
  });

  it('answers /cdx on nwax serve with the same lines, 400 for bad parameters, and caps the result size', async () => {
    const srv = await startServer({
      dir: join(dir, 'no-indexes'),
      host: '127.0.0.1',
      port: 0,
      wayback: '',
      hitsPerSite: 2,
      suggestTitles: 10,
      cdx: { sources: [sample], maxResults: 5, timeoutMs: 5000 },
    });
    try {
      const get = async (qs: string) => {
        const res = await fetch(`${srv.url}/cdx?${qs}`);
        return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
      };
      const exact = await get('url=http://www.iana.org/_css/2013.1/screen.css&output=json');
      expect(exact.status).toBe(200);
      expect(
        exact.body
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).timestamp),
      ).toEqual(
        expected(flat, (k) => k === 'org,iana)/_css/2013.1/screen.css')
          .slice(0, 5)
          .map((l) => fields(l).timestamp),
      );
      const dom = await get('url=example.com&matchType=domain&filter=status:200');
      expect(dom.body.split('\n').filter(Boolean)).toEqual(
        await query(sample, 'example.com', '--match-type', 'domain', '--filter', 'status:200', '--limit', '5'),
      );
      expect((await get('url=iana.org/*&limit=1000')).body.split('\n').filter(Boolean)).toHaveLength(5);
      for (const bad of [
        '',
        'url=x&matchType=nearby',
        'url=x&from=yesterday',
        'url=x&filter=status:(',
        'url=x&sort=closest',
        'url=x&output=xml',
        'url=x&limit=0',
      ]) {
        const r = await get(bad);
        expect(r.status, bad).toBe(400);
        expect(r.body.length).toBeGreaterThan(10);
      }
    } finally {
      await srv.close();
    }
  });

  it('serves /cdx from the command line (nwax serve --cdx), without a search index', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '-dir', join(dir, 'none'), '--cdx', sample], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(err);
          if (m) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`nwax serve exited ${code}: ${err}`)));
      });
      const res = await fetch(`${url}/cdx?url=iana.org/_js/*&output=json&limit=3`);
      expect(res.status).toBe(200);
      const got = (await res.text())
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).urlkey);
      expect(got).toEqual(
        expected(flat, (k) => k.startsWith('org,iana)/_js'))
          .slice(0, 3)
          .map((l) => fields(l).urlkey),
      );
      const search = await fetch(`${url}/api/search?query=iana`);
      expect(search.status).toBe(400);
      expect((await search.json()).error).toMatch(/no indexes/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
