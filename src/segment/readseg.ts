/**
 * Reading segments back (Nutch's SegmentReader): `-list` counts per segment, `-dump` every
 * part's record per document key, or one key by binary search in each part's block index.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parts, recover } from '../mapreduce/dataset.js';
import { RecordFileReader } from '../mapreduce/record-file.js';
import { hashPartition } from '../mapreduce/partition.js';
import { SEGMENT_PARTS } from './segment.js';
import { NwaxError } from '../util/errors.js';
import type { CrawlFetch, ParseData } from './segment.js';

function partsOf(segment: string, name: string): string[] {
  const dir = join(segment, name);
  return existsSync(dir) ? parts(dir) : [];
}

function check(segment: string): void {
  recover(segment);
  if (!existsSync(segment)) throw new NwaxError('NWAX_INPUT', `${segment}: no such segment`);
  if (!SEGMENT_PARTS.some((p) => existsSync(join(segment, p))))
    throw new NwaxError('NWAX_INPUT', `${segment}: not a segment (none of ${SEGMENT_PARTS.join(', ')} in it)`);
}

function fmt(d: string | undefined): string {
  return d ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}` : '?';
}

export function listSegments(segments: string[]): string[] {
  const rows = [['NAME', 'GENERATED', 'FETCHER START', 'FETCHER END', 'FETCHED', 'PARSED']];
  for (const seg of segments) {
    check(seg);
    let generated: number | undefined;
    for (const p of partsOf(seg, 'crawl_generate')) {
      generated ??= 0;
      for (const _ of new RecordFileReader(p).entries()) generated++;
    }
    let fetched = 0;
    let first: string | undefined;
    let last: string | undefined;
    for (const p of partsOf(seg, 'crawl_fetch')) {
      for (const r of new RecordFileReader(p).entries()) {
        const f = r.value as CrawlFetch;
        if (f.status === 'fetch_success') fetched++;
        for (const d of f.dates ?? [f.date]) {
          if (!first || d < first) first = d;
          if (!last || d > last) last = d;
        }
      }
    }
    let parsed = 0;
    for (const p of partsOf(seg, 'parse_data')) {
      for (const r of new RecordFileReader(p).entries()) if ((r.value as ParseData).parse === 'success') parsed++;
    }
    rows.push([basename(seg), generated === undefined ? '?' : String(generated), fmt(first), fmt(last), String(fetched), String(parsed)]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
}

/** Writes the records of `key` (or of every key) in Nutch's dump layout; whether any was found. */
export async function dumpSegment(segment: string, key: string | undefined, out: (s: string) => void): Promise<boolean> {
  check(segment);
  const readers = Object.fromEntries(SEGMENT_PARTS.map((name) => [name, partsOf(segment, name).map((p) => new RecordFileReader(p))]));
  const keys: string[] = [];
  if (key !== undefined) keys.push(key);
  let n = 0;
  const dumpOne = (k: string) => {
    const sections: string[] = [];
    for (const name of SEGMENT_PARTS) {
      const rs = readers[name];
      if (rs.length === 0) continue;
      // A key lives in the partition the job's partitioner gave it.
      const values = rs[hashPartition(k, rs.length)].get(k);
      for (const v of values) sections.push(`${sectionName(name)}::\n${JSON.stringify(v, null, 2)}\n`);
    }
    if (sections.length === 0) return false;
    out(`Recno:: ${n++}\nURL:: ${k}\n\n${sections.join('\n')}\n`);
    return true;
  };
  if (key !== undefined) return dumpOne(key);
  // All keys: the content part lists every document.
  for (const r of readers.content.length ? readers.content : readers.parse_data) {
    for (const rec of r.entries()) dumpOne(rec.key);
  }
  return n > 0;
}

function sectionName(part: string): string {
  return { content: 'Content', parse_data: 'ParseData', parse_text: 'ParseText', crawl_fetch: 'CrawlFetch', crawl_parse: 'CrawlParse' }[part] ?? part;
}
