/**
 * The folders above a file, nearest first, from the path given and, where it is a link, from
 * the file it links to: where the stores an index was made from (its segments, its LinkDb) are
 * looked for, as `crawl/indexes/part-00000` sits beside `crawl/segments` and `crawl/linkdb`.
 */
import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function ancestorsOf(path: string, levels: number): string[] {
  const from = [resolve(path)];
  try {
    const real = realpathSync(path);
    if (real !== from[0]) from.push(real);
  } catch {
    // A missing file is the caller's error to report.
  }
  const out: string[] = [];
  for (const f of from) {
    let dir = dirname(f);
    for (let i = 0; i < levels; i++) {
      out.push(dir);
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  return [...new Set(out)];
}
