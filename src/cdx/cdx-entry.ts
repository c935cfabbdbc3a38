/**
 * From an archive record to the fields of its CDX line. Field by field this follows
 * cdxj-indexer (the indexer pywb uses), except where docs/conformance.md says otherwise and
 * why (redirect and robot fields filled, hex digests in base32, ARC headers read as CDX-Writer).
 */
import type { ArchiveRecord, RecordEnd } from '../archive/record.js';
import { headerUrlText } from '../archive/headers.js';
import { base32, PayloadCheck, sha1Hasher } from '../archive/digest.js';
import { robotFlags } from './robots-meta.js';
import { urlKey, type Canonicalizer } from './surt.js';

export interface CdxEntry {
  urlkey: string;
  timestamp: string;
  url: string;
  mime: string;
  status: string;
  digest: string;
  redirect: string;
  meta: string;
  length: number;
  offset: number;
  filename: string;
  /** The record's type (response, revisit, ...), not printed in CDX11. */
  recordType: string;
}

export interface EntryOptions {
  canonicalizer: Canonicalizer;
  robotsScanBytes: number;
  /**
   * Each record vouched for by its own payload digest (a WACZ entry whose package hash failed):
   * one whose bytes are not those it declares, or that declares none, gets no entry
   * (`rejected` says why). A revisit declares its original's digest: it cannot be vouched for.
   */
  verify?: boolean;
}

/** Why a record read with `verify` got no entry. */
export type Rejection = 'digest-mismatch' | 'no-digest';

const DEFAULT_TYPES = new Set(['response', 'revisit', 'resource', 'metadata']);

/** Whether a record gets a CDX line by default (as cdxj-indexer's default `--records`). */
export function indexedByDefault(r: ArchiveRecord, types: ReadonlySet<string> = DEFAULT_TYPES): boolean {
  if (!types.has(r.type)) return false;
  if ((r.type === 'resource' || r.type === 'metadata') && r.contentType?.trim() === 'application/warc-fields') return false;
  return true;
}

function cutMime(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const m = value.trim().split(/[;\s]/, 1)[0];
  return m || undefined;
}

function mimeOf(r: ArchiveRecord): string {
  if (r.type === 'revisit') return 'warc/revisit';
  if (r.format === 'arc') return r.type === 'filedesc' ? 'warc/filedesc' : (cutMime(r.contentType) ?? '-');
  if (r.type === 'response' || r.type === 'request') return cutMime(r.http?.headers.get('Content-Type')) ?? '-';
  return cutMime(r.contentType) ?? '-';
}

/** Characters that would break a space-separated CDX line are percent-encoded. */
export function cdxSafe(s: string): string {
  return /[\x00-\x20\x7f]/.test(s) ? s.replace(/[\x00-\x20\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`) : s;
}

function redirectOf(r: ArchiveRecord, status: string): string {
  if (status[0] !== '3') return '-';
  const raw = r.http?.headers.get('Location');
  if (!raw) return '-';
  const loc = headerUrlText(raw);
  try {
    return cdxSafe(new URL(loc.trim(), r.url).href);
  } catch {
    return cdxSafe(loc.trim());
  }
}

/**
 * A record's CDX entry, made from its payload as stored while something reads it: the digest
 * where none is declared, the robot flags of an HTML page from its first bytes. `nwax cdx`
 * reads the payload for it alone (buildEntry); import feeds it the chunks its own read of the
 * record passes (the capture index for replay, from the same read as the segment).
 */
export class EntryBuilder {
  private readonly hash;
  private readonly scanRobots: boolean;
  private readonly head: Buffer[] = [];
  private headLen = 0;
  private readonly mime: string;
  private readonly status: string;
  private readonly check: PayloadCheck | undefined;
  /** Why the record got no entry though it was read whole (`verify`). */
  rejected: Rejection | undefined;

  constructor(
    private readonly r: ArchiveRecord,
    private readonly opts: EntryOptions,
  ) {
    this.mime = mimeOf(r);
    this.status = r.http?.status && (r.type === 'response' || r.type === 'revisit') ? r.http.status : '-';
    this.hash = r.payloadDigest ? undefined : sha1Hasher();
    this.check = opts.verify ? new PayloadCheck(r.type === 'revisit' ? undefined : r.payloadDigest) : undefined;
    this.scanRobots =
      this.mime === 'text/html' &&
      opts.robotsScanBytes > 0 &&
      r.type === 'response' &&
      !/\S/.test((r.http?.headers.get('Content-Encoding') ?? '').replace(/identity/i, ''));
  }

  /** Whether more of the payload is needed (all of it for a digest, the first bytes for the robots scan). */
  get wants(): boolean {
    return this.hash !== undefined || this.check !== undefined || (this.scanRobots && this.headLen < this.opts.robotsScanBytes);
  }

  /** The next bytes of the payload as stored. */
  update(chunk: Buffer): void {
    // The digest is of the payload as stored, as the reference indexers compute it.
    this.hash?.update(chunk);
    this.check?.update(chunk);
    if (this.scanRobots && this.headLen < this.opts.robotsScanBytes) {
      const part = chunk.subarray(0, this.opts.robotsScanBytes - this.headLen);
      this.head.push(part);
      this.headLen += part.length;
    }
  }

  /** The entry once the record is finished: undefined when it was damaged (the reader reported it). */
  finish(end: RecordEnd, filename: string, offset = this.r.offset): CdxEntry | undefined {
    if (end.damaged) return undefined;
    const verdict = this.check?.verdict();
    if (verdict && verdict !== 'ok') {
      this.rejected = verdict;
      return undefined;
    }
    const r = this.r;
    const digest = this.hash ? base32(this.hash.digest()) : r.payloadDigest;
    const meta = this.scanRobots ? robotFlags(this.head.length === 1 ? this.head[0] : Buffer.concat(this.head)) : '-';
    const url = cdxSafe(r.url);
    return {
      urlkey: cdxSafe(urlKey(r.url, this.opts.canonicalizer)),
      timestamp: r.date ?? '-',
      url: url || '-',
      mime: cdxSafe(this.mime),
      status: this.status,
      digest: digest ?? '-',
      redirect: redirectOf(r, this.status),
      meta,
      length: end.length,
      offset,
      filename,
      recordType: r.type,
    };
  }
}

/**
 * Reads what the line needs from the record's payload, streaming, then finishes the record.
 * Returns undefined when the record turned out to be damaged (the reader has reported it).
 */
export async function buildEntry(r: ArchiveRecord, filename: string, opts: EntryOptions, entry = new EntryBuilder(r, opts)): Promise<CdxEntry | undefined> {
  if (entry.wants) {
    for await (const chunk of r.rawPayload()) {
      entry.update(chunk);
      if (!entry.wants) break;
    }
  }
  return entry.finish(await r.finish(), filename);
}
