import { join } from 'node:path';
import { CORPUS_DIR, ROOT } from './lib.mjs';
const { Searcher } = await import(join(ROOT, 'dist', 'search', 'searcher.js'));
const s = new Searcher(join(CORPUS_DIR, 'scale-crawl-55'));
for (const q of ['date:2016', 'site:r014.bench.example', 'site:r014.bench.example date:2014', 'type:pdf', 'collection:bench', 'date:201601']) {
  const a = performance.now(); const r = s.search(q, { cache: false, snippets: false }); console.log(q, (performance.now() - a).toFixed(0), 'ms', r.total, r.totalExact);
}
