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
import { buildBare, ensureSegment, latencyRows, makeQueries } from './index.mjs';
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
  // Blocks as an import writes a segment's parse_text (nwax.segment.text.*).
  const { Configuration } = await import(root + '/dist/conf/config.js');
  const conf = Configuration.load([]);
  texts = new RecordFileWriter(textSeg + '/parse_text/part-00000.gz', {
    blockSize: conf.getBytes('nwax.segment.text.block.size'),
    level: conf.getNumber('nwax.segment.text.gzip.level'),
  });
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
  const now = await scaleCrawl(seg, ROOT, `scale-crawl-${REPLICAS}-v5`);
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
  const alternated = then ? await alternatedSnippets({ crawl, parts, root: ROOT }, { crawl: then.crawl, root: before.root }, ref) : undefined;
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
    ...(alternated ? [alternated] : []),
  ].join('\n');
}

/**
 * Warm queries with snippets against this nwax's index and the baseline's, pass for pass in
 * turn (each searcher warmed by a pass first), so that the machine's drift over minutes (a
 * third of its speed, on the machine these figures come from) falls on both alike; each
 * pass's p50 and p99 ratio, and their medians.
 */
async function alternatedSnippets(now, then, ref, passes = Number(process.env.NWAX_BENCH_PASSES ?? 7)) {
  const require = (await import('node:module')).createRequire(import.meta.url);
  const Database = require(join(ROOT, 'node_modules', 'better-sqlite3'));
  const queries = makeQueries(new Database(now.parts[0], { readonly: true }));
  const text = (qq) => `${qq.words.join(' ')}${qq.site ? ` site:${qq.site}` : ''}${qq.year ? ` date:${qq.year}` : ''}`;
  const open = async (x) => new (await import(join(x.root, 'dist', 'search', 'searcher.js'))).Searcher(x.crawl);
  const [a, b] = [await open(now), await open(then)];
  const pass = (searcher) =>
    queries
      .map((qq) => {
        const s = process.hrtime.bigint();
        searcher.view().search(text(qq), { hits: 10, cache: false });
        return Number(process.hrtime.bigint() - s) / 1e6;
      })
      .sort((x, y) => x - y);
  pass(a);
  pass(b);
  const at = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  const ratios = { p50: [], p99: [] };
  for (let i = 0; i < passes; i++) {
    // Which goes first changes from pass to pass.
    let x;
    let y;
    if (i % 2) {
      x = pass(a);
      y = pass(b);
    } else {
      y = pass(b);
      x = pass(a);
    }
    ratios.p50.push(at(x, 0.5) / at(y, 0.5));
    ratios.p99.push(at(x, 0.99) / at(y, 0.99));
  }
  a.close();
  b.close();
  const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const list = (xs) => xs.map((r) => r.toFixed(2)).join(' ');
  return [
    `  warm, snippets, this nwax / ${ref}'s, ${passes} passes of the 500 queries alternated (target 1.2):`,
    `    p50 ${med(ratios.p50).toFixed(2)}x (passes: ${list(ratios.p50)})`,
    `    p99 ${med(ratios.p99).toFixed(2)}x (passes: ${list(ratios.p99)})`,
  ].join('\n');
}
