// /cdx on nwax serve under large answers: a 1-million-line ZipNum cluster made from the bench
// corpus's CDX (bench/zipnum.mjs's replicas), `nwax serve --cdx` in its own process, and 8
// requests at once for 100,000 lines each (output=json, limit=100000): read as fast as the
// client can, and read by clients that hold their answer 2 s before reading it (a slow client:
// the socket fills). The server's RSS is sampled every 20 ms; the figure is its growth over
// the idle server, beside the bytes of the 8 answers (what a server that builds each answer
// whole holds at least, as nwax did before it streamed). Then 32 at once against
// nwax.cdx.max.concurrent (8): the answers that got through and the 503s. Then pywb's paging
// over the whole cluster (pageSize 10 blocks): showNumPages, the first, middle and last pages,
// each timed alone; a page is read from its own blocks, so the last should cost what the first
// does (they scanned the range from its start before). Medians of the runs.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Pool } from 'undici';
import { CORPUS_DIR, NWAX, median, q, startServe, table } from './lib.mjs';
import { makeInput } from './zipnum.mjs';

const LINES = 1_000_000;
const CONCURRENT = 8;

function rssMB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** `n` answers at once; `holdMs` before each is read. Peak RSS growth (MB), bytes and statuses. */
async function burst(url, pid, n, holdMs) {
  const pool = new Pool(url, { connections: n, pipelining: 1 });
  const idle = rssMB(pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMB(pid))), 20);
  const t = performance.now();
  const path = `/cdx?${new URLSearchParams({ url: 'bench.example', matchType: 'domain', limit: '100000', output: 'json' })}`;
  const answers = await Promise.all(
    Array.from({ length: n }, async () => {
      const res = await pool.request({ method: 'GET', path });
      if (holdMs) await new Promise((r) => setTimeout(r, holdMs));
      let bytes = 0;
      for await (const chunk of res.body) bytes += chunk.length;
      return { status: res.statusCode, bytes };
    }),
  );
  const seconds = (performance.now() - t) / 1000;
  clearInterval(sampler);
  await pool.close();
  const ok = answers.filter((a) => a.status === 200);
  return { growth: peak - idle, bytes: ok.reduce((s, a) => s + a.bytes, 0), ok: ok.length, busy: answers.filter((a) => a.status === 503).length, seconds };
}

/** ms of one GET, its body read; the median of `n`. */
async function timeGet(url, n) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
    ms.push(performance.now() - t);
  }
  return median(ms);
}

/** pywb's paging over a cluster served at `url`: the page count's time and the first, middle and last pages'. */
export async function pagingCosts(url, query, n = 5) {
  const count = await (await fetch(`${url}/cdx?${query}&showNumPages=true`)).json();
  const page = (p) => timeGet(`${url}/cdx?${query}&page=${p}`, n);
  return {
    pages: count.pages,
    blocks: count.blocks,
    count: await timeGet(`${url}/cdx?${query}&showNumPages=true`, n),
    first: await page(0),
    middle: await page(Math.floor(count.pages / 2)),
    last: await page(count.pages - 1),
  };
}

export function pagingTable(costs) {
  const row = (name, xs) => [name, median(xs).toFixed(1)];
  return table([
    ['/cdx, pywb paging', 'ms'],
    row(
      'showNumPages=true',
      costs.map((c) => c.count),
    ),
    row(
      'page=0',
      costs.map((c) => c.first),
    ),
    row(
      `page=${Math.floor(costs[0].pages / 2)}`,
      costs.map((c) => c.middle),
    ),
    row(
      `page=${costs[0].pages - 1} (the last)`,
      costs.map((c) => c.last),
    ),
    ['last / first', (median(costs.map((c) => c.last)) / median(costs.map((c) => c.first))).toFixed(2)],
  ]);
}

export async function benchCdxServe({ runs }) {
  const base = join(CORPUS_DIR, 'bench-nwax.cdx');
  const warc = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  if (!existsSync(warc)) throw new Error(`no corpus at ${warc}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  if (!existsSync(base)) spawnSync('bash', ['-c', `node ${q(NWAX)} cdx -q ${q(warc)} > ${q(base)}`], { stdio: 'inherit' });
  const flat = join(CORPUS_DIR, 'cdx-1m.cdx');
  if (!existsSync(flat)) await makeInput(base, flat, LINES);
  const cluster = join(CORPUS_DIR, 'cluster-1m');
  if (!existsSync(join(cluster, 'cluster.summary')) && !existsSync(join(cluster, 'cluster.idx'))) {
    rmSync(cluster, { recursive: true, force: true });
    spawnSync('bash', ['-c', `node ${q(NWAX)} zipnum build ${q(flat)} ${q(cluster)} 2>/dev/null`], { stdio: 'inherit' });
  }
  const fast = [];
  const slow = [];
  const many = [];
  const paging = [];
  for (let i = 0; i < runs; i++) {
    const { url, server, stop } = await startServe(['--cdx', cluster, '--port', '0', '-dir', join(CORPUS_DIR, 'no-crawl'), '-D', 'nwax.serve.access.log=']);
    try {
      await (await fetch(`${url}/cdx?url=r0000.bench.example/`)).text();
      await new Promise((r) => setTimeout(r, 500));
      fast.push(await burst(url, server.pid, CONCURRENT, 0));
      await new Promise((r) => setTimeout(r, 500));
      slow.push(await burst(url, server.pid, CONCURRENT, 2000));
      await new Promise((r) => setTimeout(r, 500));
      many.push(await burst(url, server.pid, 32, 0));
      paging.push(await pagingCosts(url, 'url=bench.example&matchType=domain'));
    } finally {
      await stop();
    }
  }
  const row = (name, xs) => {
    const growth = median(xs.map((x) => x.growth));
    const bytes = median(xs.map((x) => x.bytes)) / 2 ** 20;
    return [
      name,
      median(xs.map((x) => x.ok)),
      median(xs.map((x) => x.busy)),
      bytes.toFixed(0),
      growth.toFixed(0),
      (growth / bytes).toFixed(2),
      median(xs.map((x) => x.seconds)).toFixed(1),
    ];
  };
  const fastGrowth = median(fast.map((x) => x.growth));
  return [
    `/cdx streamed: ${CONCURRENT} answers of 100,000 lines at once from a ${LINES.toLocaleString('en')}-line ZipNum cluster (${cluster}), medians of ${runs}`,
    table([
      ['clients', 'answered', '503', 'MB answered (held whole before)', 'server RSS growth MB', 'growth / answers', 's'],
      row(`${CONCURRENT} reading at once`, fast),
      row(`${CONCURRENT} holding 2 s first`, slow),
      row('32 at once (nwax.cdx.max.concurrent 8)', many),
    ]),
    `  server RSS growth with ${CONCURRENT} answers at once: ${fastGrowth.toFixed(0)} MB (target under 200 MB)`,
    `/cdx pages of the same cluster (${paging[0].pages} pages of 10 blocks, ${paging[0].blocks} blocks), medians of ${runs} runs of 5 requests each`,
    pagingTable(paging),
  ].join('\n');
}
