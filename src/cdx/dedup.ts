/**
 * dedup-cdx and revisits, as NutchWAX's scripts made them (`sort -u | awk`), on the external
 * sort so a CDX of any size fits a memory budget.
 *
 * dedup-cdx: for each URLKEY + digest, every capture after the first in byte order, as
 *   `URLKEY sha1:DIGEST DATE FILE` (the first capture is the one that is imported).
 * revisits: every revisit capture (mime `warc/revisit`, or file `-` as 2008 Wayback CDX wrote
 *   them) as `URLKEY sha1:DIGEST DATE`.
 */
import { CdxLineReader, bareDigest } from './cdx-reader.js';
import { externalSort, type SortOptions } from '../mapreduce/external-sort.js';
import { lineBatches } from '../mapreduce/line-reader.js';

export interface DedupStats {
  lines: number;
  /** Capture lines without a digest, which cannot be deduplicated. */
  noDigest: number;
  /** Lines that are not CDX (bad JSON, too few fields). */
  malformed: number;
  output: number;
}

async function* captureKeys(paths: string[], stats: DedupStats, pick: (f: ReturnType<CdxLineReader['parse']> & object) => string | undefined): AsyncGenerator<string[]> {
  for (const path of paths) {
    const reader = new CdxLineReader();
    for await (const batch of lineBatches(path)) {
      const out: string[] = [];
      for (const line of batch) {
        if (line === '' || line.startsWith(' CDX') || line[0] === '!') {
          reader.parse(line);
          continue;
        }
        stats.lines++;
        const f = reader.parse(line);
        if (!f || f.urlkey === '-' || !/^\d{4,14}$/.test(f.timestamp)) {
          stats.malformed++;
          continue;
        }
        const k = pick(f);
        if (k !== undefined) out.push(k);
      }
      if (out.length > 0) yield out;
    }
  }
}

export function newDedupStats(): DedupStats {
  return { lines: 0, noDigest: 0, malformed: 0, output: 0 };
}

/** The dedup-cdx lines, sorted, in batches. */
export async function* dedupCdx(paths: string[], opts: SortOptions = {}, stats = newDedupStats()): AsyncGenerator<string[]> {
  const keys = captureKeys(paths, stats, (f) => {
    const d = bareDigest(f.digest);
    if (d === '-') {
      stats.noDigest++;
      return undefined;
    }
    return `${f.urlkey} sha1:${d} ${f.timestamp} ${f.filename}`;
  });
  let group = '';
  for await (const batch of externalSort(keys, { ...opts, unique: true })) {
    const out: string[] = [];
    for (const line of batch) {
      // URLKEY sha1:DIGEST: everything up to the second space.
      const g = line.slice(0, line.indexOf(' ', line.indexOf(' ') + 1));
      if (g === group) out.push(line);
      else group = g;
    }
    stats.output += out.length;
    if (out.length > 0) yield out;
  }
}

/** The revisits lines, sorted and unique, in batches. */
export async function* revisits(paths: string[], opts: SortOptions = {}, stats = newDedupStats()): AsyncGenerator<string[]> {
  const keys = captureKeys(paths, stats, (f) => {
    if (f.mime !== 'warc/revisit' && f.filename !== '-') return undefined;
    const d = bareDigest(f.digest);
    if (d === '-') {
      stats.noDigest++;
      return undefined;
    }
    return `${f.urlkey} sha1:${d} ${f.timestamp}`;
  });
  for await (const batch of externalSort(keys, { ...opts, unique: true })) {
    stats.output += batch.length;
    yield batch;
  }
}
