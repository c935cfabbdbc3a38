/**
 * The records of a WACZ export (wacz-export.ts builds the package around them): each page's
 * record and the records of what it embeds, copied byte for byte from their archives to the
 * end of the package's WARC (a plain record gzipped as a member of its own), each once however
 * many pages embed it, hashed as written, with its CDXJ line for the package's index. Records
 * are read and scanned ahead on the scan threads (prepare) and placed in the order asked.
 */
import type { createHash } from 'node:crypto';
import { openSync, closeSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { openByteRange } from '../archive/byte-source.js';
import { formatEntry } from '../cdx/cdx-format.js';
import type { CaptureIndex } from '../replay/captures.js';
import { NwaxError } from '../util/errors.js';
import type { RecordBytes } from './record-bytes.js';
import { scanRecord, type RecordScan } from './record-scan.js';
import type { ScanPool } from './scan-pool.js';

type Hash = ReturnType<typeof createHash>;

/** A record read for the package: its bytes (a gzip member) and what the scan found; bytes undefined: streamed when placed. */
export interface Prepared {
  bytes?: Buffer;
  scan?: RecordScan;
}

/** A page to export: its capture, and where its record is. */
export interface PageRecord {
  ts: string;
  mime: string;
  collection: string;
  location: string;
  offset: number;
  clen: number;
}

/** Where the package's WARC goes: written through, in order (zip-writer.ts's stored entry). */
export interface WarcSink {
  write(b: Buffer): void;
}

/** `b` written at the file's end; its length. */
function writeAll(fd: number, b: Buffer): number {
  for (let at = 0; at < b.length; ) at += writeSync(fd, b, at);
  return b.length;
}

/** A record too large to hold (or remote, or in a package) copied as it is read; a plain one gzipped as one member. */
async function streamRecord(location: string, offset: number, length: number, write: (b: Buffer) => number): Promise<number> {
  const source = await openByteRange(location, { offset, length: length > 0 ? length : undefined });
  let written = 0;
  try {
    const it = source.chunks();
    const first = await it.next();
    if (first.done) throw new NwaxError('NWAX_INPUT', `${location}: nothing at offset ${offset}`);
    const rest = async function* () {
      yield first.value;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    };
    const gz = first.value[0] === 0x1f && first.value[1] === 0x8b;
    for await (const c of gz ? rest() : Readable.from(rest()).pipe(createGzip())) written += write(c as Buffer);
  } finally {
    source.close();
  }
  return written;
}

/** A record's identity (the index and the capture index may name one file by two paths: ../ and all). */
function recordKey(location: string, offset: number): string {
  return `${/^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? location : resolve(location)}\u0000${offset}`;
}

export class PackageRecords {
  /** Records written, bytes of WARC, embedded resources placed, and those not in the archive. */
  records = 0;
  bytes = 0;
  resources = 0;
  missing = 0;
  /** The collection's other captures placed (an export of the whole collection). */
  otherCaptures = 0;
  /** Records left out, by reason: no record where the index says, a damaged one, an archive that cannot be read. */
  readonly skipped: { [reason: string]: number } = {};
  private readonly unsorted: number;
  private indexText = '';
  private readonly copied = new Set<string>();
  private readonly nearest = new Map<string, { location: string; offset: number; length: number } | null>();

  /** The WARC written to `warc` (hashed into `warcHash`), its index lines unsorted to `unsortedPath`. */
  constructor(
    private readonly warc: WarcSink,
    readonly warcHash: Hash,
    unsortedPath: string,
    private readonly source: RecordBytes,
    private readonly pool: ScanPool,
    private readonly captures: CaptureIndex,
    private readonly opts: { resources: boolean; htmlLimit: number; say: (m: string) => void },
  ) {
    this.unsorted = openSync(unsortedPath, 'w');
  }

  /** The record at `location` read (and scanned on the pool), or left to be streamed when placed. */
  prepare(location: string, offset: number, length: number, html: boolean): Promise<Prepared> {
    const whole = this.source.read(location, offset, length);
    if (!whole) return Promise.resolve({});
    // A plain (uncompressed) record goes into the package as a gzip member of its own.
    return this.pool.scan(whole[0] === 0x1f && whole[1] === 0x8b ? whole : gzipSync(whole), { html, htmlLimit: this.opts.htmlLimit });
  }

  /** Whether a page of this type has its embedded resources exported. */
  embeds(mime: string): boolean {
    return this.opts.resources && /html/i.test(mime);
  }

  /**
   * The record written at the WARC's end (once), and its index line; the URLs its scan found.
   * undefined where it is left out (reported and counted): no record starts where the index
   * says, it is damaged, or its archive cannot be read. A record is checked before any byte of
   * it is written.
   */
  private async place(location: string, offset: number, length: number, html: boolean, r: Prepared): Promise<string[] | undefined> {
    const key = recordKey(location, offset);
    const range = () => openByteRange(location, { offset, length: length > 0 ? length : undefined });
    if (this.copied.has(key)) {
      const scan = r.scan ?? (html ? await this.scan(range, html, location) : undefined);
      return scan?.urls ?? [];
    }
    this.copied.add(key);
    const scan = r.scan ?? (await this.scan(range, html, location));
    if (scan.problem) {
      this.skipped[scan.problem.reason] = (this.skipped[scan.problem.reason] ?? 0) + 1;
      this.opts.say(`${location}: offset ${offset}: ${scan.problem.detail} (${scan.problem.reason}); not exported`);
      return undefined;
    }
    const at = this.bytes;
    const written = r.bytes ? this.write(r.bytes) : await streamRecord(location, offset, length, (b) => this.write(b));
    this.bytes += written;
    this.records++;
    if (scan.entry) {
      this.indexText += `${formatEntry({ ...scan.entry, offset: at, length: written }, 'cdxj')}\n`;
      if (this.indexText.length >= 1 << 20) this.flushIndex();
    }
    return scan.urls ?? [];
  }

  /** A record streamed and scanned (one too large to hold, remote, or in a package); an archive that cannot be read is the record's problem. */
  private async scan(range: () => ReturnType<typeof openByteRange>, html: boolean, location: string): Promise<RecordScan> {
    try {
      return await scanRecord(range, { html, htmlLimit: this.opts.htmlLimit });
    } catch (err) {
      if (!(err instanceof NwaxError)) throw err;
      // (The message names the archive; the report names it first.)
      return { urls: [], problem: { reason: 'unreadable', detail: err.message.replace(`${location}: `, '') } };
    }
  }

  /** Bytes at the WARC's end, hashed. */
  private write(b: Buffer): number {
    this.warcHash.update(b);
    this.warc.write(b);
    return b.length;
  }

  private flushIndex(): void {
    if (this.indexText) writeAll(this.unsorted, Buffer.from(this.indexText));
    this.indexText = '';
  }

  /** The capture of `url` nearest the page's that holds the resource itself (a revisit would need its original); undefined where none. */
  private async nearestCapture(p: PageRecord, url: string): Promise<{ location: string; offset: number; length: number } | undefined> {
    // A resource many pages embed (a site's stylesheet, its logo) looked up once a day.
    const key = `${p.collection}\u0000${p.ts.slice(0, 8)}\u0000${url}`;
    let near = this.nearest.get(key);
    if (near === undefined) {
      const c = (await this.captures.closest(url, p.ts, p.collection || '*')).captures.find((x) => x.mime !== 'warc/revisit');
      const location = c && (await c.locate());
      near = c && location ? { location, offset: c.offset, length: c.length } : null;
      this.nearest.set(key, near);
      if (this.nearest.size > 100_000) this.nearest.delete(this.nearest.keys().next().value!);
    }
    return near ?? undefined;
  }

  /** The page's record placed, then the records of what it embeds; false where the page's own is left out. */
  async placePage(p: PageRecord, prepared: Prepared, embeds = true): Promise<boolean> {
    const urls = await this.place(p.location, p.offset, p.clen, embeds && this.embeds(p.mime), prepared);
    if (urls === undefined) return false;
    for (const u of urls) {
      const near = await this.nearestCapture(p, u);
      if (!near) {
        this.missing++;
        continue;
      }
      if (this.copied.has(recordKey(near.location, near.offset))) continue;
      const placed = await this.place(near.location, near.offset, near.length, false, await this.prepare(near.location, near.offset, near.length, false));
      if (placed) this.resources++;
    }
    return true;
  }

  /** Whether the record at `location` and `offset` is in the package already. */
  has(location: string, offset: number): boolean {
    return this.copied.has(recordKey(location, offset));
  }

  /** A capture of the collection placed (its record, once; no resource scan); false where it is left out. */
  async placeCapture(location: string, offset: number, length: number, prepared: Prepared): Promise<boolean> {
    if (this.has(location, offset)) return true;
    if ((await this.place(location, offset, length, false, prepared)) === undefined) return false;
    this.otherCaptures++;
    return true;
  }

  /** A capture whose archive is in no place the capture index knows: reported, counted, left out. */
  unlocated(filename: string, offset: number): void {
    this.skipped['archive-not-found'] = (this.skipped['archive-not-found'] ?? 0) + 1;
    this.opts.say(`${filename}: offset ${offset}: the archive is in none of the places its segment lists; not exported`);
  }

  /** The unsorted index complete (the WARC is the sink's). */
  close(): void {
    this.flushIndex();
    closeSync(this.unsorted);
  }
}
