/**
 * cdx-url-count: captures per URL key in CDX files (CDX11 or CDXJ lines; legends skipped).
 * The group-and-count job of the MapReduce benchmark, and a small, real job to prove the
 * runners equivalent.
 */
import type { Job } from '../mapreduce/job.js';
import { longSum } from '../mapreduce/long-sum.js';

const SPACE = 0x20;
const ONE = Buffer.from('1');
const LEGEND = Buffer.from(' CDX');

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
  combine: longSum,
  reduce: longSum,
  encoding: {
    // map, over the line's bytes.
    mapBytes(line, start, end, emit, ctx) {
      // The legend test byte by byte: Buffer#compare's call was a thirteenth of the map's time.
      if (
        start === end ||
        line[start] === 0x21 /* ! */ ||
        (line[start] === SPACE && end - start >= 4 && line[start + 1] === LEGEND[1] && line[start + 2] === LEGEND[2] && line[start + 3] === LEGEND[3])
      ) {
        ctx.count('legend lines');
        return;
      }
      // The key ends at the first space (a loop, not indexOf: a line without one would send
      // indexOf through the rest of the chunk).
      let sp = start;
      for (; sp < end; sp++) {
        const c = line[sp];
        if (c === SPACE) break;
        if (c < SPACE) {
          ctx.count('not CDX lines');
          return;
        }
      }
      emit(line, start, sp, ONE);
    },
  },
};
