// The searcher at scale: a 1-million-document index made by replicating the bench corpus's
// documents (18,250 pages) under new URLs: replica i (0..54) moves every page to host
// r{i}.bench.example and its capture dates to the year 2000 + i % 20, so site: and date:
// filters select slices. Two partitions (even and odd replicas), each built by its own process
// with the index writer (the rate of `nwax index` itself is measured in bench/index.mjs).
// Then the same 500 queries against nwax search (both partitions, dates, stored fields) and
// against one bare FTS5 table holding the same rows: the engine's own limit.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, ROOT, indexIsCurrent, table } from './lib.mjs';
import { buildBare, ensureSegment, latencyRows } from './index.mjs';
import { baselineCheckout } from './serve-baseline.mjs';

const REPLICAS = Number(process.env.NWAX_BENCH_REPLICAS ?? 55);

// argv: the bench segment, the index to write, the partition (0, 1), the replicas, the nwax whose
// IndexWriter writes it, and the folder of the segment its texts go to ('' for an index of the
// schema that stores them in its rows: one segment per partition, `scale-P`, one part).
const BUILDER = `
const [seg, out, partition, replicas, root, textSeg] = process.argv.slice(1);
const { RecordFileReader, RecordFileWriter } = await import(root + '/dist/mapreduce/record-file.js');
const { IndexWriter } = await import(root + '/dist/index/index-writer.js');
const { readdirSync, mkdirSync, writeFileSync } = await import('node:fs');
const read = (name) => {
  const m = new Map();
  const dir = seg + '/' + name;
  for (const f of readdirSync(dir).filter((n) => /^part-\\d{5}(\\.gz)?$/.test(n))) for (const r of new RecordFileReader(dir + '/' + f).entries()) m.set(r.key, r.value);
  return m;
};
const pd = read('parse_data'), text = read('parse_text'), content = read('content'), fetch = read('crawl_fetch');
const keys = [...pd.keys()].filter((k) => !pd.get(k).noindex && content.has(k)).sort();
const w = new IndexWriter(out);
const name = 'scale-' + partition;
let texts;
if (textSeg) {
  mkdirSync(textSeg + '/parse_text', { recursive: true });
  texts = new RecordFileWriter(textSeg + '/parse_text/part-00000.gz');
}
for (let i = Number(partition); i < Number(replicas); i += 2) {
  const host = 'r' + String(i).padStart(3, '0') + '.bench.example';
  const year = String(2000 + (i % 20));
  const docs = [];
  for (const k of keys) {
    const sp = k.lastIndexOf(' ');
    const u = new URL(k.slice(0, sp));
    u.host = host;
    docs.push({ k, url: u.href, digest: k.slice(sp + 1), bytes: Buffer.from(u.href + ' ' + k.slice(sp + 1)) });
  }
  // The segment's keys in byte order (a replica's URLs, host replaced, may sort otherwise).
  docs.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  for (const { k, url, digest } of docs) {
    const c = content.get(k), p = pd.get(k);
    const dates = (fetch.get(k)?.dates ?? [c.date]).map((d) => year + d.slice(4));
    const t = text.get(k) ?? '';
    texts?.append(url + ' ' + digest, t);
    w.add({ url, digest, date: dates[0], dates, mime: c.mime, status: c.status, length: p.meta.length,
      collection: 'bench', segment: name, file: c.file, location: c.location, offset: c.offset, clen: c.length,
      title: p.title, text: t, anchors: [], inlinks: 0, boost: 1, lang: p.meta.lang ?? '' });
  }
}
texts?.close();
if (textSeg) writeFileSync(textSeg + '/_SUCCESS', '');
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

/** The 1M-document collection as the nwax at `root` indexes it (built once, then reused while its schema is current). */
async function scaleCrawl(seg, root, name) {
  const crawl = join(CORPUS_DIR, name);
  const parts = [0, 1].map((p) => join(crawl, 'indexes', `part-0000${p}`));
  const { SCHEMA_VERSION } = await import(join(root, 'dist', 'index', 'schema.js'));
  // Since schema 4 the texts are in segments beside the index, not in its rows.
  const texts = SCHEMA_VERSION >= 4;
  let build = 'reused';
  if (!(await Promise.all(parts.map((p) => indexIsCurrent(p, root)))).every(Boolean)) {
    rmSync(crawl, { recursive: true, force: true });
    mkdirSync(join(crawl, 'indexes'), { recursive: true });
    const t0 = Date.now();
    await Promise.all(
      parts.map((p, i) =>
        run(['--input-type=module', '-e', BUILDER, seg, `${p}.tmp`, String(i), String(REPLICAS), root, texts ? join(crawl, 'segments', `scale-${i}`) : '']),
      ),
    );
    for (const p of parts) execFileSync('mv', [`${p}.tmp`, p]);
    writeFileSync(join(crawl, 'indexes', '_SUCCESS'), '');
    build = `${((Date.now() - t0) / 1000).toFixed(0)} s`;
  }
  const du = (p) => (existsSync(p) ? Number(execFileSync('du', ['-sb', p]).toString().split('\t')[0]) : 0);
  return { crawl, parts, build, bytes: parts.reduce((n, p) => n + statSync(p).size, 0), segmentBytes: du(join(crawl, 'segments')) };
}

export async function benchIndexScale() {
  const { seg } = ensureSegment();
  const now = await scaleCrawl(seg, ROOT, `scale-crawl-${REPLICAS}-v4`);
  const { crawl, parts, build, bytes } = now;
  const require = (await import('node:module')).createRequire(import.meta.url);
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const docs = parts.reduce((n, p) => n + new Database(p, { readonly: true }).prepare('SELECT count(*) n FROM docs').get().n, 0);
  // NWAX_BENCH_BASELINE_INDEX=REF: the same collection indexed and searched by an earlier nwax
  // (a worktree built under the corpus folder), same run, its rows beside these.
  const ref = process.env.NWAX_BENCH_BASELINE_INDEX;
  const before = ref ? { ref, root: baselineCheckout(ref) } : undefined;
  const then = before ? await scaleCrawl(seg, before.root, `scale-crawl-${REPLICAS}-${ref}`) : undefined;
  // NWAX_BENCH_NO_BARE=1 leaves the engine's limit out (a quicker run while tuning).
  const bare = process.env.NWAX_BENCH_NO_BARE ? undefined : join(CORPUS_DIR, 'bare-fts5-scale.db');
  const bb = bare ? await buildBare(parts, bare) : { seconds: NaN, bytes: NaN };
  const rows = await latencyRows(crawl, parts, bare);
  if (bare) rmSync(bare, { force: true });
  const older = then ? await latencyRows(then.crawl, then.parts, undefined, before.root) : undefined;
  const warc = statSync(join(CORPUS_DIR, 'nwax-bench.warc.gz')).size * REPLICAS;
  const sizes = [
    ['index', 'index GB', 'bytes/document', 'x the WARC', "segments' texts GB"],
    ['nwax (this)', (bytes / 1e9).toFixed(2), Math.round(bytes / docs), (bytes / warc).toFixed(2), (now.segmentBytes / 1e9).toFixed(2)],
    ...(then ? [[`nwax ${ref}`, (then.bytes / 1e9).toFixed(2), Math.round(then.bytes / docs), (then.bytes / warc).toFixed(2), '-']] : []),
  ];
  return [
    `nwax search at scale: ${docs} documents (${REPLICAS} replicas of the bench corpus, ${(warc / 1e9).toFixed(1)} GB of WARC), 2 partitions; built in ${build} (2 processes)${then ? `, ${ref}'s in ${then.build}` : ''}; bare FTS5 table of the same rows built in ${bb.seconds.toFixed(0)} s, ${(bb.bytes / 1e9).toFixed(1)} GB`,
    table(sizes),
    `  search latency over 500 queries (1-3 title words; a third with site:, a third with date:), ms:`,
    table([['run', 'p50', 'p95', 'p99'], ...rows, ...(older ?? []).map(([name, ...v]) => [`${name} (${ref})`, ...v])]),
    rows.overlap,
  ].join('\n');
}
