/**
 * What an export needs of one record it copies, from one read of it: the record's CDX entry
 * (the line nwax cdx writes for it in the exported WARC, but for the offset, which is set where
 * the record lands) and, for an HTML page, the URLs of the resources its markup names. The
 * package's index is made from these, not from a second read of the WARC it wrote.
 */
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip } from 'node:zlib';
import type { ByteSource } from '../archive/byte-source.js';
import type { ArchiveRecord } from '../archive/record.js';
import { ArchiveReader } from '../archive/reader.js';
import { EntryBuilder, indexedByDefault, type CdxEntry } from '../cdx/cdx-entry.js';
import { resourceUrls } from '../replay/page-resources.js';

export interface ScanOptions {
  /** The record is an HTML page whose embedded resources are wanted. */
  html: boolean;
  /** Bytes of the page's HTML (its content encoding undone) read for what it embeds. */
  htmlLimit: number;
}

export interface RecordScan {
  /** Undefined for a record nwax cdx gives no line (or a damaged one). */
  entry?: CdxEntry;
  /** Why the bytes are no record to export: none starts there, or it is damaged (the reader's reason and detail). */
  problem?: { reason: string; detail: string };
  /** The resources the page names, as absolute URLs (none unless `html`). */
  urls: string[];
}

/** The name the package's index gives its WARC (indexes/index.cdx lines, as nwax cdx of it). */
export const PACKAGE_WARC = 'data.warc.gz';
const ENTRY_OPTIONS = { canonicalizer: 'surt', robotsScanBytes: 65536 } as const;

/**
 * The first record of the bytes `open` gives (one record's bytes, or a byte range starting at
 * one). The page's HTML and the entry's payload digest (where none is declared) come from one
 * read; a page cut at `htmlLimit` whose entry wants more is read again for the entry alone.
 */
export async function scanRecord(open: () => Promise<ByteSource> | ByteSource, opts: ScanOptions): Promise<RecordScan> {
  let urls: string[] = [];
  let again = false;
  const { entry: first, problem } = await firstRecord(open, async (r, entry) => {
    if (!opts.html) return;
    const page = await pageHtml(
      r.payload((raw) => entry?.update(raw)),
      r.http?.headers.get('Content-Encoding') ?? '',
      opts.htmlLimit,
    );
    urls = resourceUrls(page.html, r.url);
    again = !page.whole && entry?.wants === true;
  });
  if (problem) return { urls: [], problem };
  if (!again) return { entry: first, urls };
  return { entry: (await firstRecord(open, async () => {})).entry, urls };
}

/**
 * The entry of the first record, after `read` has read what it wants of it; `problem` where no
 * record starts there (what the reader skipped first) or the record is damaged.
 */
async function firstRecord(
  open: () => Promise<ByteSource> | ByteSource,
  read: (r: ArchiveRecord, entry?: EntryBuilder) => Promise<void>,
): Promise<{ entry?: CdxEntry; problem?: { reason: string; detail: string } }> {
  let skipped: { reason: string; detail: string } | undefined;
  const source = await open();
  try {
    // The source is the record's range: no bytes there is an archive that ends before the
    // offset (cut since it was indexed), not an empty file.
    const onIssue = (i: { reason: string; detail: string; skipped: boolean }) => {
      if (i.skipped) skipped ??= i.reason === 'empty-file' ? { reason: 'truncated', detail: 'no bytes at this offset: the archive ends before it' } : i;
    };
    const reader = new ArchiveReader(source, { strict: false, onIssue });
    for await (const r of reader) {
      // Bytes skipped before it: the offset is not where a record starts.
      if (skipped) return { problem: skipped };
      const entry = indexedByDefault(r) ? new EntryBuilder(r, ENTRY_OPTIONS) : undefined;
      await read(r, entry);
      if (entry?.wants) {
        for await (const chunk of r.rawPayload()) {
          entry.update(chunk);
          if (!entry.wants) break;
        }
      }
      const end = await r.finish();
      if (end.damaged) return { problem: end.damaged };
      return { entry: entry?.finish(end, PACKAGE_WARC, 0) };
    }
    return { problem: skipped ?? { reason: 'not-a-record', detail: 'no ARC or WARC record starts here' } };
  } finally {
    source.close();
  }
}

/**
 * The payload decoded (gzip, br) up to about `limit` bytes (the resource scan reads them as
 * latin1); `whole` when the payload was read to its end.
 */
async function pageHtml(payload: AsyncIterable<Buffer>, encoding: string, limit: number): Promise<{ html: Buffer; whole: boolean }> {
  const enc = encoding.toLowerCase();
  const decoded = /gzip/.test(enc)
    ? Readable.from(payload).pipe(createGunzip())
    : enc === 'br'
      ? Readable.from(payload).pipe(createBrotliDecompress())
      : payload;
  const parts: Buffer[] = [];
  let n = 0;
  let whole = false;
  try {
    for await (const c of decoded) {
      parts.push(c as Buffer);
      n += (c as Buffer).length;
      if (n >= limit) break;
    }
    whole = n < limit;
  } catch {
    // A damaged encoding: what was decoded is scanned.
  }
  if (decoded instanceof Readable) decoded.destroy();
  return { html: parts.length === 1 ? parts[0] : Buffer.concat(parts, n), whole };
}
