// nwax sort-cdx vs `LC_ALL=C sort` with the same memory budget, on the corpus CDX repeated to
// 1x, 4x and 16x of about 226 MB (the input size must not change the memory used: a merge's
// fan-in is bounded by the budget, and nothing holds the input). Same input, same run, medians;
// outputs compared byte for byte.
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { CORPUS_DIR, NWAX, measure, table, q } from './lib.mjs';

const BUDGET = process.env.NWAX_BENCH_SORT_MEMORY ?? '32M';

async function repeatCdx(path, times) {
  const base = readFileSync(join(CORPUS_DIR, 'nwax-bench.cdx'));
  const out = createWriteStream(path);
  for (let i = 0; i < times; i++) if (!out.write(base)) await once(out, 'drain');
  out.end();
  await once(out, 'close');
}

export async function benchSort({ runs = 3 } = {}) {
  if (!existsSync(join(CORPUS_DIR, 'nwax-bench.cdx'))) throw new Error(`no corpus at ${CORPUS_DIR}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  const sizes = (process.env.NWAX_BENCH_SORT_SIZES ?? '1,4,16').split(',').map(Number);
  const rows = [['input', 'MB', 'nwax s', 'GNU sort s', 'ratio', 'nwax peak RSS MB', 'sort peak RSS MB', 'same output']];
  for (const x of sizes) {
    const input = join(CORPUS_DIR, `sort-${x}x.cdx`);
    if (!existsSync(input)) await repeatCdx(input, 40 * x);
    const mb = statSync(input).size / 1e6;
    const ours = join(CORPUS_DIR, `sort-${x}x.nwax`);
    const theirs = join(CORPUS_DIR, `sort-${x}x.gnu`);
    const m = measure(
      {
        nwax: `node ${q(NWAX)} sort-cdx --memory ${BUDGET} -o ${q(ours)} ${q(input)}`,
        sort: `LC_ALL=C sort -S ${BUDGET} --parallel=2 -T ${q(CORPUS_DIR)} -o ${q(theirs)} ${q(input)}`,
      },
      runs,
    );
    const same = spawnSync('cmp', ['-s', ours, theirs]).status === 0;
    rows.push([
      `${x}x`,
      mb.toFixed(0),
      m.nwax.seconds.toFixed(2),
      m.sort.seconds.toFixed(2),
      `${(m.nwax.seconds / m.sort.seconds).toFixed(2)}x`,
      m.nwax.rssMB.toFixed(0),
      m.sort.rssMB.toFixed(0),
      same ? 'yes' : 'NO',
    ]);
    for (const f of [ours, theirs, input]) rmSync(f, { force: true });
  }
  return [`nwax sort-cdx --memory ${BUDGET} vs LC_ALL=C sort -S ${BUDGET} --parallel=2 (medians of ${runs})`, table(rows)].join('\n');
}
