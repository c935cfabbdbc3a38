/**
 * `import --cdx`: which records to read. Every line of the CDX inputs (CDX11, CDX9, CDXJ;
 * plain, gzipped, a ZipNum cluster, or a WACZ package's own index) that passes the filters is resolved to its archive's
 * location and written as `location, offset, length, where it was listed`; the list is sorted
 * by archive and offset (external sort, bounded memory) so that each archive is read front to
 * back, and cut into map-task lines of up to N records of one archive:
 *
 *     {"archive":"/data/a.warc.gz","collection":"c","records":[[offset,length,"x.cdx:12","http://..."],...]}
 *
 * Lines without an offset or filename, and archives no location has, are reported with the
 * CDX file and line number and counted.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { CdxLineReader } from '../cdx/cdx-reader.js';
import { CdxFilter, passesAll } from '../cdx/cdx-filter.js';
import { ZipnumCluster } from '../cdx/zipnum-reader.js';
import { ALL_KEYS } from '../cdx/cdx-source.js';
import { lineBatches } from '../mapreduce/line-reader.js';
import { externalSort } from '../mapreduce/external-sort.js';
import type { ArchiveLocator } from './archive-locator.js';

export interface CdxPlanOptions {
  cdx: string[];
  filters: string[];
  locator: ArchiveLocator;
  collection: string;
  /** Where the task lines go. */
  out: string;
  /** Records of one archive per map task at most. */
  perTask: number;
  /** Map tasks that run at once: tasks are made at least twice as many, when there are records enough. */
  threads: number;
  sortMemory: number;
  tmpDir?: string;
  warn: (message: string) => void;
}

export interface CdxPlan {
  lines: number;
  selected: number;
  filteredOut: number;
  badLines: number;
  unresolved: number;
  archives: number;
  tasks: number;
}

/** A record the task reads: offset, length (-1: unknown), where it was listed, its URL. */
export type PlannedRecord = [number, number, string, string];

export interface RecordGroup {
  archive: string;
  collection: string;
  records: PlannedRecord[];
}

/** Lines of one CDX input with their numbers (a cluster's lines are numbered across its blocks). */
async function* numberedLines(path: string): AsyncGenerator<[string, number]> {
  let n = 0;
  if (/\.wacz$/i.test(path)) {
    // A WACZ package: its own index.
    const { packageIndexLines } = await import('../archive/wacz.js');
    for await (const l of packageIndexLines(path)) yield [l, ++n];
    return;
  }
  if (ZipnumCluster.isCluster(path)) {
    for await (const l of ZipnumCluster.open(path).lines(ALL_KEYS.startKey, ALL_KEYS.endKey)) yield [l, ++n];
    return;
  }
  for await (const batch of lineBatches(path)) for (const l of batch) yield [l, ++n];
}

const pad = (n: number) => String(n).padStart(15, '0');

export async function planCdxImport(o: CdxPlanOptions): Promise<CdxPlan> {
  const filters = o.filters.map((f) => new CdxFilter(f));
  const plan: CdxPlan = { lines: 0, selected: 0, filteredOut: 0, badLines: 0, unresolved: 0, archives: 0, tasks: 0 };
  const missing = new Map<string, number>();
  let warned = 0;
  const warnLine = (m: string) => {
    if (++warned <= 20) o.warn(m);
  };
  async function* records(): AsyncGenerator<string[]> {
    for (const cdx of o.cdx) {
      const reader = new CdxLineReader();
      let batch: string[] = [];
      for await (const [line, n] of numberedLines(cdx)) {
        const f = reader.parse(line);
        if (!f) continue;
        plan.lines++;
        if (filters.length && !passesAll(filters, f, line)) {
          plan.filteredOut++;
          continue;
        }
        const offset = Number(f.offset);
        const length = f.length === '-' ? -1 : Number(f.length);
        if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || f.filename === '-' || f.url === '-') {
          plan.badLines++;
          warnLine(`${cdx}: line ${n}: no archive offset, length or filename to read the record by; skipped`);
          continue;
        }
        // A package's index names the WARCs inside it.
        const location = /\.wacz$/i.test(cdx) ? await (await import('../archive/wacz.js')).packageEntryOf(cdx, f.filename) : await o.locator.locate(f.filename);
        if (!location) {
          plan.unresolved++;
          if (!missing.has(f.filename))
            warnLine(
              `${cdx}: line ${n}: archive ${f.filename} is in none of the archive locations (--archives, nwax.archive.locations); its records are skipped`,
            );
          missing.set(f.filename, (missing.get(f.filename) ?? 0) + 1);
          continue;
        }
        plan.selected++;
        batch.push(`${location}\t${pad(offset)}\t${length}\t${cdx}: line ${n}\t${f.url}`);
        if (batch.length >= 65536) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    }
  }
  const out = createWriteStream(o.out);
  let group: RecordGroup | undefined;
  let lastKey = '';
  let lastArchive = '';
  const flush = async () => {
    if (!group) return;
    plan.tasks++;
    if (!out.write(`${JSON.stringify(group)}\n`)) await once(out, 'drain');
    group = undefined;
  };
  // Known once the sort has read everything: enough tasks for the threads, few enough that a
  // task's start (a worker, its modules) is not the cost.
  let perTask = 0;
  for await (const sorted of externalSort(records(), { memory: o.sortMemory, tmpDir: o.tmpDir })) {
    perTask ||= Math.max(1, Math.min(o.perTask, Math.ceil(plan.selected / (2 * Math.max(1, o.threads)))));
    for (const l of sorted) {
      const [archive, off, len, ref, url] = l.split('\t');
      // The same line listed twice (overlapping CDX files) is read once.
      const key = `${archive}\t${off}\t${url}`;
      if (key === lastKey) continue;
      lastKey = key;
      if (archive !== lastArchive) plan.archives++;
      lastArchive = archive;
      if (group && (group.archive !== archive || group.records.length >= perTask)) await flush();
      group ??= { archive, collection: o.collection, records: [] };
      group.records.push([Number(off), Number(len), ref, url]);
    }
  }
  await flush();
  out.end();
  await once(out, 'close');
  if (warned > 20) o.warn(`... and ${warned - 20} more such lines`);
  return plan;
}
