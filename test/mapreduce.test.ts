import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { hashPartition } from '../src/mapreduce/partition.js';
import { JOB_NAMES, findJob } from '../src/jobs/registry.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { HAVE_FIXTURES, ROOT, breathe, fixture, nwax, nwaxAsync, partRecords, run, tempDir } from './helpers.js';

/** Hadoop's Text.hashCode (WritableComparator.hashBytes) written out with BigInt, independently. */
function javaTextHash(key: string): bigint {
  let h = 1n;
  for (const b of Buffer.from(key, 'utf8')) {
    const signed = BigInt(b > 127 ? b - 256 : b);
    h = BigInt.asIntN(32, 31n * h + signed);
  }
  return h;
}

/** Sorted lines with the values of each key in reverse order; `groups`: keys whose values differ. */
function reverseWithinKeys(sorted: string[]): { lines: string[]; groups: number } {
  const lines: string[] = [];
  let groups = 0;
  for (let i = 0; i < sorted.length; ) {
    const key = sorted[i].slice(0, sorted[i].indexOf('\t'));
    let j = i;
    while (j < sorted.length && sorted[j].slice(0, sorted[j].indexOf('\t')) === key) j++;
    const group = sorted.slice(i, j);
    if (new Set(group).size > 1) groups++;
    lines.push(...group.reverse());
    i = j;
  }
  return { lines, groups };
}

describe('the partitioner', () => {
  it("is Hadoop's HashPartitioner over the key's UTF-8 bytes", () => {
    expect(javaTextHash('hello')).toBe(127791473n);
    for (const key of ['hello', 'org,example)/index.html', 'é', 'org,example)/caf\u00e9?q=\u{1F600}', '']) {
      for (const n of [1, 3, 7, 100]) {
        expect(hashPartition(key, n)).toBe(Number((javaTextHash(key) & 0x7fffffffn) % BigInt(n)));
      }
    }
  });
});

describe.skipIf(!HAVE_FIXTURES)('local runner and Hadoop Streaming give the same bytes', () => {
  const dir = tempDir();
  const archives = ['pywb/iana.warc.gz', 'wget/crawl1.warc.gz', 'wget/crawl2.warc.gz', 'warcio/example.warc'].map(fixture);
  // Each job's real input: CDX lines for the CDX jobs, a manifest of archives for import.
  const cdxInput = join(dir, 'input.cdx');
  const dupInput = join(dir, 'input.dup');
  const manifest = join(dir, 'manifest.txt');
  writeFileSync(manifest, `# four archives\n${archives.map((a, i) => `${a} coll${i % 2}`).join('\n')}\n`);
  // The datasets jobs read, made by the jobs themselves on those archives.
  const seg = join(dir, 'crawl', 'segments', '20200101000000');
  const crawldb = join(dir, 'crawl', 'crawldb');
  const linkdb = join(dir, 'crawl', 'linkdb');
  const partsOf = (d: string) =>
    readdirSync(d)
      .filter((f) => /^part-\d{5}\.gz$/.test(f))
      .sort()
      .map((f) => join(d, f));
  const segParts = (...names: string[]) => names.flatMap((n) => partsOf(join(seg, n)));
  const inputs: Record<string, { paths: string[]; minMapped: number; minOut: number }> = {
    'cdx-url-count': { paths: [cdxInput], minMapped: 500, minOut: 300 },
    // dedup-cdx lines of those CDX lines: the dates job's input (hundreds of millions on a cluster).
    dates: { paths: [dupInput], minMapped: 400, minOut: 300 },
    import: { paths: [manifest], minMapped: 100, minOut: 90 },
  };
  beforeAll(async () => {
    writeFileSync(cdxInput, (await nwax(['cdx', '-q', ...archives])).stdout);
    writeFileSync(dupInput, (await nwax(['dedup-cdx', cdxInput])).stdout);
    expect([0, 3]).toContain((await nwaxAsync(['import', manifest, seg])).code);
    expect((await nwaxAsync(['updatedb', crawldb, seg])).code).toBe(0);
    expect((await nwaxAsync(['invertlinks', linkdb, seg])).code).toBe(0);
    inputs.updatedb = { paths: [...partsOf(crawldb), ...segParts('crawl_fetch', 'crawl_parse')], minMapped: 100, minOut: 90 };
    // The segment's outlinks merged into the LinkDb already there (its entries passed on).
    inputs.invertlinks = { paths: [...partsOf(linkdb), ...segParts('crawl_parse')], minMapped: 1000, minOut: 300 };
    inputs.index = {
      paths: [...partsOf(crawldb), ...partsOf(linkdb), ...segParts('parse_data', 'parse_text', 'content', 'crawl_fetch')],
      minMapped: 400,
      minOut: 90,
    };
    // A live crawl's: the archives' URLs as seeds, injected into a CrawlDb, and the seeds
    // dataset the inject command makes for its job (the URLs again, new scores).
    const urls = [
      ...new Set(
        readFileSync(cdxInput, 'utf8')
          .split('\n')
          .map((l) => l.split(' ')[2])
          .filter((u) => u && /^https?:/.test(u)),
      ),
    ];
    writeFileSync(join(dir, 'seeds.txt'), `${urls.join('\n')}\n`);
    const liveDb = join(dir, 'live', 'crawldb');
    expect([0, 3]).toContain((await nwaxAsync(['inject', liveDb, join(dir, 'seeds.txt')])).code);
    const { prepareSeeds } = await import('../src/crawl/inject-job.js');
    const { UrlFilters } = await import('../src/crawl/url-filters.js');
    const { Configuration } = await import('../src/conf/config.js');
    writeFileSync(
      join(dir, 'seeds2.txt'),
      `${urls
        .slice(0, 50)
        .map((u) => `${u}\tnutch.score=3`)
        .join('\n')}\n${urls
        .slice(0, 80)
        .map((u) => `${u}x`)
        .join('\n')}\n`,
    );
    await prepareSeeds(
      [join(dir, 'seeds2.txt')],
      join(dir, 'live'),
      UrlFilters.fromFiles(join(ROOT, 'conf', 'regex-urlfilter.txt'), join(ROOT, 'conf', 'regex-normalize.json')),
      Configuration.load(),
      () => {},
    );
    inputs.inject = { paths: [...partsOf(liveDb), ...partsOf(join(dir, 'live', 'seeds'))], minMapped: 150, minOut: 150 };
    inputs.generate = { paths: partsOf(liveDb), minMapped: 100, minOut: 100 };
    inputs.parse = { paths: [manifest], minMapped: 100, minOut: 90 };
  }, 60_000);
  /** What each map task of a streaming job reads: the file on stdin, its name in the environment. */
  const streamedMap = async (name: string, paths: string[]) => {
    let out = '';
    for (const p of paths) out += await sh(`${p.endsWith('.gz') ? 'zcat' : 'cat'} ${p} | mapreduce_map_input_file=${p} node ${bin} job ${name} map`);
    return out;
  };
  /** An index part (SQLite) as the `key TAB doc` lines its streaming reduce printed. */
  const indexText = (part: string) => {
    const db = new Database(part, { readonly: true });
    const rows = db
      .prepare(
        'SELECT url, digest, date, dates, mime, status, length, collection, segment, file, location, offset, clen, title, inlinks, boost FROM docs ORDER BY id',
      )
      .all() as Record<string, unknown>[];
    db.close();
    return rows.map((r) => `${r.url} ${r.digest}\t${JSON.stringify({ ...r, dates: String(r.dates).split(' ') })}\n`).join('');
  };
  const streamedIndexText = (lines: string) =>
    lines
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const tab = l.indexOf('\t');
        const d = JSON.parse(l.slice(tab + 1));
        const { url, digest, date, dates, mime, status, length, collection, segment, file, location, offset, clen, title, inlinks, boost } = d;
        return `${l.slice(0, tab)}\t${JSON.stringify({ url, digest, date, dates: dates.join(' ').split(' '), mime, status, length, collection, segment, file, location, offset, clen, title, inlinks, boost })}\n`;
      })
      .join('');
  const sh = async (script: string, stdin?: string) => {
    const r = await run('bash', ['-c', script], { input: stdin, env: { ...process.env, LC_ALL: 'C' } });
    if (r.code !== 0) throw new Error(`${script}: ${r.stderr}`);
    return r.stdout;
  };
  const bin = join(__dirname, '..', 'bin', 'run.js');
  /** A part as `key TAB value` text: the part itself, or one named output of streaming reduce lines. */
  const partText = (out: string, p: number, output?: string) => sh(`zcat ${join(out, ...(output ? [output] : []), `part-0000${p}.gz`)}`);
  const fieldOf = (lines: string, output: string) =>
    lines
      .split('\n')
      .filter(Boolean)
      .flatMap((l) => {
        const tab = l.indexOf('\t');
        const v = JSON.parse(l.slice(tab + 1))[output];
        return v === undefined ? [] : [`${l.slice(0, tab)}\t${JSON.stringify(v)}\n`];
      })
      .join('');

  it.each(JOB_NAMES)(
    '%s: every part equals map | LC_ALL=C sort | reduce of its partition',
    async (name) => {
      const job = (await findJob(name))!;
      const input = inputs[name];
      expect(input, `the test has no input for job ${name}`).toBeDefined();
      const reduces = 3;
      const out = join(dir, `out-${name}`);
      const ran = await nwax(['job', name, 'run', '-o', out, '--reduces', String(reduces), '--memory', '8K', ...input.paths]);
      expect(ran.code, ran.stderr).toBe(0);
      await breathe();
      const mapped = (await streamedMap(name, input.paths)).split('\n').filter(Boolean);
      await breathe();
      expect(mapped.length).toBeGreaterThan(input.minMapped);
      let total = 0;
      let multiValued = 0;
      const streamedDir = join(dir, `streamed-${name}`);
      mkdirSync(streamedDir, { recursive: true });
      for (let p = 0; p < reduces; p++) {
        const mine = mapped.filter((l) => hashPartition(l.slice(0, l.indexOf('\t')), reduces) === p);
        const streamed = await sh(`sort | node ${bin} job ${name} reduce`, mine.length ? `${mine.join('\n')}\n` : '');
        // Hadoop sorts by key only: a key's values reach the reducer in any order. Reversed within
        // each key, the reduce gives the same bytes.
        const sorted = (await sh('sort', mine.length ? `${mine.join('\n')}\n` : '')).split('\n').filter(Boolean);
        const reversed = reverseWithinKeys(sorted);
        multiValued += reversed.groups;
        expect(
          await sh(`node ${bin} job ${name} reduce`, reversed.lines.length ? `${reversed.lines.join('\n')}\n` : ''),
          `${name} part ${p}, values reversed within keys`,
        ).toBe(streamed);
        // As Hadoop would leave it: one part of reduced lines per partition.
        writeFileSync(join(streamedDir, `part-0000${p}`), streamed);
        await breathe();
        if (job.outputFormat) {
          // The index: the part's documents, in order, are the streaming reduce's records.
          const local = indexText(join(out, `part-0000${p}`));
          expect(local).toBe(streamedIndexText(streamed));
          total += local.split('\n').filter(Boolean).length;
        } else if (job.outputs) {
          for (const o of job.outputs) expect(await partText(out, p, o), `${o}/part-0000${p}`).toBe(fieldOf(streamed, o));
          total += (await partText(out, p, job.outputs[0])).split('\n').filter(Boolean).length;
        } else {
          const local = await partText(out, p);
          expect(local).toBe(streamed);
          total += local.split('\n').filter(Boolean).length;
        }
      }
      expect(total).toBeGreaterThan(input.minOut);
      // The reversal was a test: keys with different values, but in the jobs whose keys hold one
      // value by design (generate: a sort key per URL) or equal values (cdx-url-count: ones).
      if (!['cdx-url-count', 'generate'].includes(name)) expect(multiValued, `${name}: keys with several different values`).toBeGreaterThan(0);
      expect(readFileSync(join(out, '_SUCCESS'), 'utf8')).toBe('');
      const outs = job.outputs ?? [undefined];
      const same = async (a: string, b: string, p: number, o?: string) =>
        job.outputFormat
          ? expect(indexText(join(a, `part-0000${p}`))).toBe(indexText(join(b, `part-0000${p}`)))
          : expect(await partText(a, p, o)).toBe(await partText(b, p, o));
      // The streaming job's output, brought into the job's layout here, is the local run's output.
      const written = join(dir, `written-${name}`);
      const w = await nwax(['job', name, 'write', '-o', written, ...[0, 1, 2].map((p) => join(streamedDir, `part-0000${p}`))]);
      expect(w.code, w.stderr).toBe(0);
      for (let p = 0; p < reduces; p++) for (const o of outs) await same(written, out, p, o);
      for (const o of outs) expect(readFileSync(join(written, ...(o ? [o] : []), '_SUCCESS'), 'utf8')).toBe('');
      // Many map tasks (16 KiB splits at most) on two worker threads: the same bytes.
      await breathe();
      const threaded = join(dir, `threaded-${name}`);
      const t = await nwax([
        'job',
        name,
        'run',
        '-o',
        threaded,
        '--reduces',
        String(reduces),
        '--threads',
        '2',
        '-D',
        'mapreduce.input.fileinputformat.split.maxsize=16K',
        ...input.paths,
      ]);
      expect(t.code, t.stderr).toBe(0);
      // (Gzipped parts are one split each; plain inputs are cut into 16 KiB splits.)
      expect(Number(/(\d+) map tasks?/.exec(t.stderr)?.[1])).toBeGreaterThanOrEqual(Math.min(4, input.paths.length));
      for (let p = 0; p < reduces; p++) for (const o of outs) await same(threaded, out, p, o);
      // A small buffer (many spills) merged two runs at a time (merge passes before the reduce).
      await breathe();
      const passes = join(dir, `passes-${name}`);
      const m = await nwax([
        'job',
        name,
        'run',
        '-o',
        passes,
        '--reduces',
        String(reduces),
        '--memory',
        '16K',
        '-D',
        'mapreduce.task.io.sort.factor=2',
        ...input.paths,
      ]);
      expect(m.code, m.stderr).toBe(0);
      expect(Number(/runs merged in passes (\d+)/.exec(m.stderr)?.[1])).toBeGreaterThan(0);
      for (let p = 0; p < reduces; p++) for (const o of outs) await same(passes, out, p, o);
      // Five runs of the job and a streamed map and reduce: import and parse take over a minute
      // when another test file runs beside this one on CI's two cores.
    },
    180_000,
  );

  it('lists the jobs and prints a Hadoop Streaming command with generic options first', async () => {
    expect((await nwax(['job', '--list'])).stdout).toContain('cdx-url-count');
    const cmd = (await nwax(['job', 'cdx-url-count', 'run', '--engine', 'hadoop', '--reduces', '4', '-o', '/out', '/in/a', '/in/b'])).stdout.trim();
    // Written aside, then put in place of the old output with hadoop fs (an output directory must not exist).
    expect(cmd).toMatch(
      /^hadoop jar \S+hadoop-streaming\S*\.jar -D mapreduce\.job\.name=nwax-cdx-url-count -D mapreduce\.job\.reduces=4 (-files \S+ -cmdenv NWAX_CONF_DIR=\. )?-input \/in\/a -input \/in\/b -output \/out\.tmp-(\d{14}) -mapper 'nwax job cdx-url-count map' -combiner 'nwax job cdx-url-count combine' -reducer 'nwax job cdx-url-count reduce' -lazyOutput \\\n {2}&& hadoop fs -rm -r -f \/out\.old && \{ ! hadoop fs -test -e \/out \|\| hadoop fs -mv \/out \/out\.old; \} && hadoop fs -mv \/out\.tmp-\2 \/out && hadoop fs -rm -r -f \/out\.old$/,
    );
    const bad = await nwax(['job', 'no-such-job', 'run', '-o', '/x', '/y']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no job named no-such-job/);
  });
});

describe.skipIf(!HAVE_FIXTURES)('a job killed in the middle of its reduce', () => {
  it('leaves the previous dataset untouched; the rerun gives the bytes of an uninterrupted run', async () => {
    const { spawn } = await import('node:child_process');
    const { existsSync, readdirSync } = await import('node:fs');
    const dir = tempDir();
    const small = join(dir, 'small.cdx');
    writeFileSync(small, (await nwax(['cdx', '-q', fixture('pywb/iana.warc.gz')])).stdout);
    // A larger input: the same lines under 400 made-up hosts, so the reduce takes a while.
    const base = (await nwax(['cdx', '-q', '--no-header', fixture('wget/crawl1.warc.gz')])).stdout.split('\n').filter(Boolean);
    const big = join(dir, 'big.cdx');
    writeFileSync(big, Array.from({ length: 400 }, (_, h) => base.map((l) => `h${h},${l}`).join('\n')).join('\n') + '\n');
    const out = join(dir, 'counts');
    expect((await nwax(['job', 'cdx-url-count', 'run', '-o', out, '--reduces', '3', small])).code).toBe(0);
    const before = readdirSync(out).map((f) => [f, readFileSync(join(out, f)).toString('base64')]);

    const bin = join(__dirname, '..', 'bin', 'run.js');
    const child = spawn(process.execPath, [bin, 'job', 'cdx-url-count', 'run', '-o', out, '--reduces', '8', '--memory', '1M', big], { stdio: 'ignore' });
    const exited = new Promise<string | null>((r) => child.once('exit', (_code, signal) => r(signal)));
    const tmp = join(dir, `.counts.tmp-${child.pid}`);
    // Kill it as soon as its reduce has started writing the new version (7 parts still to go).
    for (let i = 0; i < 6000 && !existsSync(join(tmp, 'part-00000.gz')); i++) await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGKILL');
    expect(await exited, 'the job ended before it could be killed mid-reduce').toBe('SIGKILL');

    expect(readdirSync(out).map((f) => [f, readFileSync(join(out, f)).toString('base64')])).toEqual(before);
    // The killed job's lock is taken over with a warning, its temporary version and spills removed.
    const rerun = await nwax(['job', 'cdx-url-count', 'run', '-o', out, '--reduces', '8', '--memory', '1M', big]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(new RegExp(`counts: took over the lock left by process ${child.pid}, which is gone`));
    const fresh = join(dir, 'fresh');
    expect((await nwax(['job', 'cdx-url-count', 'run', '-o', fresh, '--reduces', '8', big])).code).toBe(0);
    for (const f of readdirSync(fresh).filter((n) => /^part-\d+\.gz$/.test(n))) {
      expect(gunzipSync(readFileSync(join(out, f))).equals(gunzipSync(readFileSync(join(fresh, f))))).toBe(true);
    }
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  }, 120_000);
});

describe('nwax job on bad input', () => {
  it('reads a directory as Hadoop does, names a missing input, and counts lines that are not CDX', async () => {
    const dir = tempDir();
    const missing = await nwax(['job', 'cdx-url-count', 'run', '-o', join(dir, 'o1'), join(dir, 'nope.cdx')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.cdx: no such file/);
    // A directory is its files, hidden and _ files left out (a streaming job's output as input).
    const input = join(dir, 'in');
    mkdirSync(input);
    writeFileSync(join(input, 'part-00000'), 'com,example)/ 20200101000000 http://example.com/ text/html 200 A - - 1 0 a.warc.gz\n');
    writeFileSync(join(input, 'part-00001'), 'com,example)/b 20200101000000 http://example.com/b text/html 200 B - - 1 0 a.warc.gz\n');
    writeFileSync(join(input, '_SUCCESS'), '');
    writeFileSync(join(input, '.part-00000.crc'), 'not CDX\n');
    const fromDir = await nwax(['job', 'cdx-url-count', 'run', '-o', join(dir, 'o2'), input]);
    expect(fromDir.code, fromDir.stderr).toBe(0);
    const fromFiles = await nwax(['job', 'cdx-url-count', 'run', '-o', join(dir, 'o2f'), join(input, 'part-00000'), join(input, 'part-00001')]);
    expect(fromFiles.code, fromFiles.stderr).toBe(0);
    expect(fromDir.stderr).toMatch(/map input records 2/);
    expect(fromDir.stderr).not.toMatch(/not CDX/);
    expect(partRecords(join(dir, 'o2', 'part-00000.gz'))).toEqual(partRecords(join(dir, 'o2f', 'part-00000.gz')));
    mkdirSync(join(input, 'deeper'));
    const isDir = await nwax(['job', 'cdx-url-count', 'run', '-o', join(dir, 'o4'), input]);
    expect(isDir.code).toBe(1);
    expect(isDir.stderr).toMatch(/deeper: a directory inside the input directory/);
    const garbage = join(dir, 'garbage.bin');
    writeFileSync(garbage, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
    const r = await nwax(['job', 'cdx-url-count', 'run', '-o', join(dir, 'o3'), garbage]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/not CDX lines \d+/);
    for (const s of [missing.stderr, isDir.stderr, r.stderr]) expect(s).not.toMatch(/internal error|\n\s+at /);
  });

  it('a streaming map waits for a slow reader: no listener per write, the records wait in the archive', async () => {
    const dir = tempDir();
    // 200 pages of 60 KB of text: 12 MB of map output, 12 flushes past the 1 MiB buffer.
    const records = Array.from({ length: 200 }, (_, i) => ({
      url: `http://slow.example/${i}.html`,
      date: '20200101000000',
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      body: `<html><head><title>Page ${i}</title></head><body><p>${`word${i} `.repeat(7000)}</p></body></html>`,
    }));
    const warc = join(dir, 'slow.warc.gz');
    await writeWarc(warc, records);
    const r = await run('bash', ['-c', `echo '${warc} slow' | node ${join(ROOT, 'bin', 'run.js')} job import map | (sleep 2; wc -l)`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('200');
    expect(r.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak/);
  });

  it('names the line of reduce input that is not key TAB json, and where a gzip input is cut', async () => {
    const bad = await nwax(['job', 'cdx-url-count', 'reduce'], { input: 'a\t1\nb\tnot json\n' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/reduce input, line 2: not "key TAB value-json"/);
    const dir = tempDir();
    const cut = join(dir, 'cut.cdx.gz');
    const lines = Array.from({ length: 20000 }, (_, i) => `org,example)/${i} 20070101000000 http://example.org/${i} text/html 200 AAAA - - 10 ${i} a.gz`).join(
      '\n',
    );
    writeFileSync(cut, spawnSync('gzip', ['-c'], { input: lines }).stdout.subarray(0, 20000));
    for (const cmd of [
      ['job', 'cdx-url-count', 'map', cut],
      ['sort-cdx', cut],
    ]) {
      const r = await nwax(cmd);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/cut\.cdx\.gz: after line \d+: corrupt or cut-short gzip data/);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    }
    // A dataset part with a line that is not key TAB json: the file and the line are named.
    const part = join(dir, 'crawl_fetch', 'part-00000.gz');
    mkdirSync(join(dir, 'crawl_fetch'));
    writeFileSync(part, 'http://a.example/ sha1:AAAA\t{"status":"fetch_success","date":"20070101000000"}\nhttp://b.example/ sha1:BBBB\tgarbage\n');
    const m = await nwax(['job', 'updatedb', 'run', '-o', join(dir, 'db'), part]);
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/job updatedb: .*crawl_fetch\/part-00000\.gz: line 2: not "key TAB value-json" \("garbage"\)/);
    expect(m.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});

describe('a reduce task under Hadoop Streaming', () => {
  it("writes its partition as the local runner does, as side-effect files in the task's work directory, nothing on stdout", async () => {
    const dir = tempDir();
    const cdx = join(dir, 'in.cdx');
    writeFileSync(
      cdx,
      Array.from(
        { length: 3000 },
        (_, i) => `org,example)/${i % 700}/${'é✓'[i % 2]} 2007010100000${i % 10} http://example.org/ text/html 200 AAAA - - 10 ${i} a.gz`,
      ).join('\n') + '\n',
    );
    const local = join(dir, 'local');
    expect((await nwax(['job', 'cdx-url-count', 'run', '-o', local, '--reduces', '3', cdx])).code).toBe(0);
    const mapped = (await run('bash', ['-c', `node ${join(ROOT, 'bin', 'run.js')} job cdx-url-count map ${cdx} | LC_ALL=C sort`])).stdout;
    for (let p = 0; p < 3; p++) {
      // The environment Hadoop gives a reduce task: its work output directory (a URI) and partition.
      const work = join(dir, `_temporary/attempt_r_00000${p}_0`);
      const mine =
        mapped
          .split('\n')
          .filter((l) => l && hashPartition(l.slice(0, l.indexOf('\t')), 3) === p)
          .join('\n') + '\n';
      const r = await nwax(['job', 'cdx-url-count', 'reduce'], {
        input: mine,
        env: { mapreduce_task_output_dir: `file:${work}`, mapreduce_task_partition: String(p) },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/reporter:counter:nwax,reduce output records,\d+/);
      const name = `part-0000${p}.gz`;
      expect(readdirSync(work).sort()).toEqual([`.${name}.idx`, name]);
      expect(readFileSync(join(work, name)).equals(readFileSync(join(local, name))), name).toBe(true);
      expect(readFileSync(join(work, `.${name}.idx`), 'utf8')).toBe(readFileSync(join(local, `.${name}.idx`), 'utf8'));
    }
    // A gzip part that reaches a map as text (named without .gz, so Hadoop did not inflate it).
    const gz = join(dir, 'crawl_fetch', 'part-00000');
    mkdirSync(join(dir, 'crawl_fetch'));
    writeFileSync(gz, readFileSync(join(local, 'part-00000.gz')));
    const m = await nwax(['job', 'updatedb', 'map'], { input: readFileSync(gz), env: { mapreduce_map_input_file: gz } });
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/crawl_fetch\/part-00000: line 1: not "key TAB value-json" \(gzip bytes read as text: a gzip part must be named \*\.gz/);
    expect(m.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});
