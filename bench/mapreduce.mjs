// The MapReduce engine against its limits, same input, same run, medians:
// - group-and-count over 10 million records (URL keys of the bench corpus under 300 made-up
//   hosts: about 5.5 million distinct keys), the local runner (cdx-url-count, both cores) vs
//   `LC_ALL=C sort -S 256M | uniq -c`;
// - a sorted record file of 10 million keys: random get-by-key latency (p50/p99), and a
//   sequential scan in MB/s vs `zcat` of the same file.
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { CORPUS_DIR, NWAX, measure, table, q } from './lib.mjs';

const N = 10_000_000;

async function makeKeys(path, distinct = false) {
  const corpus = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  const keys = [
    ...new Set(
      execFileSync('node', [NWAX, 'cdx', '-q', '--no-header', corpus], { maxBuffer: 1 << 30 })
        .toString()
        .trim()
        .split('\n')
        .map((l) => l.slice(0, l.indexOf(' '))),
    ),
  ];
  const out = createWriteStream(path);
  let buf = '';
  for (let i = 0; i < N; i++) {
    // 300 host prefixes: about 5.5 million distinct keys; `distinct`: every key once.
    const host = distinct ? Math.floor(i / keys.length) : Math.floor(i / keys.length) % 300;
    buf += `h${host},${keys[i % keys.length]}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'close');
}

export async function benchMapreduce({ runs = 5 } = {}) {
  const keysFile = join(CORPUS_DIR, 'keys-10m.txt');
  if (!existsSync(keysFile)) await makeKeys(keysFile);
  const out = join(CORPUS_DIR, 'count-out');
  const m = measure(
    {
      'LC_ALL=C sort -S 256M | uniq -c': `LC_ALL=C sort -S 256M ${q(keysFile)} | uniq -c > /dev/null`,
      'nwax job cdx-url-count (local, 2 threads)': `node ${q(NWAX)} job cdx-url-count run --force --threads 2 --reduces 2 --memory 256M -o ${q(out)} ${q(keysFile)} 2>/dev/null`,
    },
    runs,
  );
  const s = m['LC_ALL=C sort -S 256M | uniq -c'];
  const n = m['nwax job cdx-url-count (local, 2 threads)'];
  const distinct = Number(execFileSync('bash', ['-c', `zcat ${q(out)}/part-?????.gz | wc -l`]).toString());
  const lines = [
    `MapReduce benchmark: group-and-count over ${N} records (${distinct} distinct keys); medians of ${runs}`,
    table([
      ['command', 'seconds', 'records/s', 'peak RSS MB'],
      ['LC_ALL=C sort -S 256M | uniq -c', s.seconds.toFixed(2), Math.round(N / s.seconds), s.rssMB.toFixed(0)],
      ['nwax job cdx-url-count (local, 2 threads)', n.seconds.toFixed(2), Math.round(N / n.seconds), n.rssMB.toFixed(0)],
    ]),
    `  nwax / sort time: ${(n.seconds / s.seconds).toFixed(2)} (below 1 is faster); peak RSS ${n.rssMB.toFixed(0)} MB against a budget of 256 MB + 200 MB`,
  ];
  // The sorted record file: 10 million distinct keys, one part (the job's output).
  const distinctFile = join(CORPUS_DIR, 'keys-10m-distinct.txt');
  if (!existsSync(distinctFile)) await makeKeys(distinctFile, true);
  const rf = join(CORPUS_DIR, 'records-10m-distinct');
  if (!existsSync(join(rf, '_SUCCESS'))) {
    execFileSync('node', [NWAX, 'job', 'cdx-url-count', 'run', '--force', '--threads', '2', '--reduces', '1', '--memory', '256M', '-o', rf, distinctFile], {
      stdio: 'ignore',
    });
  }
  const part = join(rf, 'part-00000.gz');
  const probe = execFileSync(
    'node',
    [
      '-e',
      `
    const { RecordFileReader } = await import(${JSON.stringify(join(NWAX, '..', '..', 'dist', 'mapreduce', 'record-file.js'))});
    const { execFileSync } = await import('node:child_process');
    const keys = execFileSync('bash', ['-c', 'zcat ${part} | shuf -n 10000 --random-source=/dev/zero | cut -f1']).toString().trim().split('\\n');
    const r = new RecordFileReader(${JSON.stringify(part)});
    const times = [];
    for (const k of keys) { const t = process.hrtime.bigint(); if (r.get(k).length !== 1) throw new Error('missing ' + k); times.push(Number(process.hrtime.bigint() - t) / 1e6); }
    times.sort((a, b) => a - b);
    let n = 0; const t0 = Date.now(); for (const x of r.entries()) n++;
    console.log(JSON.stringify({ p50: times[times.length >> 1], p99: times[Math.floor(times.length * 0.99)], scanSeconds: (Date.now() - t0) / 1000, n, blocks: r.blockCount }));
  `,
      '--input-type=module',
    ],
    { maxBuffer: 1 << 26 },
  ).toString();
  const p = JSON.parse(probe);
  const z = measure({ 'zcat part': `zcat ${q(part)} > /dev/null` }, runs)['zcat part'];
  const raw = Number(execFileSync('bash', ['-c', `zcat ${q(part)} | wc -c`]).toString());
  lines.push(
    `  sorted record file: ${p.n} keys, ${p.blocks} blocks, ${(statSync(part).size / 1e6).toFixed(0)} MB: get by key p50 ${p.p50.toFixed(3)} ms, p99 ${p.p99.toFixed(3)} ms (10,000 random keys);`,
    `  sequential scan of all records (parsed) ${(raw / 1e6 / p.scanSeconds).toFixed(0)} MB/s vs zcat ${(raw / 1e6 / z.seconds).toFixed(0)} MB/s (${(z.seconds / p.scanSeconds).toFixed(2)}x)`,
  );
  rmSync(out, { recursive: true, force: true });
  return lines.join('\n');
}
