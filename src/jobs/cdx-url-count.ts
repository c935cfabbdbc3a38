/**
 * cdx-url-count: captures per URL key in CDX files (CDX11 or CDXJ lines; legends skipped).
 * The group-and-count job of the MapReduce benchmark, and a small, real job to prove the
 * runners equivalent.
 */
import type { Job } from '../mapreduce/job.js';

const sum = (values: unknown[]) => values.reduce<number>((a, v) => a + (typeof v === 'number' ? v : 0), 0);

export const cdxUrlCount: Job = {
  name: 'cdx-url-count',
  description: 'Captures per URL key in CDX or CDXJ files (input: CDX lines; output: urlkey -> count).',
  input: 'lines',
  map(_key, value, emit, ctx) {
    const line = value as string;
    if (line === '' || line.startsWith(' CDX') || line.startsWith('!')) {
      ctx.count('legend lines');
      return;
    }
    const sp = line.indexOf(' ');
    const key = sp < 0 ? line : line.slice(0, sp);
    // A URL key has no control characters: such a line is not CDX (binary input, say).
    if (/[\x00-\x1f]/.test(key)) {
      ctx.count('not CDX lines');
      return;
    }
    emit(key, 1);
  },
  combine(key, values, emit) {
    emit(key, sum(values));
  },
  reduce(key, values, emit) {
    emit(key, sum(values));
  },
};
