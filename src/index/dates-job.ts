/**
 * The dates job: dedup-cdx and revisits lines (`URLKEY sha1:DIGEST DATE [FILE]`, hundreds of
 * millions of them for a large collection) grouped into one record per version,
 * `URLKEY sha1:DIGEST -> [dates, sorted, unique]`. It is the part of add-dates that grows with
 * the captures, so it runs as a MapReduce job (on a cluster with `--engine hadoop`); add-dates
 * then reads its dataset, one record per version that has duplicates, in place of the lines.
 */
import type { Job } from '../mapreduce/job.js';
import { visible } from '../util/errors.js';

/** Reports the first bad lines of a task; the rest are counted. */
const WARNINGS = 20;

function union(values: unknown[]): string[] {
  const all = new Set<string>();
  for (const v of values) if (Array.isArray(v)) for (const d of v) if (typeof d === 'string') all.add(d);
  return [...all].sort();
}

let warned = 0;

export const datesJob: Job = {
  name: 'dates',
  description:
    'Capture dates per version from dedup-cdx / revisits lines (input: URLKEY sha1:DIGEST DATE [FILE]; output: "URLKEY DIGEST" -> dates), for add-dates.',
  input: 'lines',
  map(_key, value, emit, ctx) {
    const line = value as string;
    if (line.trim() === '') return;
    const f = line.split(' ');
    if (f.length < 3 || f.length > 4 || !/^[a-z0-9]+:\S+$/i.test(f[1]) || !/^\d{14}$/.test(f[2]) || /[\x00-\x1f]/.test(f[0])) {
      ctx.count('bad lines');
      if (++warned <= WARNINGS)
        ctx.warn(`job dates: ${ctx.inputFile || 'stdin'}: not "URLKEY sha1:DIGEST DATE [FILE]": ${visible(JSON.stringify(line.slice(0, 80)))}; line skipped`);
      return;
    }
    ctx.count('dates read');
    emit(`${f[0]} ${f[1]}`, [f[2]]);
  },
  combine(key, values, emit) {
    emit(key, union(values));
  },
  reduce(key, values, emit, ctx) {
    ctx.count('versions');
    emit(key, union(values));
  },
};
