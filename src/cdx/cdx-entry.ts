/**
 * From an archive record to the fields of its CDX line. Field by field this follows
 * cdxj-indexer (the indexer pywb uses), except where docs/conformance.md says otherwise and
 * why (redirect and robot fields filled, hex digests in base32, ARC headers read as CDX-Writer).
 */
import type { ArchiveRecord } from '../archive/record.js';
import { base32, sha1Hasher } from '../archive/digest.js';
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
}

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
  if (r.format === 'arc') return r.type === 'filedesc' ? 'warc/filedesc' : cutMime(r.contentType) ?? '-';
  if (r.type === 'response' || r.type === 'request') return cutMime(r.http?.headers.get('Content-Type')) ?? '-';
  return cutMime(r.contentType) ?? '-';
}

/** Characters that would break a space-separated CDX line are percent-encoded. */
export function cdxSafe(s: string): string {
  return /[\x00-\x20\x7f]/.test(s) ? s.replace(/[\x00-\x20\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`) : s;
}

function redirectOf(r: ArchiveRecord, status: string): string {
  if (status[0] !== '3') return '-';
  const loc = r.http?.headers.get('Location');
  if (!loc) return '-';
  try {
    return cdxSafe(new URL(loc.trim(), r.url).href);
  } catch {
    return cdxSafe(loc.trim());
  }
}

/**
 * Reads what the line needs from the record's payload (the digest where none is declared, the
 * robot flags of HTML pages), streaming, then finishes the record. Returns undefined when the
 * record turned out to be damaged (the reader has reported it).
 */
export async function buildEntry(r: ArchiveRecord, filename: string, opts: EntryOptions): Promise<CdxEntry | undefined> {
  const mime = mimeOf(r);
  const status = r.http?.status && (r.type === 'response' || r.type === 'revisit') ? r.http.status : '-';
  const needDigest = !r.payloadDigest;
  const scanRobots = mime === 'text/html' && opts.robotsScanBytes > 0 && r.type === 'response' &&
    !/\S/.test((r.http?.headers.get('Content-Encoding') ?? '').replace(/identity/i, ''));
  let digest = r.payloadDigest;
  let meta = '-';
  if (needDigest || scanRobots) {
    const hash = needDigest ? sha1Hasher() : undefined;
    const head: Buffer[] = [];
    let headLen = 0;
    // The digest is of the payload as stored, as the reference indexers compute it.
    for await (const chunk of r.rawPayload()) {
      hash?.update(chunk);
      if (scanRobots && headLen < opts.robotsScanBytes) {
        const part = chunk.subarray(0, opts.robotsScanBytes - headLen);
        head.push(part);
        headLen += part.length;
      }
      if (!hash && headLen >= opts.robotsScanBytes) break;
    }
    if (hash) digest = base32(hash.digest());
    if (scanRobots) meta = robotFlags(head.length === 1 ? head[0] : Buffer.concat(head));
  }
  const end = await r.finish();
  if (end.damaged) return undefined;
  const url = cdxSafe(r.url);
  return {
    urlkey: cdxSafe(urlKey(r.url, opts.canonicalizer)),
    timestamp: r.date ?? '-',
    url: url || '-',
    mime: cdxSafe(mime),
    status,
    digest: digest ?? '-',
    redirect: redirectOf(r, status),
    meta,
    length: end.length,
    offset: r.offset,
    filename,
    recordType: r.type,
  };
}
