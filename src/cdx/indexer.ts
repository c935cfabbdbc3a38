/**
 * cdxLines: the CDX lines of one archive file, in file order, as an async iterator. The
 * reader's issues (damaged records skipped, warnings) go to `onIssue`; the counts are on the
 * returned object's `stats` when iteration ends.
 */
import { ArchiveReader, type ReadIssue, type ReadStats } from '../archive/reader.js';
import { openByteSource } from '../archive/byte-source.js';
import { buildEntry, EntryBuilder, indexedByDefault, type CdxEntry } from './cdx-entry.js';
import { formatEntry, type CdxFormat } from './cdx-format.js';
import type { Canonicalizer } from './surt.js';

export interface CdxOptions {
  format?: CdxFormat;
  canonicalizer?: Canonicalizer;
  /** Index every record, not only response, revisit, resource and metadata. */
  allRecords?: boolean;
  /** Record types to index (default response, revisit, resource, metadata). */
  recordTypes?: readonly string[];
  robotsScanBytes?: number;
  strict?: boolean;
  onIssue?: (issue: ReadIssue) => void;
  inflateWindow?: number;
  inflateMaxBuffer?: number;
  httpHeaderMax?: number;
  verifyCrc?: boolean;
  /** Every record vouched for by its own payload digest, or skipped (cdx-entry.ts EntryOptions.verify). */
  verifyDigests?: boolean;
}

export interface CdxRun {
  entries: AsyncIterable<CdxEntry>;
  /** Filled as the entries are read; complete when iteration ends. */
  stats: ReadStats;
}

export async function cdxEntries(path: string, opts: CdxOptions = {}): Promise<CdxRun> {
  const source = await openByteSource(path);
  const reader = new ArchiveReader(source, {
    onIssue: opts.onIssue,
    strict: opts.strict,
    inflateWindow: opts.inflateWindow,
    inflateMaxBuffer: opts.inflateMaxBuffer,
    httpHeaderMax: opts.httpHeaderMax,
    verifyCrc: opts.verifyCrc,
  });
  const types = opts.recordTypes ? new Set(opts.recordTypes) : undefined;
  const entryOpts = { canonicalizer: opts.canonicalizer ?? 'surt', robotsScanBytes: opts.robotsScanBytes ?? 65536, verify: opts.verifyDigests } as const;
  async function* entries(): AsyncGenerator<CdxEntry> {
    for await (const record of reader) {
      if (!opts.allRecords && !indexedByDefault(record, types)) continue;
      const b = new EntryBuilder(record, entryOpts);
      const e = await buildEntry(record, source.fileName, entryOpts, b);
      if (e) yield e;
      else if (b.rejected) {
        // Read whole and sound, but not what it says it is (or unsaid): skipped, and said so.
        reader.stats.skipped[b.rejected] = (reader.stats.skipped[b.rejected] ?? 0) + 1;
        const detail =
          b.rejected === 'no-digest'
            ? `${record.url || record.type}: no payload digest to check it by, in an entry whose package hash failed`
            : `${record.url || record.type}: its payload is not the one its digest ${record.payloadDigest} names`;
        opts.onIssue?.({ file: source.fileName, offset: record.offset, reason: b.rejected, detail, skipped: true });
      }
    }
  }
  return { entries: entries(), stats: reader.stats };
}

/** The formatted lines (no header line) of one archive. */
export async function* cdxLines(path: string, opts: CdxOptions = {}): AsyncGenerator<string> {
  const run = await cdxEntries(path, opts);
  const format = opts.format ?? 'cdx11';
  for await (const e of run.entries) yield formatEntry(e, format);
}
