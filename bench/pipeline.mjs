// The whole pipeline with defaults, as an archivist runs it (examples/run-example.sh), on N
// replicas of the bench corpus (NWAX_BENCH_REPLICAS, default 1; replica i > 0 is the corpus
// with every WARC-Target-URI moved to host r{i}.bench.example, so its pages are new documents,
// gzip per record as wget writes it; made once and kept in CORPUS_DIR/replicas):
//   nwax cdx (the read limit, and the CDX the duplicate list comes from), dedup-cdx + revisits,
//   import -e, updatedb, invertlinks, index, add-dates (each index part),
// each timed with peak RSS and the disk its output takes; seconds, MB/s of gzipped WARC and
// documents/s per step; the pipeline's time against cdx's. Medians of `runs` per step.
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createGunzip, gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { CORPUS_DIR, NWAX, ROOT, median, q, table, timeShell } from './lib.mjs';

const REPLICAS = Number(process.env.NWAX_BENCH_REPLICAS ?? 1);

/** The corpus with its target URIs on another host: every record its own gzip member. */
export async function makeReplica(source, dest, host) {
  const out = createWriteStream(`${dest}.tmp`);
  let buf = Buffer.alloc(0);
  const write = async (record) => {
    if (!out.write(gzipSync(record))) await once(out, 'drain');
  };
  for await (const chunk of createReadStream(source).pipe(createGunzip())) {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) break;
      const head = buf.subarray(0, end + 4).toString('latin1');
      const m = /\r\nContent-Length:\s*(\d+)/i.exec(head);
      if (!m) throw new Error(`${source}: a WARC header without Content-Length`);
      const total = end + 4 + Number(m[1]) + 4;
      if (buf.length < total) break;
      // (wget writes the URI in angle brackets, as WARC 1.0's grammar had it.)
      const moved = head.replace(/^(WARC-(?:Refers-To-)?Target-URI: <?)http:\/\/127\.0\.0\.1:18090\//gm, `$1http://${host}/`);
      await write(Buffer.concat([Buffer.from(moved, 'latin1'), buf.subarray(end + 4, total)]));
      buf = buf.subarray(total);
    }
  }
  if (buf.length) throw new Error(`${source}: ${buf.length} bytes after the last record`);
  out.end();
  await once(out, 'finish');
  renameSync(`${dest}.tmp`, dest);
}

async function replicas(file, n) {
  const dir = join(CORPUS_DIR, 'replicas');
  mkdirSync(dir, { recursive: true });
  const files = [file];
  for (let i = 1; i < n; i++) {
    const f = join(dir, `nwax-bench-r${String(i).padStart(3, '0')}.warc.gz`);
    if (!existsSync(f)) {
      process.stderr.write(`  making replica ${i} of ${n - 1}: ${f}\n`);
      await makeReplica(file, f, `r${String(i).padStart(3, '0')}.bench.example`);
    }
    files.push(f);
  }
  return files;
}

function du(path) {
  return Number(execFileSync('du', ['-sb', path]).toString().split('\t')[0]);
}

export async function benchPipeline({ runs = 3 } = {}) {
  const file = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  if (!existsSync(file)) throw new Error(`no corpus at ${file}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  const archives = await replicas(file, REPLICAS);
  const bytes = archives.reduce((n, f) => n + statSync(f).size, 0);
  const work = join(CORPUS_DIR, `pipeline-${REPLICAS}`);
  const crawl = join(work, 'crawl');
  const seg = join(crawl, 'segments', '20260101000000');
  const n = `node ${q(NWAX)}`;
  const steps = [
    ['nwax cdx (the read limit)', () => `${n} cdx -q --jobs 0 -o ${q(join(work, 'all.cdx'))} ${archives.map(q).join(' ')}`, join(work, 'all.cdx')],
    [
      'dedup-cdx + revisits',
      () =>
        `${n} dedup-cdx ${q(join(work, 'all.cdx'))} > ${q(join(work, 'all.dup'))} && ${n} revisits ${q(join(work, 'all.cdx'))} >> ${q(join(work, 'all.dup'))}`,
      join(work, 'all.dup'),
    ],
    ['import -e', () => `${n} import --force -e ${q(join(work, 'all.dup'))} ${q(join(work, 'manifest'))} ${q(seg)}`, seg],
    ['updatedb', () => `rm -rf ${q(join(crawl, 'crawldb'))} && ${n} updatedb ${q(join(crawl, 'crawldb'))} ${q(seg)}`, join(crawl, 'crawldb')],
    ['invertlinks', () => `rm -rf ${q(join(crawl, 'linkdb'))} && ${n} invertlinks ${q(join(crawl, 'linkdb'))} ${q(seg)}`, join(crawl, 'linkdb')],
    [
      'index',
      () => `rm -rf ${q(join(crawl, 'indexes'))} && ${n} index ${q(join(crawl, 'indexes'))} ${q(join(crawl, 'crawldb'))} ${q(join(crawl, 'linkdb'))} ${q(seg)}`,
      join(crawl, 'indexes'),
    ],
    [
      'add-dates',
      () => {
        const parts = readdirSync(join(crawl, 'indexes')).filter((p) => p.startsWith('part-'));
        return (
          `rm -rf ${q(join(crawl, 'pindexes'))} && ` +
          parts
            .map(
              (p) =>
                `${n} add-dates ${q(join(crawl, 'indexes', p))} ${q(join(crawl, 'indexes', p))} ${q(join(crawl, 'pindexes', p, 'dates'))} ${q(join(work, 'all.dup'))}`,
            )
            .join(' && ')
        );
      },
      join(crawl, 'pindexes'),
    ],
  ];
  const samples = Object.fromEntries(steps.map(([name]) => [name, []]));
  const disk = {};
  for (let r = 0; r < runs; r++) {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'manifest'), archives.map((a) => `${a} bench\n`).join(''));
    for (const [name, script, output] of steps) {
      const t = timeShell(`${script()} 2>/dev/null`);
      samples[name].push(t);
      disk[name] = du(output);
      process.stderr.write(`  run ${r + 1}/${runs} ${name}: ${t.seconds.toFixed(2)} s, ${t.rssMB.toFixed(0)} MB\n`);
    }
  }
  const { RecordFileReader } = await import(join(ROOT, 'dist', 'mapreduce', 'record-file.js'));
  let documents = 0;
  for (const f of readdirSync(join(seg, 'parse_data')).filter((p) => /^part-\d{5}(\.gz)?$/.test(p))) {
    for (const _ of new RecordFileReader(join(seg, 'parse_data', f)).entries()) documents++;
  }
  const med = (name) => ({ seconds: median(samples[name].map((x) => x.seconds)), rssMB: Math.max(...samples[name].map((x) => x.rssMB)) });
  const rows = [['step', 'seconds', 'MB/s WARC', 'documents/s', 'peak RSS MB', 'disk MB']];
  let pipeline = 0;
  let peak = 0;
  for (const [name] of steps) {
    const m = med(name);
    if (!name.startsWith('nwax cdx')) {
      pipeline += m.seconds;
      peak = Math.max(peak, m.rssMB);
    }
    rows.push([
      name,
      m.seconds.toFixed(2),
      (bytes / 1e6 / m.seconds).toFixed(1),
      (documents / m.seconds).toFixed(0),
      m.rssMB.toFixed(0),
      (disk[name] / 1e6).toFixed(0),
    ]);
  }
  const cdx = med(steps[0][0]).seconds;
  rows.push(['pipeline (all but cdx)', pipeline.toFixed(2), (bytes / 1e6 / pipeline).toFixed(1), (documents / pipeline).toFixed(0), peak.toFixed(0), '']);
  rmSync(work, { recursive: true, force: true });
  return [
    `The pipeline with defaults: ${REPLICAS} replica(s) of the bench corpus, ${archives.length} archive(s), ${(bytes / 1e6).toFixed(0)} MB gzipped, ${documents} documents; medians of ${runs} (peak RSS: the highest run)`,
    table(rows),
    `  pipeline / nwax cdx time: ${(pipeline / cdx).toFixed(2)} (target 4); import / cdx rate: ${(cdx / med('import -e').seconds).toFixed(2)} (target 0.5)`,
  ].join('\n');
}
