// The live-web crawl against a real archiving crawler, same run, medians:
// 1. A site of 2,000 pages on 127.0.0.1 whose server adds 20 ms to every response: `nwax crawl`
//    (fetcher.server.delay=0, 8 threads per queue) against `wget --recursive --warc-file`
//    (Debian's wget, one connection, no wait) of the same site. Pages/s of the whole crawl
//    (nwax: inject, rounds of generate/fetch/parse/updatedb, invertlinks, index, dedup; wget:
//    fetch, parse, WARC) and of nwax's fetch steps alone.
// 2. Politeness on: 20 hosts (servers on 127.0.0.1 ... 127.0.0.20, 100 pages each, no added
//    latency), fetcher.server.delay=0.1 and one thread per queue: fetch pages/s against the
//    politeness limit, hosts / delay = 200 pages/s.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NWAX, ROOT, median, table, q } from './lib.mjs';

function startSites(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'site-server.mjs'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (d) => resolve({ urls: JSON.parse(d.toString()), stop: () => child.kill('SIGTERM') }));
    child.once('error', reject);
  });
}

function timed(cmd) {
  const t = process.hrtime.bigint();
  const r = spawnSync('bash', ['-c', cmd], { maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  if (r.status !== 0 && r.status !== 3 && r.status !== 8) throw new Error(`failed (${r.status}): ${cmd}\n${r.stderr}`);
  return { seconds, stderr: r.stderr.toString() };
}

/** Pages and seconds of the fetch steps, from nwax crawl's lines ("fetched N URLs in S s"). */
function fetchSteps(stderr) {
  let pages = 0;
  let seconds = 0;
  for (const m of stderr.matchAll(/fetched (\d+) URLs in ([\d.]+) s/g)) {
    pages += Number(m[1]);
    seconds += Number(m[2]);
  }
  return { pages, seconds };
}

export async function benchCrawl({ runs = 3 } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'nwax-bench-crawl-'));
  const rows = { nwax: [], fetch: [], wget: [], polite: [] };
  let pagesN = 0;
  let pagesW = 0;
  try {
    const site = await startSites(['--pages', '2000', '--latency', '20']);
    writeFileSync(join(work, 'seed'), `${site.urls[0]}\n`);
    for (let i = 0; i < runs; i++) {
      const d = join(work, `n${i}`);
      const n = timed(
        `node ${q(NWAX)} crawl ${q(join(work, 'seed'))} -dir ${q(d)} -depth 6 -D fetcher.server.delay=0 -D fetcher.threads.per.queue=8 -D fetcher.threads.fetch=8 -D http.agent.name=nwax-bench`,
      );
      const f = fetchSteps(n.stderr);
      pagesN = f.pages;
      rows.nwax.push(f.pages / n.seconds);
      rows.fetch.push(f.pages / f.seconds);
      const w = join(work, `w${i}`);
      const t = timed(
        `mkdir -p ${q(w)} && cd ${q(work)} && wget -q --recursive --level=inf --no-parent -P ${q(w)} --warc-file=${q(join(w, 'crawl'))} ${q(site.urls[0])} 2>&1; true`,
      );
      pagesW = Number(
        spawnSync('bash', ['-c', `find ${q(w)} -name 'p*.html' | wc -l`])
          .stdout.toString()
          .trim(),
      );
      rows.wget.push(pagesW / t.seconds);
      process.stderr.write(
        `  run ${i + 1}/${runs}: nwax crawl ${f.pages} pages ${n.seconds.toFixed(1)} s (fetch ${f.seconds.toFixed(1)} s), wget ${pagesW} pages ${t.seconds.toFixed(1)} s\n`,
      );
      rmSync(d, { recursive: true, force: true });
      rmSync(w, { recursive: true, force: true });
    }
    site.stop();
    const hosts = await startSites(['--pages', '100', '--hosts', '20']);
    writeFileSync(join(work, 'seeds20'), hosts.urls.join('\n'));
    for (let i = 0; i < runs; i++) {
      const d = join(work, `p${i}`);
      const n = timed(
        `node ${q(NWAX)} crawl ${q(join(work, 'seeds20'))} -dir ${q(d)} -depth 3 -D fetcher.server.delay=0.1 -D fetcher.threads.per.queue=1 -D fetcher.threads.fetch=20 -D http.agent.name=nwax-bench`,
      );
      const f = fetchSteps(n.stderr);
      rows.polite.push(f.pages / f.seconds);
      process.stderr.write(`  run ${i + 1}/${runs}: polite crawl ${f.pages} pages, fetch ${f.seconds.toFixed(1)} s\n`);
      rmSync(d, { recursive: true, force: true });
    }
    hosts.stop();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const m = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, median(v)]));
  return [
    `Crawl benchmark: medians of ${runs}`,
    table([
      ['crawl', 'pages', 'pages/s'],
      ['nwax crawl, 2,000-page site, 20 ms latency (whole loop + index)', pagesN, m.nwax.toFixed(1)],
      ['  of which the fetch steps', pagesN, m.fetch.toFixed(1)],
      ['wget --recursive --warc-file, same site', pagesW, m.wget.toFixed(1)],
      ['nwax crawl, 20 hosts, delay 0.1 s, 1 thread per queue (fetch steps)', '2000', m.polite.toFixed(1)],
    ]),
    `  nwax crawl / wget: ${(m.nwax / m.wget).toFixed(2)} (target 3); politeness: ${m.polite.toFixed(1)} pages/s of a limit of 20 / 0.1 = 200, ${(m.polite / 200).toFixed(2)} (target 0.8)`,
  ].join('\n');
}
