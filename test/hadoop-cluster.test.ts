/**
 * docs/hadoop.md's cluster session on a pseudo-distributed Hadoop (scripts/hadoop-pseudo.sh):
 * YARN runs every task in its own container, HDFS is fs.defaultFS, the archives, manifest and
 * exclusion list live on HDFS and the session names them by cluster paths, as the docs write it.
 * The local runner runs the same manifest (its archives read through `hadoop fs -cat`); every
 * dataset, index, dates index, the jobs' data counters and a set of queries must be the same.
 * Then a task that fails on the cluster must be reported with its own words.
 *
 * Needs a cluster: NWAX_PSEUDO_WORK names a running one (`scripts/hadoop-pseudo.sh start`
 * wrote its WORK/env), or NWAX_HADOOP_CLUSTER_HOME a distribution with YARN and HDFS, which the
 * test starts and stops itself (an unpacked Apache Hadoop 2.x release with a JDK; docs/hadoop.md).
 * Skipped, saying so, otherwise (CI has none). NWAX_BENCH_ARCHIVE adds the bench corpus.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { counters, dataset, firstDifference } from './hadoop-compare.js';
import { fixture, HAVE_FIXTURES, ROOT, nwaxAsync, run as runCommand, tempDir, type RunResult } from './helpers.js';

const RUNNING = process.env.NWAX_PSEUDO_WORK && existsSync(join(process.env.NWAX_PSEUDO_WORK, 'env')) ? process.env.NWAX_PSEUDO_WORK : undefined;
const DIST = process.env.NWAX_HADOOP_CLUSTER_HOME;
const CAN = Boolean(RUNNING || (DIST && existsSync(join(DIST, 'sbin', 'start-yarn.sh'))));
if (!CAN)
  console.log(
    'hadoop-cluster.test: skipped: no pseudo-distributed cluster (set NWAX_HADOOP_CLUSTER_HOME to a Hadoop distribution with YARN and HDFS, or NWAX_PSEUDO_WORK to a running scripts/hadoop-pseudo.sh cluster)',
  );

describe.skipIf(!CAN)('the cluster session on YARN and HDFS', () => {
  const dir = tempDir();
  const work = RUNNING ?? join(dir, 'cluster');
  let env: NodeJS.ProcessEnv = {};
  let fsUri = '';
  const user = process.env.USER || spawnSync('id', ['-un']).stdout.toString().trim();
  const home = `/user/${user}`;

  beforeAll(() => {
    if (!RUNNING) {
      const r = spawnSync('bash', [join(ROOT, 'scripts', 'hadoop-pseudo.sh'), 'start', work], {
        env: { ...process.env, HADOOP_CLUSTER_HOME: DIST },
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`scripts/hadoop-pseudo.sh start: ${r.stderr.slice(-2000)}`);
    }
    const vars = Object.fromEntries(
      readFileSync(join(work, 'env'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    env = { ...process.env, ...vars };
    delete env.HADOOP_STREAMING_JAR; // found under HADOOP_HOME, versioned, as docs/hadoop.md says
    delete env.NWAX_CONF_DIR;
    fsUri = vars.NWAX_PSEUDO_FS;
  }, 300_000);
  afterAll(() => {
    if (!RUNNING) spawnSync('bash', [join(ROOT, 'scripts', 'hadoop-pseudo.sh'), 'stop', work], { stdio: 'ignore' });
  });

  const nwax = (args: string[]): Promise<RunResult> => nwaxAsync(args, { cwd: dir, env });
  const ok = async (args: string[], codes = [0]): Promise<RunResult> => {
    const r = await nwax(args);
    expect(
      codes,
      `nwax ${args.join(' ')}\n${r.stderr
        .split('\n')
        .filter((l) => !/ (INFO|WARN) |execstack|stack guard/.test(l))
        .join('\n')}`,
    ).toContain(r.code);
    return r;
  };
  const hadoop = async (...args: string[]): Promise<string> => {
    const r = await runCommand('hadoop', args, { cwd: dir, env });
    expect(r.code, `hadoop ${args.join(' ')}: ${r.stderr.slice(-1500)}`).toBe(0);
    return r.stdout;
  };

  /**
   * docs/hadoop.md's session: the jobs on the cluster with the cluster's paths, the indexes and
   * dates brought down with `hadoop fs -get`, add-dates over the whole index here; beside it the
   * same jobs with the local runner. Returns the local crawl, the cluster's datasets brought
   * down, and the jobs' stderr on both.
   */
  async function session(name: string, archives: string[]) {
    const inDir = `${home}/${name}/in`;
    const crawlOnCluster = `${home}/${name}/crawl`;
    const here = join(dir, name);
    mkdirSync(here, { recursive: true });
    // A running cluster may hold an earlier run's crawl: a CrawlDb would be updated, not made.
    await hadoop('fs', '-rm', '-r', '-f', `${home}/${name}`);
    await hadoop('fs', '-mkdir', '-p', inDir);
    await hadoop('fs', '-put', '-f', ...archives, `${inDir}/`);
    const manifest = join(here, 'manifest');
    writeFileSync(manifest, archives.map((a, i) => `${fsUri}${inDir}/${basename(a)} coll${i % 2}\n`).join(''));
    const cdx = join(here, 'all.cdx');
    await ok(['cdx', '-o', cdx, ...archives]);
    const dups = join(here, 'all.dup');
    writeFileSync(dups, (await ok(['dedup-cdx', cdx])).stdout + (await ok(['revisits', cdx])).stdout);
    await hadoop('fs', '-put', '-f', manifest, dups, `${inDir}/`);

    const seg = 'segments/20071011000000';
    const yarn: Record<string, string> = {};
    const c = (p: string) => `${crawlOnCluster}/${p}`;
    // Two partitions on both engines: a cluster's jobs default to mapreduce.job.reduces (1), the
    // local runner's pipeline to one per core; with the same number the parts are comparable.
    const cluster = ['--engine', 'hadoop', '--run', '--reduces', '2'];
    yarn.import = (await ok(['import', ...cluster, '-e', `${inDir}/all.dup`, `${inDir}/manifest`, c(seg)], [0, 3])).stderr;
    yarn.updatedb = (await ok(['updatedb', ...cluster, c('crawldb'), c(seg)])).stderr;
    yarn.invertlinks = (await ok(['invertlinks', ...cluster, c('linkdb'), c(seg)])).stderr;
    yarn.index = (await ok(['index', ...cluster, c('indexes'), c('crawldb'), c('linkdb'), c(seg)])).stderr;
    yarn.dates = (await ok(['job', 'dates', 'run', '--engine', 'hadoop', '--run', '-o', c('dates'), `${inDir}/all.dup`])).stderr;
    const served = join(here, 'served');
    mkdirSync(served);
    await hadoop('fs', '-get', c('indexes'), c('dates'), served);
    await ok(['add-dates', join(served, 'indexes'), join(served, 'indexes'), join(served, 'pindexes'), join(served, 'dates')]);
    const copy = join(here, 'cluster-copy');
    mkdirSync(join(copy, 'segments'), { recursive: true });
    await hadoop('fs', '-get', c('crawldb'), c('linkdb'), c('dates'), copy);
    await hadoop('fs', '-get', c(seg), join(copy, 'segments'));

    const local = join(here, 'local');
    const l = (p: string) => join(local, p);
    const runner: Record<string, string> = {};
    const two = ['--reduces', '2'];
    runner.import = (await ok(['import', ...two, '-e', dups, manifest, l(seg)], [0, 3])).stderr;
    runner.updatedb = (await ok(['updatedb', ...two, l('crawldb'), l(seg)])).stderr;
    runner.invertlinks = (await ok(['invertlinks', ...two, l('linkdb'), l(seg)])).stderr;
    runner.index = (await ok(['index', ...two, l('indexes'), l('crawldb'), l('linkdb'), l(seg)])).stderr;
    runner.dates = (await ok(['job', 'dates', 'run', '-o', l('dates'), dups])).stderr;
    await ok(['add-dates', l('indexes'), l('indexes'), l('pindexes'), l('dates')]);
    return { local, copy, served, seg, yarn, runner };
  }

  async function compare(s: Awaited<ReturnType<typeof session>>, queries: string[]) {
    for (const d of [s.seg, 'crawldb', 'linkdb', 'dates']) {
      const a = dataset(join(s.local, d));
      const b = dataset(join(s.copy, d));
      expect(Object.keys(b).length, d).toBeGreaterThan(0);
      expect(Object.keys(b), d).toEqual(Object.keys(a));
      for (const part of Object.keys(a)) expect(firstDifference(a[part], b[part], ['local', 'yarn']), `${d}/${part}`).toBe('');
    }
    const parts = Object.keys(dataset(join(s.local, 'crawldb'))).map((p) => p.replace(/\.gz$/, ''));
    for (const p of parts.flatMap((part) => [`indexes/${part}`, `pindexes/${part}/dates`])) {
      const a = await ok(['dumpindex', join(s.local, p)]);
      const b = await ok(['dumpindex', join(s.served, p)]);
      expect(b.stdout.length, p).toBeGreaterThan(100);
      expect(b.stdout, p).toBe(a.stdout);
    }
    const seconds = (stderr: string, job: string) => new RegExp(`^nwax [\\w-]+: ${job}: .* in ([\\d.]+) s[ ;]`, 'm').exec(stderr)?.[1] ?? '?';
    console.log(
      `hadoop-cluster.test: ${basename(dirname(s.local))}: seconds per job, YARN vs local runner: ${['import', 'updatedb', 'invertlinks', 'index', 'dates'].map((j) => `${j} ${seconds(s.yarn[j], j)} vs ${seconds(s.runner[j], j)}`).join(', ')}`,
    );
    for (const job of ['import', 'updatedb', 'invertlinks', 'index', 'dates']) {
      expect(counters(s.yarn[job], job, job, true), job).toEqual(counters(s.runner[job], job, job, true));
      expect(s.yarn[job], job).toMatch(new RegExp(`${job}: on Hadoop, \\d+ reduces?, output in `));
    }
    for (const q of queries) {
      const a = JSON.parse((await ok(['search', '--json', '--dir', s.local, q])).stdout);
      const b = JSON.parse((await ok(['search', '--json', '--dir', s.served, q])).stdout);
      const hits = (r: { hits: { url: string; digest: string; dates: string[]; title: string }[] }) => r.hits.map((h) => [h.url, h.digest, h.dates, h.title]);
      expect(hits(b), q).toEqual(hits(a));
      expect(b.total, q).toBe(a.total);
    }
  }

  it("runs docs/hadoop.md's session on the cluster's paths and gives the local runner's datasets, indexes, dates and answers", async () => {
    // (A WACZ package among them: each task copies it from HDFS to read it by offset.)
    const archives = [
      join(ROOT, 'fixtures', 'example', 'dedup-example.warc.gz'),
      ...(HAVE_FIXTURES ? ['pywb/iana.warc.gz', 'wget/crawl1.warc.gz', 'wget/crawl2.warc.gz', 'wacz/example.wacz'].map(fixture) : []),
    ];
    const s = await session('example', archives);
    await compare(s, ['welcome', 'url:http://example.org/index.html', 'date:20071005 welcome', 'iana', 'debian', '"my homepage"']);
    // The worked example: five versions of the page with its ten capture dates.
    const page = JSON.parse((await ok(['search', '--json', '--dir', s.served, 'url:http://example.org/index.html'])).stdout);
    expect(page.hits.map((h: { dates: string[] }) => h.dates.length).sort()).toEqual([1, 1, 2, 2, 4]);
  }, 1_200_000);

  it.runIf(Boolean(process.env.NWAX_BENCH_ARCHIVE))(
    "gives the local runner's answers on the bench corpus",
    async () => {
      const s = await session('bench', [process.env.NWAX_BENCH_ARCHIVE!]);
      const titles = (await ok(['dumpindex', '-f', 'title', join(s.local, 'indexes', 'part-00000')])).stdout.split('\n').map((l) => l.split('\t')[1] ?? '');
      const words = [
        ...new Set(
          titles
            .join(' ')
            .toLowerCase()
            .match(/[a-z]{5,}/g) ?? [],
        ),
      ].slice(0, 20);
      await compare(s, words);
    },
    3_600_000,
  );

  it("says what a task that failed on the cluster wrote, not only Hadoop's exit status", async () => {
    // A segment whose crawl_fetch holds a line that is no record: every map attempt fails on a
    // node, in a container whose stderr only the node keeps.
    const part = join(dir, 'part-00000.gz');
    writeFileSync(part, (await import('node:zlib')).gzipSync('no tab on this line\n'));
    await hadoop('fs', '-rm', '-r', '-f', `${home}/broken`);
    await hadoop('fs', '-mkdir', '-p', `${home}/broken/seg/crawl_fetch`);
    await hadoop('fs', '-put', '-f', part, `${home}/broken/seg/crawl_fetch/`);
    const r = await nwax(['updatedb', '--engine', 'hadoop', '--run', `${home}/broken/crawldb`, `${home}/broken/seg`]);
    expect(r.code).toBe(1);
    const said = r.stderr.slice(r.stderr.indexOf('nwax updatedb: nwax-updatedb failed on Hadoop'));
    expect(said).toMatch(/failed on Hadoop \(exit status 1\); \S+\/broken\/crawldb is unchanged/);
    expect(said).toMatch(
      /task attempts? failed; attempt_\d+_\d+_m_000000_\d+ on \S+ wrote:\n {2}nwax job: job updatedb: hdfs:\/\/\S+\/broken\/seg\/crawl_fetch\/part-00000\.gz: line 1: not "key TAB value-json" \(no tab\)/,
    );
  }, 300_000);
});
