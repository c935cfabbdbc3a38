// nwax cdx vs warcio.js `cdx-index` (the Node peer) vs `zcat > /dev/null` (the limit: a gzip
// file cannot be indexed faster than one core inflates it), same file, same run, medians.
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, NWAX, ROOT, measure, table, q } from './lib.mjs';

export async function benchCdx({ runs = 5 } = {}) {
  const file = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  if (!existsSync(file)) throw new Error(`no corpus at ${file}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  const copy = join(CORPUS_DIR, 'nwax-bench-copy.warc.gz');
  if (!existsSync(copy)) linkSync(file, copy);
  const size = statSync(file).size;
  const raw = Number(execFileSync('bash', ['-c', `zcat ${q(file)} | wc -c`]).toString());
  const records = Number(execFileSync('bash', ['-c', `node ${q(NWAX)} cdx -q --all-records --no-header ${q(file)} | wc -l`]).toString());
  const lines = Number(execFileSync('bash', ['-c', `node ${q(NWAX)} cdx -q --no-header ${q(file)} | wc -l`]).toString());
  const warcio = join(ROOT, 'node_modules', 'warcio', 'dist', 'cli.js');
  const m = measure(
    {
      'zcat > /dev/null': `zcat ${q(file)} > /dev/null`,
      'nwax cdx': `node ${q(NWAX)} cdx -q ${q(file)} > /dev/null`,
      'warcio.js cdx-index': `node ${q(warcio)} cdx-index ${q(file)} > /dev/null`,
      'zcat 2 files': `zcat ${q(file)} ${q(copy)} > /dev/null`,
      'nwax cdx --jobs 2, 2 files': `node ${q(NWAX)} cdx -q --jobs 2 ${q(file)} ${q(copy)} > /dev/null`,
    },
    runs,
  );
  const zcat = m['zcat > /dev/null'].seconds;
  const row = (name, files) => {
    const r = m[name];
    return [
      name,
      r.seconds.toFixed(2),
      ((files * size) / 1e6 / r.seconds).toFixed(1),
      ((files * raw) / 1e6 / r.seconds).toFixed(1),
      Math.round((files * records) / r.seconds),
      `${((files * zcat) / r.seconds).toFixed(2)}x`,
      r.rssMB.toFixed(0),
    ];
  };
  const out = [
    `nwax cdx benchmark: ${file}`,
    `  ${(size / 1e6).toFixed(1)} MB gzipped, ${(raw / 1e6).toFixed(1)} MB uncompressed, ${records} records, ${lines} CDX lines; medians of ${runs}`,
    table([
      ['command', 'seconds', 'MB/s gz', 'MB/s raw', 'records/s', 'vs zcat (rate)', 'peak RSS MB'],
      row('zcat > /dev/null', 1),
      row('nwax cdx', 1),
      row('warcio.js cdx-index', 1),
      row('zcat 2 files', 2),
      row('nwax cdx --jobs 2, 2 files', 2),
    ]),
    `  nwax cdx is ${(m['warcio.js cdx-index'].seconds / m['nwax cdx'].seconds).toFixed(2)}x as fast as warcio.js`,
  ];
  // Peak RSS against file size: a 6 MB crawl, the corpus, and the corpus twice over in one file.
  const small = join(CORPUS_DIR, 'small.warc.gz');
  execFileSync('bash', ['-c', `head -c 6000000 ${q(file)} > ${q(small)}`]);
  const double = join(CORPUS_DIR, 'double.warc.gz');
  if (!existsSync(double)) execFileSync('bash', ['-c', `cat ${q(file)} ${q(file)} > ${q(double)}`]);
  const rss = measure(
    {
      [`${(statSync(small).size / 1e6).toFixed(0)} MB`]: `node ${q(NWAX)} cdx -q ${q(small)} > /dev/null`,
      [`${(size / 1e6).toFixed(0)} MB`]: `node ${q(NWAX)} cdx -q ${q(file)} > /dev/null`,
      [`${((2 * size) / 1e6).toFixed(0)} MB`]: `node ${q(NWAX)} cdx -q ${q(double)} > /dev/null`,
    },
    Math.min(runs, 3),
  );
  out.push(
    `  peak RSS of nwax cdx by input size: ${Object.entries(rss)
      .map(([k, v]) => `${k}: ${v.rssMB.toFixed(0)} MB`)
      .join(', ')}`,
  );
  rmSync(small, { force: true });
  return out.join('\n');
}
