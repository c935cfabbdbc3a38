// nwax import vs nwax cdx (the read limit of the same archives), both cores, same run, medians:
// two archives of the bench corpus (the file and a copy) on two threads, against `nwax cdx
// --jobs 2` over the same two files; one archive cut into map tasks (nwax.import.split.size)
// and as one task, against `nwax cdx` of it. Peak RSS of an import of one archive and
// of two (flat in archive size: records are streamed, map output spilled past the budget).
import { existsSync, linkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, NWAX, measure, table, q } from './lib.mjs';

export async function benchImport({ runs = 5 } = {}) {
  const file = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  if (!existsSync(file)) throw new Error(`no corpus at ${file}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  const copy = join(CORPUS_DIR, 'nwax-bench-copy.warc.gz');
  if (!existsSync(copy)) linkSync(file, copy);
  const one = join(CORPUS_DIR, 'manifest-1');
  const two = join(CORPUS_DIR, 'manifest-2');
  writeFileSync(one, `${file} bench\n`);
  writeFileSync(two, `${file} bench\n${copy} bench\n`);
  const seg = join(CORPUS_DIR, 'import-segment');
  const m = measure(
    {
      'nwax cdx --jobs 2, 2 files': `node ${q(NWAX)} cdx -q --jobs 2 ${q(file)} ${q(copy)} > /dev/null`,
      'nwax import, 2 files (2 threads)': `node ${q(NWAX)} import --force --threads 2 ${q(two)} ${q(seg)} 2>/dev/null`,
      'nwax import, 1 file': `node ${q(NWAX)} import --force --threads 2 ${q(one)} ${q(seg)} 2>/dev/null`,
      // The same archive as one map task (as before it was cut at gzip members).
      'nwax import, 1 file, one task': `node ${q(NWAX)} import --force --threads 2 -D nwax.import.split.size=0 ${q(one)} ${q(seg)} 2>/dev/null`,
      'nwax cdx, 1 file': `node ${q(NWAX)} cdx -q ${q(file)} > /dev/null`,
    },
    runs,
  );
  rmSync(seg, { recursive: true, force: true });
  const size = statSync(file).size;
  const c = m['nwax cdx --jobs 2, 2 files'];
  const i = m['nwax import, 2 files (2 threads)'];
  const i1 = m['nwax import, 1 file'];
  const i0 = m['nwax import, 1 file, one task'];
  const c1 = m['nwax cdx, 1 file'];
  return [
    `nwax import benchmark: ${file} and a copy (${(size / 1e6).toFixed(1)} MB gzipped each); medians of ${runs}`,
    table([
      ['command', 'seconds', 'MB/s gz', 'peak RSS MB'],
      ['nwax cdx --jobs 2, 2 files', c.seconds.toFixed(2), ((2 * size) / 1e6 / c.seconds).toFixed(1), c.rssMB.toFixed(0)],
      ['nwax import, 2 files (2 threads)', i.seconds.toFixed(2), ((2 * size) / 1e6 / i.seconds).toFixed(1), i.rssMB.toFixed(0)],
      ['nwax import, 1 file', i1.seconds.toFixed(2), (size / 1e6 / i1.seconds).toFixed(1), i1.rssMB.toFixed(0)],
      ['nwax import, 1 file, one task (split.size=0)', i0.seconds.toFixed(2), (size / 1e6 / i0.seconds).toFixed(1), i0.rssMB.toFixed(0)],
      ['nwax cdx, 1 file', c1.seconds.toFixed(2), (size / 1e6 / c1.seconds).toFixed(1), c1.rssMB.toFixed(0)],
    ]),
    `  one archive: import rate / cdx rate ${(c1.seconds / i1.seconds).toFixed(2)} cut into map tasks, ${(c1.seconds / i0.seconds).toFixed(2)} as one task (target 0.5)`,
    `  import rate / cdx rate: ${(c.seconds / i.seconds).toFixed(2)} (target 0.5); peak RSS 1 file ${i1.rssMB.toFixed(0)} MB, 2 files ${i.rssMB.toFixed(0)} MB`,
  ].join('\n');
}
