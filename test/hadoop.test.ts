/**
 * The NutchWAX session on real Apache Hadoop 2.6 Streaming (local mode: LocalJobRunner, the
 * local file system standing for HDFS; an unpacked Apache Hadoop 2.x release; docs/hadoop.md):
 * import -e, updatedb, invertlinks, index and the dates job with `--engine hadoop --run`, beside
 * the local runner on the same archives. Every dataset, every index and the search results
 * must be the same; each engine reads what the other wrote. Skipped, saying so, where there is
 * no Hadoop (CI has none): set NWAX_HADOOP_HOME or put `hadoop` on the PATH.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { counters, dataset, firstDifference } from './hadoop-compare.js';
import { BIN, fixture, HAVE_FIXTURES, ROOT, nwaxAsync, tempDir, type RunResult } from './helpers.js';

const HOME = process.env.NWAX_HADOOP_HOME;
const HADOOP =
  HOME && existsSync(join(HOME, 'bin', 'hadoop'))
    ? join(HOME, 'bin', 'hadoop')
    : spawnSync('sh', ['-c', 'command -v hadoop']).stdout?.toString().trim() || undefined;

if (!HADOOP) console.log('hadoop.test: skipped: no Hadoop (set NWAX_HADOOP_HOME, to an unpacked Apache Hadoop 2.x release; docs/hadoop.md)');

describe.skipIf(!HADOOP)('the pipeline on real Hadoop Streaming', () => {
  const dir = tempDir();
  // The task nodes run `nwax` from the PATH: this checkout. The shared local-mode launcher's
  // `hadoop fs` has no -mv and takes no file: URIs (real Hadoop's does both): here they are
  // mv and the path. Local mode has no HDFS: `hadoop fs -cat hdfs://localhost/PATH` stands
  // for a read of PATH from the cluster, to show how an import reads a manifest's hdfs:// archives.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'nwax'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  writeFileSync(
    join(bin, 'hadoop'),
    [
      '#!/bin/sh',
      'if [ "$1" = fs ] && [ "$2" = -cat ]; then case "$3" in hdfs://localhost/*) p=${3#hdfs://localhost}; [ -f "$p" ] || { echo "cat: $3: No such file or directory" >&2; exit 1; }; exec cat "$p" ;; esac; fi',
      'if [ "$1" = fs ]; then',
      '  sub=$2; shift 2; args=""',
      `  for a in "$@"; do a=\${a#file:}; args="$args '$a'"; done`,
      '  if [ "$sub" = -mv ]; then eval exec mv $args; fi',
      `  eval exec ${JSON.stringify(HADOOP)} fs "$sub" $args`,
      'fi',
      `exec ${JSON.stringify(HADOOP)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(join(bin, 'nwax'), 0o755);
  chmodSync(join(bin, 'hadoop'), 0o755);
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };

  /** nwax in a child process (Hadoop jobs take seconds: the test worker must not block). */
  const run = (args: string[]): Promise<RunResult> => nwaxAsync(args, { cwd: dir, env });
  const ok = async (args: string[], codes = [0]): Promise<RunResult> => {
    const r = await run(args);
    expect(
      codes,
      `nwax ${args.join(' ')}\n${r.stderr
        .split('\n')
        .filter((l) => !/ INFO /.test(l))
        .join('\n')}`,
    ).toContain(r.code);
    return r;
  };

  const archives = [
    join(ROOT, 'fixtures', 'example', 'dedup-example.warc.gz'),
    ...(HAVE_FIXTURES ? ['pywb/iana.warc.gz', 'wget/crawl1.warc.gz', 'wget/crawl2.warc.gz'].map(fixture) : []),
  ];
  const manifest = join(dir, 'manifest');
  writeFileSync(manifest, archives.map((a, i) => `${a} coll${i % 2}`).join('\n') + '\n');
  const dups = join(dir, 'all.dup');

  const session = async (crawl: string, engine: string[]) => {
    const seg = join(crawl, 'segments', '20071011000000');
    const log: Record<string, string> = {};
    log.import = (await ok(['import', ...engine, '--reduces', '2', '-e', dups, manifest, seg], [0, 3])).stderr;
    log.updatedb = (await ok(['updatedb', ...engine, '--reduces', '2', join(crawl, 'crawldb'), seg])).stderr;
    log.invertlinks = (await ok(['invertlinks', ...engine, '--reduces', '2', join(crawl, 'linkdb'), seg])).stderr;
    log.index = (await ok(['index', ...engine, '--reduces', '2', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg])).stderr;
    log.dates = (await ok(['job', 'dates', 'run', ...engine, '-o', join(crawl, 'dates'), dups])).stderr;
    await ok(['add-dates', join(crawl, 'indexes'), join(crawl, 'indexes'), join(crawl, 'pindexes'), join(crawl, 'dates')]);
    return { seg, log };
  };

  it("gives the local runner's segment, CrawlDb, LinkDb, indexes, dates and search results", async () => {
    const cdx = join(dir, 'all.cdx');
    await ok(['cdx', '-o', cdx, ...archives]);
    writeFileSync(dups, (await ok(['dedup-cdx', cdx])).stdout);
    const local = await session(join(dir, 'local'), []);
    const hadoop = await session(join(dir, 'hadoop'), ['--engine', 'hadoop', '--run']);
    for (const d of ['segments/20071011000000', 'crawldb', 'linkdb', 'dates']) {
      const a = dataset(join(dir, 'local', d));
      const b = dataset(join(dir, 'hadoop', d));
      expect(Object.keys(b).length, d).toBeGreaterThan(0);
      expect(Object.keys(b), d).toEqual(Object.keys(a));
      for (const part of Object.keys(a)) expect(firstDifference(a[part], b[part]), `${d}/${part}`).toBe('');
    }
    for (const p of ['indexes/part-00000', 'indexes/part-00001', 'pindexes/part-00000/dates', 'pindexes/part-00001/dates']) {
      const a = await ok(['dumpindex', join(dir, 'local', p)]);
      const b = await ok(['dumpindex', join(dir, 'hadoop', p)]);
      expect(b.stdout.length, p).toBeGreaterThan(100);
      expect(b.stdout, p).toBe(a.stdout);
    }
    // The summary on Hadoop carries the local run's counters.
    for (const job of ['import', 'updatedb', 'invertlinks', 'index', 'dates']) {
      expect(counters(hadoop.log[job], job), job).toEqual(counters(local.log[job], job));
      expect(hadoop.log[job], job).toMatch(new RegExp(`${job}: on Hadoop, \\d+ reduces?, output in `));
    }
    expect(counters(hadoop.log.import, 'import')['repeat captures merged'] ?? 0).toBeGreaterThanOrEqual(0);
    for (const q of ['welcome', 'url:http://example.org/index.html', 'date:20071005 welcome', 'iana', 'debian']) {
      const a = JSON.parse((await ok(['search', '--json', '--dir', join(dir, 'local'), q])).stdout);
      const b = JSON.parse((await ok(['search', '--json', '--dir', join(dir, 'hadoop'), q])).stdout);
      const hits = (r: { hits: { url: string; digest: string; dates: string[]; title: string }[] }) => r.hits.map((h) => [h.url, h.digest, h.dates, h.title]);
      expect(hits(b), q).toEqual(hits(a));
      // The worked example: five versions of the page, its ten capture dates back through add-dates.
      if (q.startsWith('url:')) expect(hits(b).flatMap((h) => h[2] as string[]).length).toBe(10);
    }

    // Each engine reads what the other wrote: local commands on the Hadoop segment, a Hadoop
    // job on the local one.
    const list = await ok(['readseg', '-list', hadoop.seg]);
    expect(list.stdout).toBe((await ok(['readseg', '-list', local.seg])).stdout);
    await ok(['updatedb', '--reduces', '2', join(dir, 'cross-local-db'), hadoop.seg]);
    // (The reduces copy their parts in with `hadoop fs -put`, as they do on HDFS.)
    await ok([
      'updatedb',
      '--engine',
      'hadoop',
      '--run',
      '--reduces',
      '2',
      '-D',
      'nwax.hadoop.task.output.put=always',
      join(dir, 'cross-hadoop-db'),
      local.seg,
    ]);
    const once = dataset(join(dir, 'cross-local-db'));
    expect(Object.values(once).join('')).toBe(Object.values(dataset(join(dir, 'cross-hadoop-db'))).join(''));
    expect(Object.values(once).join('').split('\n').length).toBeGreaterThan(5);
    // The local index job over what Hadoop wrote gives the index Hadoop's index job gave.
    const crossIndexes = join(dir, 'cross-indexes');
    await ok(['index', '--reduces', '2', crossIndexes, join(dir, 'hadoop', 'crawldb'), join(dir, 'hadoop', 'linkdb'), hadoop.seg]);
    for (const p of ['part-00000', 'part-00001']) {
      expect((await ok(['dumpindex', join(crossIndexes, p)])).stdout, p).toBe((await ok(['dumpindex', join(dir, 'hadoop', 'indexes', p)])).stdout);
    }
  }, 600_000);

  it("gives the local runner's parts and counters for cdx-url-count, which the local runner maps and sums as bytes", async () => {
    // The archives' CDX with lines the byte paths must read as the streaming tasks do:
    // non-ASCII and invalid UTF-8 keys, legends, a control character, CR, no final newline.
    const cdx = join(dir, 'count.cdx');
    await ok(['cdx', '-o', cdx, ...archives]);
    const awkward = Buffer.concat([
      readFileSync(cdx),
      Buffer.from('org,example)/caf\u00e9 2020 x\n!meta\n\nctrl\u0001key 1\ncrlf 2020\r\n'),
      Buffer.from([0x62, 0x61, 0x64, 0xff, 0x20, 0x31, 0x0a]),
      Buffer.from('org,example)/caf\u00e9 2021 x'),
    ]);
    writeFileSync(cdx, awkward);
    const local = await ok(['job', 'cdx-url-count', 'run', '--reduces', '3', '-o', join(dir, 'count-local'), cdx]);
    const hadoop = await ok(['job', 'cdx-url-count', 'run', '--engine', 'hadoop', '--run', '--reduces', '3', '-o', join(dir, 'count-hadoop'), cdx]);
    const a = dataset(join(dir, 'count-local'));
    expect(Object.keys(a).length).toBe(3);
    expect(dataset(join(dir, 'count-hadoop'))).toEqual(a);
    expect(Object.values(a).join('')).toContain('org,example)/caf\u00e9\t2\n');
    expect(Object.values(a).join('')).toContain('bad\ufffd\t1\n');
    const counted = counters(local.stderr, 'cdx-url-count', 'job');
    expect(counted['legend lines']).toBe(3);
    expect(counted['not CDX lines']).toBe(1);
    expect(counters(hadoop.stderr, 'cdx-url-count', 'job')).toEqual(counted);
  }, 300_000);

  it('reports bad input on the cluster path as it does locally: a missing archive, a missing segment', async () => {
    const bad = join(dir, 'bad-manifest');
    const cut = join(dir, 'cut.warc.gz');
    const bytes = readFileSync(archives[0]);
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.55)));
    writeFileSync(bad, `${archives[0]} a\n${join(dir, 'no-such.warc.gz')} a\n${cut} b\n`);
    const r = await run(['import', '--engine', 'hadoop', '--run', bad, join(dir, 'bad', 'seg')]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/no-such\.warc\.gz: no such file/);
    expect(r.stderr).toMatch(/cut\.warc\.gz: offset \d+: .*record skipped/);
    expect(r.stderr).toMatch(/archives failed 1/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at [\w.]+ \(/);
    const local = await run(['import', bad, join(dir, 'bad', 'local-seg')]);
    expect(local.code).toBe(3);
    expect(counters(r.stderr, 'import')).toEqual(counters(local.stderr, 'import'));
    // Archives named by the cluster's URLs are read with `hadoop fs -cat`, here and in the tasks.
    const remote = join(dir, 'hdfs-manifest');
    writeFileSync(remote, `hdfs://localhost${archives[0]} a\nhdfs://localhost${join(dir, 'gone.warc.gz')} a\n`);
    const h = await run(['import', '--engine', 'hadoop', '--run', remote, join(dir, 'bad', 'hdfs-seg')]);
    expect(h.code, h.stderr).toBe(3);
    expect(h.stderr).toMatch(/hdfs:\/\/localhost\/\S+gone\.warc\.gz: hadoop fs -cat failed: .*No such file or directory/);
    expect(h.stderr).toMatch(/documents 5\b/);
    const seg = await run(['updatedb', '--engine', 'hadoop', '--run', join(dir, 'bad', 'db'), join(dir, 'bad', 'nope')]);
    expect(seg.code).toBe(1);
    expect(seg.stderr).toMatch(/bad\/nope: no such directory on the cluster's file system/);
  }, 300_000);

  it.skipIf(!HAVE_FIXTURES)(
    "imports a WACZ package on the cluster's file system as it imports it locally, its captures named by the cluster's URL",
    async () => {
      // `hadoop fs` reads from a file's start only: the package is copied to the task's
      // temporary directory (its directory and entries are read by offset) and removed after.
      const pkg = fixture('wacz/example.wacz');
      const tmp = join(dir, 'task-tmp');
      mkdirSync(tmp, { recursive: true });
      const hdfs = join(dir, 'hdfs-wacz-manifest');
      writeFileSync(hdfs, `hdfs://localhost${pkg} wr\n`);
      const plain = join(dir, 'wacz-manifest');
      writeFileSync(plain, `${pkg} wr\n`);
      const onHadoop = await nwaxAsync(['import', '--engine', 'hadoop', '--run', '--reduces', '2', hdfs, join(dir, 'wacz', 'hadoop')], {
        cwd: dir,
        env: { ...env, TMPDIR: tmp },
      });
      expect(onHadoop.code, onHadoop.stderr).toBe(0);
      const here = await nwaxAsync(['import', '--reduces', '2', hdfs, join(dir, 'wacz', 'local')], { cwd: dir, env: { ...env, TMPDIR: tmp } });
      expect(here.code, here.stderr).toBe(0);
      const local = await ok(['import', '--reduces', '2', plain, join(dir, 'wacz', 'plain')]);
      // The same documents and counts as the package read where it lies on this machine.
      const counted = counters(local.stderr, 'import', 'import', true);
      expect(counted.documents).toBeGreaterThan(0);
      expect(counters(onHadoop.stderr, 'import', 'import', true)).toEqual(counted);
      expect(counters(here.stderr, 'import', 'import', true)).toEqual(counted);
      // Hadoop's segment is the local runner's, byte for byte; and the plain import's but for the location.
      const [a, b, c] = ['hadoop', 'local', 'plain'].map((k) => dataset(join(dir, 'wacz', k)));
      expect(Object.keys(a).length).toBeGreaterThan(0);
      expect(Object.keys(a)).toEqual(Object.keys(b));
      for (const part of Object.keys(a)) expect(firstDifference(b[part], a[part]), part).toBe('');
      const content = Object.keys(a)
        .filter((k) => k.startsWith('content/'))
        .map((k) => a[k])
        .join('');
      expect(content).toContain(`hdfs://localhost${pkg}#archive/data.warc.gz`);
      for (const part of Object.keys(c)) expect(a[part].split(`hdfs://localhost${pkg}`).join(pkg), part).toBe(c[part]);
      // Indexed where it lies on the cluster, the package gives the lines it gives on this machine.
      const there = await nwaxAsync(['cdx', '-f', 'cdxj', `hdfs://localhost${pkg}`], { cwd: dir, env: { ...env, TMPDIR: tmp } });
      expect(there.code, there.stderr).toBe(0);
      expect(there.stdout.split('\n').length).toBeGreaterThan(5);
      expect(there.stdout).toBe((await ok(['cdx', '-f', 'cdxj', pkg])).stdout);
      // No copy left behind.
      expect(readdirSync(tmp).filter((f) => f.startsWith('nwax-cluster-'))).toEqual([]);
    },
    300_000,
  );
});
