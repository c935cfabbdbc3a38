// The searcher at scale: a 1-million-document index made by replicating the bench corpus's
// documents (18,250 pages) under new URLs: replica i (0..54) moves every page to host
// r{i}.bench.example and its capture dates to the year 2000 + i % 20, so site: and date:
// filters select slices. Two partitions (even and odd replicas), each built by its own process
// with the index writer (the rate of `nwax index` itself is measured in bench/index.mjs).
// Then the same 500 queries against nwax search (both partitions, dates, stored fields) and
// against one bare FTS5 table holding the same rows: the engine's own limit.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, ROOT, indexIsCurrent, table } from './lib.mjs';
import { buildBare, ensureSegment, latencyRows } from './index.mjs';

const REPLICAS = Number(process.env.NWAX_BENCH_REPLICAS ?? 55);

const BUILDER = `
const [seg, out, partition, replicas] = process.argv.slice(1);
const { RecordFileReader } = await import(${JSON.stringify(join(ROOT, 'dist', 'mapreduce', 'record-file.js'))});
const { IndexWriter } = await import(${JSON.stringify(join(ROOT, 'dist', 'index', 'index-writer.js'))});
const { readdirSync } = await import('node:fs');
const read = (name) => {
  const m = new Map();
  const dir = seg + '/' + name;
  for (const f of readdirSync(dir).filter((n) => /^part-\\d{5}(\\.gz)?$/.test(n))) for (const r of new RecordFileReader(dir + '/' + f).entries()) m.set(r.key, r.value);
  return m;
};
const pd = read('parse_data'), text = read('parse_text'), content = read('content'), fetch = read('crawl_fetch');
const keys = [...pd.keys()].filter((k) => !pd.get(k).noindex && content.has(k)).sort();
const w = new IndexWriter(out);
for (let i = Number(partition); i < Number(replicas); i += 2) {
  const host = 'r' + String(i).padStart(3, '0') + '.bench.example';
  const year = String(2000 + (i % 20));
  for (const k of keys) {
    const sp = k.lastIndexOf(' ');
    const u = new URL(k.slice(0, sp));
    u.host = host;
    const c = content.get(k), p = pd.get(k);
    const dates = (fetch.get(k)?.dates ?? [c.date]).map((d) => year + d.slice(4));
    w.add({ url: u.href, digest: k.slice(sp + 1), date: dates[0], dates, mime: c.mime, status: c.status, length: p.meta.length,
      collection: 'bench', segment: 'scale', file: c.file, location: c.location, offset: c.offset, clen: c.length,
      title: p.title, text: text.get(k) ?? '', anchors: [], inlinks: 0, boost: 1, lang: p.meta.lang ?? '' });
  }
}
console.log(w.close());
`;

function run(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('node', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`builder exited ${code}`))));
  });
}

export async function benchIndexScale() {
  const { seg } = ensureSegment();
  const crawl = join(CORPUS_DIR, `scale-crawl-${REPLICAS}`);
  const parts = [0, 1].map((p) => join(crawl, 'indexes', `part-0000${p}`));
  let build = 'reused';
  if (!(await Promise.all(parts.map(indexIsCurrent))).every(Boolean)) {
    rmSync(crawl, { recursive: true, force: true });
    mkdirSync(join(crawl, 'indexes'), { recursive: true });
    const t0 = Date.now();
    await Promise.all(parts.map((p, i) => run(['--input-type=module', '-e', BUILDER, seg, `${p}.tmp`, String(i), String(REPLICAS)])));
    for (const p of parts) execFileSync('mv', [`${p}.tmp`, p]);
    writeFileSync(join(crawl, 'indexes', '_SUCCESS'), '');
    build = `${((Date.now() - t0) / 1000).toFixed(0)} s`;
  }
  const require = (await import('node:module')).createRequire(import.meta.url);
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const docs = parts.reduce((n, p) => n + new Database(p, { readonly: true }).prepare('SELECT count(*) n FROM docs').get().n, 0);
  const bytes = parts.reduce((n, p) => n + statSync(p).size, 0);
  // NWAX_BENCH_NO_BARE=1 leaves the engine's limit out (a quicker run while tuning).
  const bare = process.env.NWAX_BENCH_NO_BARE ? undefined : join(CORPUS_DIR, 'bare-fts5-scale.db');
  const bb = bare ? buildBare(parts, bare) : { seconds: NaN, bytes: NaN };
  const rows = await latencyRows(crawl, parts, bare);
  if (bare) rmSync(bare, { force: true });
  return [
    `nwax search at scale: ${docs} documents (${REPLICAS} replicas of the bench corpus), 2 partitions, ${(bytes / 1e9).toFixed(1)} GB (${Math.round(bytes / docs)} bytes/document); built in ${build} (2 processes); bare FTS5 table of the same rows built in ${bb.seconds.toFixed(0)} s, ${(bb.bytes / 1e9).toFixed(1)} GB`,
    `  search latency over 500 queries (1-3 title words; a third with site:, a third with date:), ms:`,
    table([['run', 'p50', 'p95', 'p99'], ...rows]),
    rows.overlap,
  ].join('\n');
}
