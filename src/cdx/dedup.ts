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
  /** Told about lines that are not CDX: the file, the line number and what is wrong. */
  onBadLine?: (file: string, line: number, problem: string) => void;
  lines: number;
  /** Capture lines without a digest, which cannot be deduplicated. */
  noDigest: number;
  /** Lines that are not CDX (bad JSON, too few fields). */
  malformed: number;
  output: number;
}

/** A string V8 holds as one flat sequence, not a tree of slices of the 1 MiB chunk it came from. */
function flat(s: string): string {
  return (' ' + s).slice(1);
}

/** Field positions of a classic CDX11 line (fields 0, 1, 5, 10), without splitting all of it. */
function cdx11Fields(line: string): [string, string, string, string] | undefined {
  const s1 = line.indexOf(' ');
  const s2 = line.indexOf(' ', s1 + 1);
  let p = s2;
  for (let i = 2; i < 5 && p >= 0; i++) p = line.indexOf(' ', p + 1);
  const s6 = p < 0 ? -1 : line.indexOf(' ', p + 1);
  const last = line.lastIndexOf(' ');
  if (s1 <= 0 || s6 < 0 || last <= s6) return undefined;
  return [line.slice(0, s1), line.slice(s1 + 1, s2), line.slice(p + 1, s6), line.slice(last + 1)];
}

const STANDARD = ' CDX N b a m s k r M S V g';

async function* captureKeys(
  paths: string[], stats: DedupStats, pick: (f: { urlkey: string; timestamp: string; digest: string; mime: string; filename: string }) => string | undefined,
): AsyncGenerator<string[]> {
  for (const path of paths) {
    const reader = new CdxLineReader();
    // Standard CDX11 (the legend or none): read the four fields by position; else the general reader.
    let standard = true;
    let lineNo = 0;
    let reported = 0;
    for await (const batch of lineBatches(path)) {
      const out: string[] = [];
      for (const line of batch) {
        lineNo++;
        if (line === '' || line.startsWith(' CDX') || line[0] === '!') {
          if (line.startsWith(' CDX')) standard = line.trim() === STANDARD.trim();
          reader.parse(line);
          continue;
        }
        stats.lines++;
        let f: { urlkey: string; timestamp: string; digest: string; mime: string; filename: string } | undefined;
        const fast = standard && line.charCodeAt(line.indexOf(' ', line.indexOf(' ') + 1) + 1) !== 123 ? cdx11Fields(line) : undefined;
        if (fast) {
          const m1 = line.indexOf(' ', line.indexOf(' ', line.indexOf(' ') + 1) + 1);
          const mime = line.slice(m1 + 1, line.indexOf(' ', m1 + 1));
          f = { urlkey: fast[0], timestamp: fast[1], digest: fast[2], mime, filename: fast[3] };
        } else f = reader.parse(line);
        if (!f || f.urlkey === '-' || !/^\d{4,14}$/.test(f.timestamp)) {
          stats.malformed++;
          // The first few per file are named; the rest are counted in the summary.
          if (reported++ < 10) {
            const what = !f ? 'not a CDX or CDXJ line' : f.urlkey === '-' ? 'no URL key' : `"${f.timestamp.slice(0, 20)}" is not a 14-digit date`;
            stats.onBadLine?.(path, lineNo, `${what}: ${JSON.stringify(line.slice(0, 60))}`);
          }
          continue;
        }
        const k = pick(f);
        if (k !== undefined) out.push(flat(k));
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
