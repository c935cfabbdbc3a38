// ZipNum lookups vs a binary search over the flat sorted CDX, same run, same keys.
// The input: 20 million CDX lines made from the bench corpus's CDX (nwax cdx of
// nwax-bench.warc.gz, 18,310 lines) by rewriting the host: replica i is host
// r{iiii}.bench.example, so the lines come out sorted without a sort. Then `nwax zipnum build`
// (timed), and 10,000 random urlkeys looked up exactly, in one process, in turn: through the
// cluster (summary in memory, one block read and inflated) and by seeking in the flat file
// (nwax's look-style binary search); and 1,000 of them with util-linux `look` (a process per
// lookup, so it includes the spawn) as an outside reference. Both files are in the page cache.
import { createWriteStream, existsSync, readFileSync, statSync, readdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CORPUS_DIR, NWAX, ROOT, median, table, timeShell, q } from './lib.mjs';

const LINES = 20_000_000;

/** `count` CDX lines (default 20 million) from the corpus's CDX, replicas under new hosts, sorted without a sort. */
export async function makeInput(base, out, count = LINES) {
  const lines = readFileSync(base, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith(' '));
  const rest = lines
    .map((l) => {
      const f = l.split(' ');
      const key = f[0].slice(f[0].indexOf(')'));
      const path = f[2].replace(/^[a-z]+:\/\/[^/]+/i, '');
      return { key, tail: [f[1], null, ...f.slice(3)], path, order: `${key} ${f[1]} ${path} ${f.slice(3).join(' ')}` };
    })
    .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  const replicas = Math.ceil(count / rest.length);
  const w = createWriteStream(out);
  let n = 0;
  for (let i = 0; i < replicas && n < count; i++) {
    const id = `r${String(i).padStart(4, '0')}`;
    let buf = '';
    for (const r of rest) {
      if (n++ >= count) break;
      buf += `example,bench,${id}${r.key} ${r.tail[0]} http://${id}.bench.example${r.path} ${r.tail.slice(2).join(' ')}\n`;
    }
    if (!w.write(buf)) await once(w, 'drain');
  }
  w.end();
  await once(w, 'close');
}

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

export async function benchZipnum() {
  const base = join(CORPUS_DIR, 'bench-nwax.cdx');
  const warc = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  if (!existsSync(warc)) throw new Error(`no corpus at ${warc}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  if (!existsSync(base)) spawnSync('bash', ['-c', `node ${q(NWAX)} cdx -q ${q(warc)} > ${q(base)}`], { stdio: 'inherit' });
  const flat = join(CORPUS_DIR, 'cdx-20m.cdx');
  if (!existsSync(flat)) {
    process.stderr.write(`  writing ${flat} (${LINES} lines)\n`);
    await makeInput(base, `${flat}.tmp`);
    spawnSync('mv', [`${flat}.tmp`, flat]);
  }
  const cluster = join(CORPUS_DIR, 'cluster-20m');
  rmSync(cluster, { recursive: true, force: true });
  const build = timeShell(`node ${q(NWAX)} zipnum build ${q(flat)} ${q(cluster)} 2>/dev/null`);
  const clusterBytes = readdirSync(cluster).reduce((s, f) => s + statSync(join(cluster, f)).size, 0);
  // The same with blocks of 300 lines: a tenth of the inflating per lookup, for a larger summary.
  const small = join(CORPUS_DIR, 'cluster-20m-300');
  rmSync(small, { recursive: true, force: true });
  spawnSync('bash', ['-c', `node ${q(NWAX)} zipnum build -D nwax.zipnum.lines=300 ${q(flat)} ${q(small)} 2>/dev/null`]);
  const smallBytes = readdirSync(small).reduce((s, f) => s + statSync(join(small, f)).size, 0);
  const flatBytes = statSync(flat).size;

  const { ZipnumCluster } = await import(join(ROOT, 'dist/cdx/zipnum-reader.js'));
  const { SortedCdxFile } = await import(join(ROOT, 'dist/cdx/sorted-cdx.js'));
  const { keyRange } = await import(join(ROOT, 'dist/cdx/cdx-query.js'));
  const c = ZipnumCluster.open(cluster);
  const c300 = ZipnumCluster.open(small);
  const f = new SortedCdxFile(flat);
  // Random existing urlkeys: random line starts of the flat file.
  const keys = [];
  const fd = (await import('node:fs')).openSync(flat, 'r');
  const buf = Buffer.alloc(8192);
  while (keys.length < 10_000) {
    const at = Math.floor(Math.random() * (flatBytes - 8192));
    const n = (await import('node:fs')).readSync(fd, buf, 0, 8192, at);
    const s = buf.toString('latin1', 0, n);
    const line = s.slice(s.indexOf('\n') + 1).split('\n')[0];
    keys.push(line.split(' ')[0]);
  }
  const zip = [];
  const zip300 = [];
  const seek = [];
  let zipHits = 0;
  let seekHits = 0;
  for (const key of keys) {
    const { startKey, endKey } = { startKey: `${key} `, endKey: `${key}!` };
    let t = process.hrtime.bigint();
    for await (const _ of c.lines(startKey, endKey)) zipHits++;
    zip.push(Number(process.hrtime.bigint() - t) / 1e6);
    t = process.hrtime.bigint();
    for await (const _ of c300.lines(startKey, endKey)) void _;
    zip300.push(Number(process.hrtime.bigint() - t) / 1e6);
    t = process.hrtime.bigint();
    for await (const _ of f.lines(startKey, endKey)) seekHits++;
    seek.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  // Cold: the page cache dropped (needs root; skipped otherwise), 300 other keys each way.
  const cold = { zip: [], seek: [] };
  const dropped = () => spawnSync('bash', ['-c', 'sync && echo 3 > /proc/sys/vm/drop_caches']).status === 0;
  const coldKeys = keys.slice(1000, 1300);
  if (dropped()) {
    for (const key of coldKeys) {
      const t = process.hrtime.bigint();
      for await (const _ of c.lines(`${key} `, `${key}!`)) void _;
      cold.zip.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    dropped();
    for (const key of coldKeys) {
      const t = process.hrtime.bigint();
      for await (const _ of f.lines(`${key} `, `${key}!`)) void _;
      cold.seek.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  void keyRange;
  const look = [];
  for (const key of keys.slice(0, 1000)) {
    const t = process.hrtime.bigint();
    spawnSync('look', [`${key} `, flat], { env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'ignore', 'ignore'] });
    look.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const row = (name, xs) => [name, median(xs).toFixed(3), pct(xs, 0.99).toFixed(3)];
  return [
    `ZipNum benchmark: ${LINES.toLocaleString('en')} CDX lines (${(flatBytes / 1e9).toFixed(2)} GB), ${c.blocks} blocks of 3000; 10,000 exact lookups of random urlkeys`,
    table([
      ['lookup', 'p50 ms', 'p99 ms'],
      row('nwax ZipNum cluster (3000 lines/block)', zip),
      row('nwax ZipNum cluster (300 lines/block)', zip300),
      row('nwax binary search of the flat file', seek),
      row('util-linux look (1,000, process each)', look),
      ...(cold.zip.length ? [row('cold cache: ZipNum (3000), 300 keys', cold.zip), row('cold cache: flat binary search, same keys', cold.seek)] : []),
    ]),
    `  lines found: cluster ${zipHits}, flat ${seekHits} (must be equal); cluster ${(clusterBytes / 1e6).toFixed(0)} MB = ${((100 * clusterBytes) / flatBytes).toFixed(1)}% of the flat file (300-line blocks: ${(smallBytes / 1e6).toFixed(0)} MB); built in ${build.seconds.toFixed(1)} s (${(flatBytes / 1e6 / build.seconds).toFixed(0)} MB/s), peak RSS ${build.rssMB.toFixed(0)} MB`,
  ].join('\n');
}
