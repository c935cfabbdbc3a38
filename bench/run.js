#!/usr/bin/env node
// npm run bench [-- cdx|dedup ...] [--runs N]: nwax against its peers and the physical limits,
// medians, ratios printed. Needs the corpus: ../shared/corpus/make-bench-corpus.sh /tmp/nwax-bench
import { writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 5;
const which = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--runs');
const all = {
  cdx: './cdx.mjs',
  dedup: './dedup.mjs',
  mapreduce: './mapreduce.mjs',
  import: './import.mjs',
  index: './index.mjs',
  'index-scale': './index-scale.mjs',
  serve: './serve.mjs',
  zipnum: './zipnum.mjs',
  'cdx-serve': './cdx-serve.mjs',
  'cdx-import': './cdx-import.mjs',
  crawl: './crawl.mjs',
  sort: './sort.mjs',
  'serve-ops': './serve-ops.mjs',
  replay: './replay.mjs',
  html: './html.mjs',
  pipeline: './pipeline.mjs',
  relevance: './relevance.mjs',
  parts: './parts.mjs',
  multilingual: './multilingual.mjs',
  korean: './korean.mjs',
  pdf: './pdf.mjs',
  wacz: './wacz.mjs',
  chart: './chart.mjs',
  'wacz-replay': './wacz-replay.mjs',
  access: './access.mjs',
  compare: './compare.mjs',
};
const chosen = which.length ? which : Object.keys(all);
// Which sort, merge, sum and HTML extraction the figures are of (native/, or JavaScript without
// it or with NWAX_NATIVE=0).
const { KERNELS, nativeKernels } = await import('../dist/native/addon.js');
console.log(
  `nwax's native kernels (build/Release/nwax_native.node): ${nativeKernels().join(', ') || 'none'}; in JavaScript: ${KERNELS.filter((k) => !nativeKernels().includes(k)).join(', ') || 'none'} (no native build, or NWAX_NATIVE)\n`,
);
const reports = [];
for (const name of chosen) {
  const mod = await import(all[name]);
  const fn =
    mod[
      `bench${name
        .split('-')
        .map((w) => w[0].toUpperCase() + w.slice(1))
        .join('')}`
    ];
  let report;
  try {
    report = await fn({ runs });
  } catch (err) {
    // A missing corpus or index is said plainly, with the command that makes it, not as a stack.
    console.error(`bench ${name}: ${err.message}`);
    process.exit(1);
  }
  console.log(report);
  console.log();
  reports.push(report);
}
if (process.env.NWAX_BENCH_OUT) writeFileSync(process.env.NWAX_BENCH_OUT, reports.join('\n\n') + '\n');
