// nwax dedup-cdx vs the NutchWAX script (`awk | LC_ALL=C sort -u | awk`) on a CDX of 5 million
// lines made from the corpus CDX: each of its lines copied with new dates, 70% of copies keeping
// their digest (duplicates) and 30% with a new one (new versions). Same input, same run, medians.
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { CORPUS_DIR, NWAX, measure, table, q } from './lib.mjs';

const TARGET = 5_000_000;

async function makeBigCdx(path) {
  const corpus = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  const base = execFileSync('node', [NWAX, 'cdx', '-q', '--no-header', corpus], { maxBuffer: 1 << 30 })
    .toString()
    .trim()
    .split('\n');
  const out = createWriteStream(path);
  out.write(' CDX N b a m s k r M S V g\n');
  let n = 0;
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  for (let k = 0; n < TARGET; k++) {
    let buf = '';
    for (const line of base) {
      const f = line.split(' ');
      const d = new Date(Date.UTC(2000 + (k % 20), k % 12, 1 + (k % 28), k % 24, 0, 0));
      f[1] = d
        .toISOString()
        .replace(/[^0-9]/g, '')
        .slice(0, 14);
      if (rand() < 0.3) f[5] = Array.from({ length: 32 }, () => A[Math.floor(rand() * 32)]).join('');
      f[10] = `crawl-${String(k).padStart(4, '0')}.warc.gz`;
      buf += `${f.join(' ')}\n`;
      if (++n >= TARGET) break;
    }
    if (!out.write(buf)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
}

export async function benchDedup({ runs = 5 } = {}) {
  const big = join(CORPUS_DIR, 'dedup-5m.cdx');
  if (!existsSync(big)) await makeBigCdx(big);
  const lines = Number(execFileSync('bash', ['-c', `wc -l < ${q(big)}`]).toString()) - 1;
  const script = `awk 'substr($0,1,4) != " CDX" { print $1" sha1:"$6" "$2" "$11 }' ${q(big)} | LC_ALL=C sort -u | awk '{ k = $1" "$2; if (k == p) print; p = k }'`;
  // GNU time on a pipeline sees the shell; sort's own peak RSS is measured inside it.
  const sortRss = join(CORPUS_DIR, 'sort-rss.txt');
  const timedScript = script.replace('LC_ALL=C sort -u', `LC_ALL=C /usr/bin/time -f %M -o ${q(sortRss)} sort -u`);
  // Same output, byte for byte, before anything is timed.
  const a = execFileSync('bash', ['-c', `node ${q(NWAX)} dedup-cdx --memory 256M ${q(big)} | md5sum`]).toString();
  const b = execFileSync('bash', ['-c', `${script} | md5sum`]).toString();
  if (a !== b) throw new Error('nwax dedup-cdx and the NutchWAX script disagree');
  const m = measure(
    {
      'awk | LC_ALL=C sort -u | awk': `${timedScript} > /dev/null`,
      'nwax dedup-cdx --memory 256M': `node ${q(NWAX)} dedup-cdx --memory 256M ${q(big)} > /dev/null`,
    },
    runs,
  );
  const s = m['awk | LC_ALL=C sort -u | awk'];
  s.rssMB = Number(readFileSync(sortRss, 'utf8').trim()) / 1024;
  const n = m['nwax dedup-cdx --memory 256M'];
  return [
    `dedup-cdx benchmark: ${big} (${lines} lines, ${(statSync(big).size / 1e6).toFixed(0)} MB); outputs identical; medians of ${runs}`,
    table([
      ['command', 'seconds', 'lines/s', 'peak RSS MB'],
      ['awk | LC_ALL=C sort -u | awk', s.seconds.toFixed(2), Math.round(lines / s.seconds), `${s.rssMB.toFixed(0)} (sort)`],
      ['nwax dedup-cdx --memory 256M', n.seconds.toFixed(2), Math.round(lines / n.seconds), n.rssMB.toFixed(0)],
    ]),
    `  nwax / script time: ${(n.seconds / s.seconds).toFixed(2)} (below 1 is faster); nwax peak RSS ${n.rssMB.toFixed(0)} MB against a budget of 256 MB + 150 MB`,
  ].join('\n');
}
