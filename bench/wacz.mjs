// Reading a WARC inside a WACZ package (stored, as WACZ writers store it) against the same WARC
// unzipped: nwax cdx of each, same run, medians. The package's cost is its check:
// datapackage.json's SHA-256 of the WARC is computed before the WARC is read
// (`sha256sum` of the WARC shows that cost alone).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import yazl from 'yazl';
import { CORPUS_DIR, NWAX, measure, table, q } from './lib.mjs';

async function sha256(file) {
  const h = createHash('sha256');
  for await (const c of createReadStream(file)) h.update(c);
  return `sha256:${h.digest('hex')}`;
}

/** The bench corpus as a WACZ: its WARC stored, datapackage.json and its digest. */
async function makePackage(warc, pkg) {
  const datapackage = Buffer.from(JSON.stringify({
    profile: 'data-package', wacz_version: '1.1.1', created: new Date().toISOString(), software: 'nwax bench',
    resources: [{ name: 'nwax-bench.warc.gz', path: 'archive/nwax-bench.warc.gz', hash: await sha256(warc), bytes: statSync(warc).size }],
  }, null, 2));
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
  const m = measure({
    'sha256sum WARC': `sha256sum ${q(warc)} > /dev/null`,
    'nwax cdx WARC': `node ${q(NWAX)} cdx -q ${q(warc)} > /dev/null`,
    'nwax cdx WACZ': `node ${q(NWAX)} cdx -q ${q(pkg)} > /dev/null`,
  }, runs);
  const row = (name) => [name, m[name].seconds.toFixed(2), (size / 1e6 / m[name].seconds).toFixed(1), m[name].rssMB.toFixed(0)];
  return [
    `WACZ read benchmark: ${pkg} (${(size / 1e6).toFixed(1)} MB WARC, stored); medians of ${runs}`,
    table([['command', 'seconds', 'MB/s of WARC', 'peak RSS MB'], row('sha256sum WARC'), row('nwax cdx WARC'), row('nwax cdx WACZ')]),
    `  nwax cdx of the WACZ runs at ${(m['nwax cdx WARC'].seconds / m['nwax cdx WACZ'].seconds).toFixed(2)}x the rate of the WARC unzipped (target >= 0.9x)`,
  ].join('\n');
}
