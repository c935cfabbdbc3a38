/**
 * One archive into segment captures: every response and resource record of a WARC and every
 * ARC record (not the filedesc), filtered by HTTP status and the exclusion list, its payload
 * read once as a stream: digested where the archive declares no digest (as stored, as CDX
 * indexers compute it), and parsed (parse/) up to the byte limit. The content is a pointer into
 * the archive, not a copy. Outcomes are counted; damaged records are reported and skipped by
 * the reader, which goes on with the rest of the archive.
 */
import { ArchiveReader, readArchive, skippedWhat, type ReadIssue } from '../archive/reader.js';
import { openByteRange } from '../archive/byte-source.js';
import type { ArchiveRecord } from '../archive/record.js';
import { base32, PayloadCheck, sha1Hasher } from '../archive/digest.js';
import { ContentParser } from '../parse/parse.js';
import type { PdfLimits } from '../parse/pdf.js';
import type { Emit, TaskContext } from '../mapreduce/job.js';
import { packagePages, pageOf, withPageText, type PackagePages } from './package-pages.js';
import type { Exclusions } from './exclusions.js';
import type { StatusFilter } from './status-filter.js';
import type { ManifestEntry } from './manifest.js';
import { captureJson, digestWithAlgorithm, documentKey, normalizeUrl, type Capture } from './segment.js';
import { InputError, visible } from '../util/errors.js';
import { languageOf } from '../analysis/language.js';
import { EntryBuilder, indexedByDefault } from '../cdx/cdx-entry.js';
import { isClusterPath, isRemote } from '../archive/byte-source.js';
import { CaptureLines } from './capture-lines.js';

export interface ImportOptions {
  /** Records of one task read at the same time by import --cdx. */
  fetches?: number;
  statusFilter: StatusFilter;
  exclusions?: Exclusions;
  textLimit: number;
  byteLimit: number;
  maxOutlinks: number;
  /** Images kept per page with their words (nwax.parse.images.max). */
  maxImages?: number;
  /** How long and in how much memory a PDF may be read (parser.timeout, nwax.import.pdf.heap). */
  pdf?: PdfLimits;
  strict: boolean;
  remote: { timeout: number; retries: number; userAgent?: string; hadoop?: string };
  /** Each record vouched for by its own payload digest, or skipped (a WACZ entry whose package hash failed). */
  verifyDigests?: boolean;
  /**
   * Where the task writes the capture index lines of the archives it reads (capture-lines.ts),
   * and of which archives: `local` (on this machine) or `all`; none: no lines.
   */
  captures?: { dir: string; scope: 'local' | 'all' };
}

/** As `nwax cdx` makes its entries (its defaults: SURT keys, robots scan of 64 KiB). */
const ENTRY_OPTIONS = { canonicalizer: 'surt', robotsScanBytes: 65536 } as const;

/** WARC record types that are captures of a URL. */
const CAPTURE_TYPES = new Set(['response', 'resource']);

function mimeOf(r: ArchiveRecord): string {
  const raw = r.format === 'warc' && r.type === 'response' ? r.http?.headers.get('Content-Type') : r.contentType;
  return (raw ?? '').split(';')[0].trim().toLowerCase() || 'application/octet-stream';
}

/**
 * Reads one archive of the manifest and emits its captures under their document keys; with a
 * split, only the records that start in [start, end) (archive-splits.ts).
 */
export async function importArchive(
  entry: ManifestEntry,
  opts: ImportOptions,
  emit: Emit,
  ctx: TaskContext,
  split: { start: number; end?: number } = { start: 0 },
): Promise<void> {
  const base = split.start;
  let reader;
  try {
    const readOpts = {
      strict: opts.strict,
      remote: opts.remote,
      onIssue: (i: ReadIssue) => {
        // Damage that costs a record is reported; a quirk read past (a chunked header over a
        // payload that is not) is only counted.
        if (!i.skipped) return ctx.count(`warning ${i.reason}`);
        ctx.count('read-error');
        ctx.warn(`${base ? entry.location : i.file}: offset ${i.offset + base}: ${i.reason}: ${i.detail}; ${skippedWhat(i.reason)} skipped`);
      },
    };
    reader =
      base === 0
        ? await readArchive(entry.location, readOpts)
        : new ArchiveReader(await openByteRange(entry.location, { offset: base }, opts.remote), readOpts);
  } catch (err) {
    if (opts.strict || !(err instanceof InputError)) throw err;
    ctx.count('archives failed');
    ctx.warn(`${visible((err as Error).message)}; archive skipped`);
    return;
  }
  const file = reader.source.fileName;
  const remote = isRemote(entry.location) || isClusterPath(entry.location);
  // A WARC of a WACZ package: the pages it lists give titles and rendered text (package-pages.ts).
  let pages: PackagePages | undefined;
  try {
    pages = await packagePages(entry.location, opts.remote);
    if (pages?.textDropped)
      ctx.warn(`${entry.location}: the package's pages.jsonl holds more page text than an import keeps; ${pages.textDropped} pages' text not used`);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    ctx.warn(`${visible(err.message)}; its pages.jsonl not used`);
  }
  const lines = opts.captures && (opts.captures.scope === 'all' || !remote) ? new CaptureLines(opts.captures.dir) : undefined;
  try {
    for await (const r of reader) {
      // The next split's first record: it reads on from there.
      if (split.end !== undefined && base + r.offset >= split.end) break;
      const cdx = lines && indexedByDefault(r) ? new EntryBuilder(r, opts.verifyDigests ? { ...ENTRY_OPTIONS, verify: true } : ENTRY_OPTIONS) : undefined;
      await importRecord(r, file, entry, opts, emit, ctx, base, cdx, pages);
      if (cdx) {
        const e = cdx.finish(await r.finish(), file, base + r.offset);
        if (e) lines!.add(e);
      }
    }
  } catch (err) {
    if (opts.strict || !(err instanceof InputError)) throw err;
    // The archive could not be read on (a lost connection past its retries, say).
    ctx.count('archives failed');
    ctx.warn(`${visible((err as Error).message)}; rest of the archive skipped`);
  } finally {
    lines?.close();
    reader.source.close();
  }
}

/**
 * One record into a capture, or counted as what it is not: every record an import reads,
 * from a whole archive or at an offset a CDX line gives (`base`: where the bytes read start).
 * Returns false when the record was damaged (the reader has reported it).
 */
export async function importRecord(
  r: ArchiveRecord,
  file: string,
  entry: ManifestEntry,
  opts: ImportOptions,
  emit: Emit,
  ctx: TaskContext,
  base: number,
  cdx?: EntryBuilder,
  pages?: PackagePages,
): Promise<boolean> {
  ctx.count('records read');
  // A record without a target URL is not the capture of a page (nothing could find it).
  if ((r.format === 'arc' ? r.type === 'filedesc' : !CAPTURE_TYPES.has(r.type)) || r.url.trim() === '') {
    ctx.count('not-a-capture');
    await feedEntry(r, cdx);
    return true;
  }
  const status = r.http?.status ? Number(r.http.status) : undefined;
  if (!opts.statusFilter(status)) {
    ctx.count('status-filtered');
    await feedEntry(r, cdx);
    return true;
  }
  const capture = await readCapture(
    r,
    file,
    entry,
    opts,
    base,
    cdx,
    pages,
    (k) => ctx.count(k),
    (m) => ctx.warn(m),
  );
  if (!capture) return false;
  const { content, parse_data: pd } = capture;
  if (opts.exclusions?.has(r.url, pd.meta.digest, content.date, file)) {
    ctx.count('excluded');
    return true;
  }
  if (pd.parse === 'failed') {
    ctx.count('parse-failed');
    ctx.warn(`${entry.location}: offset ${base + r.offset}: ${r.url}: parse failed (${pd.parseError}); imported without text`);
  }
  ctx.count('imported');
  // Waits while the task's output is congested (see Emit).
  await emit(documentKey(r.url, pd.meta.digest), captureJson(capture));
  return true;
}

/** The payload of a record the segment does not take, read for its capture index line only. */
async function feedEntry(r: ArchiveRecord, cdx: EntryBuilder | undefined): Promise<void> {
  if (!cdx?.wants) return;
  for await (const chunk of r.rawPayload()) {
    cdx.update(chunk);
    if (!cdx.wants) break;
  }
}

async function readCapture(
  r: ArchiveRecord,
  file: string,
  entry: ManifestEntry,
  opts: ImportOptions,
  base: number,
  cdx?: EntryBuilder,
  pages?: PackagePages,
  count?: (what: string) => void,
  warn?: (message: string) => void,
): Promise<Capture | undefined> {
  const mime = mimeOf(r);
  const url = normalizeUrl(r.url);
  const parser = new ContentParser({
    url,
    mime,
    contentType: r.format === 'warc' && r.type === 'response' ? r.http?.headers.get('Content-Type') : r.contentType,
    contentEncoding: r.http?.headers.get('Content-Encoding'),
    textLimit: opts.textLimit,
    byteLimit: opts.byteLimit,
    maxOutlinks: opts.maxOutlinks,
    maxImages: opts.maxImages,
    pdf: opts.pdf,
  });
  const hash = r.payloadDigest ? undefined : sha1Hasher();
  const check = opts.verifyDigests ? new PayloadCheck(r.payloadDigest) : undefined;
  let stored = 0;
  for await (const chunk of r.payload((raw) => {
    hash?.update(raw);
    check?.update(raw);
    cdx?.update(raw);
    stored += raw.length;
  })) {
    if (!parser.wants && !hash && !check && !cdx?.wants) break;
    parser.write(chunk);
  }
  const end = await r.finish();
  if (end.damaged) return undefined;
  const verdict = check?.verdict();
  if (verdict && verdict !== 'ok') {
    // Read whole and sound, but not vouched for by its digest in an entry whose package hash failed.
    count?.(verdict);
    warn?.(
      `${entry.location}: offset ${base + r.offset}: ${r.url}: ${verdict === 'no-digest' ? 'no payload digest to check it by' : `its payload is not the one its digest ${r.payloadDigest} names`}; record skipped`,
    );
    return undefined;
  }
  const digest = digestWithAlgorithm(r.payloadDigest ?? base32(hash!.digest()));
  const p = await parser.finish();
  const date = r.date ?? '';
  const status = r.http?.status ? Number(r.http.status) : null;
  let { title, text } = p;
  // (Whatever the parse made of it: a PDF the browser rendered has its text there, say.)
  const page = pages ? pageOf(pages, r.url, date) : undefined;
  if (page?.title && !title) {
    title = page.title;
    count?.('titles from pages.jsonl');
  }
  if (page?.text) {
    const more = withPageText(text, page.text, opts.textLimit);
    if (more !== text) count?.('texts from pages.jsonl');
    text = more;
  }
  // The page's own declaration first, then the server's, then the text (Nutch's language-identifier order).
  const lang = p.status === 'success' ? languageOf(p.lang || r.http?.headers.get('Content-Language'), title, text) : '';
  // `date` first: the reduce sees a key's captures in date order (values sort as JSON text).
  return {
    date,
    content: {
      url,
      file,
      location: entry.location,
      offset: base + r.offset,
      length: end.length,
      collection: entry.collection,
      date,
      mime,
      status,
      recordType: r.format === 'arc' ? 'arc' : r.type,
    },
    parse_data: {
      title,
      description: p.description,
      outlinks: p.outlinks,
      noindex: p.noindex,
      nofollow: p.nofollow,
      parse: p.status,
      ...(p.error ? { parseError: p.error } : {}),
      meta: {
        url,
        digest,
        date,
        mime,
        status,
        length: r.payloadDigest ? r.contentLength - (r.http?.length ?? 0) : stored,
        collection: entry.collection,
        file,
        offset: base + r.offset,
        ...(p.charset ? { charset: p.charset } : {}),
        ...(p.truncated ? { truncated: true } : {}),
        lang,
      },
      // Last, and only where there are any: parse_data's shape before it is what outlinksIn reads.
      ...(p.images.length ? { images: p.images } : {}),
    },
    parse_text: text,
    crawl_fetch: { status: 'fetch_success', date, dates: [date] },
  };
}
