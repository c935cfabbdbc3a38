// Reading a WARC inside a WACZ package (stored, as WACZ writers store it) against the same WARC
// unzipped: nwax cdx of each, same run, medians. The package's cost is its check:
// datapackage.json's SHA-256 of the WARC, computed on a second core while the WARC is read
// (`sha256sum` of the WARC shows that cost alone). Then `export-wacz` of the whole collection
// (every capture copied, the index and pages written) against nwax cdx's rate of the same
// records, and of a query that finds most of it (each page read for what it embeds, the
// nearest capture of each looked up).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import yazl from 'yazl';
import { execFileSync, spawnSync } from 'node:child_process';
import { CORPUS_DIR, NWAX, measure, table, q } from './lib.mjs';
import { buildCrawl } from './serve-ops.mjs';

async function sha256(file) {
  const h = createHash('sha256');
  for await (const c of createReadStream(file)) h.update(c);
  return `sha256:${h.digest('hex')}`;
}

/** The bench corpus as a WACZ: its WARC stored, datapackage.json and its digest. */
async function makePackage(warc, pkg) {
  const datapackage = Buffer.from(
    JSON.stringify(
      {
        profile: 'data-package',
        wacz_version: '1.1.1',
        created: new Date().toISOString(),
        software: 'nwax bench',
        resources: [{ name: 'nwax-bench.warc.gz', path: 'archive/nwax-bench.warc.gz', hash: await sha256(warc), bytes: statSync(warc).size }],
      },
      null,
      2,
    ),
  );
  const digest = Buffer.from(JSON.stringify({ path: 'datapackage.json', hash: `sha256:${createHash('sha256').update(datapackage).digest('hex')}` }));
  const zip = new yazl.ZipFile();
  zip.addFile(warc, 'archive/nwax-bench.warc.gz', { compress: false });
  zip.addBuffer(datapackage, 'datapackage.json', { compress: false });
  zip.addBuffer(digest, 'datapackage-digest.json', { compress: false });
  zip.end();
  const out = zip.outputStream.pipe(createWriteStream(pkg));
  await once(out, 'close');
}

export async function benchWacz({ runs = 5 } = {}) {
  const warc = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  if (!existsSync(warc)) throw new Error(`no corpus at ${warc}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  const pkg = join(CORPUS_DIR, 'nwax-bench.wacz');
  if (!existsSync(pkg) || statSync(pkg).mtimeMs < statSync(warc).mtimeMs) await makePackage(warc, pkg);
  const size = statSync(warc).size;
  const m = measure(
    {
      'sha256sum WARC': `sha256sum ${q(warc)} > /dev/null`,
      'nwax cdx WARC': `node ${q(NWAX)} cdx -q ${q(warc)} > /dev/null`,
      'nwax cdx WACZ': `node ${q(NWAX)} cdx -q ${q(pkg)} > /dev/null`,
    },
    runs,
  );
  const row = (name) => [name, m[name].seconds.toFixed(2), (size / 1e6 / m[name].seconds).toFixed(1), m[name].rssMB.toFixed(0)];
  // The export: the bench collection (one index part, its segment's capture index).
  const crawl = join(CORPUS_DIR, 'serve-ops-crawl');
  await buildCrawl(crawl);
  const out = join(CORPUS_DIR, 'nwax-bench-export.wacz');
  const said = spawnSync('node', [NWAX, 'export-wacz', out, '-dir', crawl], { encoding: 'utf8' }).stderr;
  const exported = Number(/ (\d+) records,/.exec(said)?.[1]);
  const cdxRecords = Number(execFileSync('bash', ['-c', `node ${q(NWAX)} cdx -q --no-header ${q(warc)} | wc -l`]).toString());
  const e = measure({ 'nwax export-wacz': `node ${q(NWAX)} export-wacz ${q(out)} -dir ${q(crawl)} 2> /dev/null` }, runs)['nwax export-wacz'];
  const exportRate = exported / e.seconds;
  const cdxRate = cdxRecords / m['nwax cdx WARC'].seconds;
  // A query's versions: every HTML page read for what it embeds.
  const query = 'the';
  const qOut = join(CORPUS_DIR, 'nwax-bench-query.wacz');
  const qSaid = spawnSync('node', [NWAX, 'export-wacz', qOut, '-dir', crawl, query], { encoding: 'utf8' }).stderr;
  const qRecords = Number(/ (\d+) records,/.exec(qSaid)?.[1]);
  const qe = measure({ query: `node ${q(NWAX)} export-wacz ${q(qOut)} -dir ${q(crawl)} ${q(query)} 2> /dev/null` }, runs).query;
  const qRate = qRecords / qe.seconds;
  return [
    `WACZ read benchmark: ${pkg} (${(size / 1e6).toFixed(1)} MB WARC, stored); medians of ${runs}`,
    table([['command', 'seconds', 'MB/s of WARC', 'peak RSS MB'], row('sha256sum WARC'), row('nwax cdx WARC'), row('nwax cdx WACZ')]),
    `  nwax cdx of the WACZ runs at ${(m['nwax cdx WARC'].seconds / m['nwax cdx WACZ'].seconds).toFixed(2)}x the rate of the WARC unzipped (target >= 0.9x)`,
    `  nwax export-wacz of the collection: ${exported} records (${(statSync(out).size / 1e6).toFixed(1)} MB) in ${e.seconds.toFixed(2)} s, ${Math.round(exportRate)} records/s, peak RSS ${e.rssMB.toFixed(0)} MB;` +
      ` nwax cdx reads ${Math.round(cdxRate)} records/s: ${(exportRate / cdxRate).toFixed(2)}x its rate, ${(e.seconds / m['nwax cdx WARC'].seconds).toFixed(2)}x its time (${m['nwax cdx WARC'].seconds.toFixed(2)} s; target <= 2.0x)`,
    `  nwax export-wacz of the query "${query}": ${qRecords} records (${(statSync(qOut).size / 1e6).toFixed(1)} MB) in ${qe.seconds.toFixed(2)} s, ${Math.round(qRate)} records/s,` +
      ` peak RSS ${qe.rssMB.toFixed(0)} MB: ${(qRate / cdxRate).toFixed(2)}x nwax cdx's rate`,
  ].join('\n');
}
