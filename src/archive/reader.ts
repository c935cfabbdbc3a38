/**
 * readArchive: the records of an ARC or WARC file (gzipped per record or plain) as an async
 * iterator. Payloads are streamed, never read whole. A damaged record is reported through
 * `onIssue`, counted by reason, and skipped; reading resumes at the next record (next gzip
 * member, or the next `WARC/` or ARC header line).
 */
import { ByteWindow } from './byte-window.js';
import { openByteSource, type ByteSource, type RemoteOptions } from './byte-source.js';
import { SegmentCursor } from './cursor.js';
import { gzipSegments, plainSegments } from './segments.js';
import { HeaderList, headerBlockEnd, parseHeaderLines, parseHttpHead, type HttpHead } from './headers.js';
import { parseArcHeader, looksLikeArcHeader } from './arc-header.js';
import { warcDateTo14 } from './dates.js';
import { normalizeDigest } from './digest.js';
import type { ArchiveFormat, ArchiveRecord, RecordEnd } from './record.js';
import { FormatError } from '../util/errors.js';
import { isUtf8 } from 'node:buffer';
import { dechunk } from './dechunk.js';

export interface ReadIssue {
  file: string;
  offset: number;
  reason: string;
  detail: string;
  /** true: the record was skipped; false: a warning, the record was still read. */
  skipped: boolean;
}

export interface ReadOptions {
  /** Called for each damaged record or warning. */
  onIssue?: (issue: ReadIssue) => void;
  /** Stop at the first damaged record with a FormatError instead of skipping it. */
  strict?: boolean;
  inflateWindow?: number;
  inflateMaxBuffer?: number;
  httpHeaderMax?: number;
  verifyCrc?: boolean;
  /** How http(s) archives are read. */
  remote?: RemoteOptions;
}

export interface ReadStats {
  records: number;
  skipped: Record<string, number>;
  warnings: Record<string, number>;
  /** Compressed bytes read. */
  bytes: number;
}

const WARC_MAGIC = Buffer.from('WARC/');
const HEADER_MAX = 1 << 20;

export class ArchiveReader implements AsyncIterable<ArchiveRecord> {
  readonly stats: ReadStats = { records: 0, skipped: {}, warnings: {}, bytes: 0 };
  private format: ArchiveFormat | undefined;
  private cursor!: SegmentCursor;

  constructor(
    readonly source: ByteSource,
    private readonly opts: ReadOptions = {},
  ) {}

  get fileName(): string {
    return this.source.fileName;
  }

  private issue(offset: number, reason: string, detail: string, skipped: boolean): void {
    const table = skipped ? this.stats.skipped : this.stats.warnings;
    table[reason] = (table[reason] ?? 0) + 1;
    if (this.opts.strict && skipped) throw new FormatError(this.source.name, offset, reason, detail);
    this.opts.onIssue?.({ file: this.source.name, offset, reason, detail, skipped });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ArchiveRecord> {
    const win = new ByteWindow(this.source.chunks());
    try {
      const n = await win.fill(0, 2);
      if (n === 0) {
        this.issue(0, 'empty-file', 'empty file: no records', true);
        return;
      }
      const head = win.view(0, 2);
      const gzip = n === 2 && head[0] === 0x1f && head[1] === 0x8b;
      const events = gzip
        ? gzipSegments(win, {
            window: this.opts.inflateWindow ?? 4 << 20,
            maxBuffer: this.opts.inflateMaxBuffer ?? 32 << 20,
            verifyCrc: this.opts.verifyCrc ?? true,
          })
        : plainSegments(win);
      this.cursor = new SegmentCursor(events, gzip);
      yield* this.records(gzip);
      this.stats.bytes = win.end;
    } finally {
      this.source.close();
    }
  }

  private async *records(gzip: boolean): AsyncGenerator<ArchiveRecord> {
    const c = this.cursor;
    for (;;) {
      await this.skipBlankBytes();
      if (c.atDamage) {
        const d = c.clearDamage()!;
        this.issue(d.offset, d.reason, d.detail, true);
        continue;
      }
      if ((await c.ensure(1)) === 0) return;
      const offset = await c.offsetHere();
      const probe = c.peek(Math.min(await c.ensure(16), 16));
      let record: LiveRecord;
      try {
        if (probe.subarray(0, 5).equals(WARC_MAGIC)) {
          this.format ??= 'warc';
          record = await this.readWarcHead(offset);
        } else if (this.format !== 'warc' && /^[a-z][a-z0-9+.-]*:/i.test(probe.toString('latin1'))) {
          this.format ??= 'arc';
          record = await this.readArcHead(offset);
        } else {
          throw new RecordProblem('not-a-record', this.format
            ? `no ${this.format.toUpperCase()} record starts here (${describeBytes(probe)})`
            : `not an ARC or WARC file (starts with ${describeBytes(probe)})`);
        }
      } catch (err) {
        if (!(err instanceof RecordProblem)) {
          if (c.atDamage) {
            const d = c.clearDamage()!;
            this.issue(offset, d.reason, d.detail, true);
            continue;
          }
          throw err;
        }
        this.issue(offset, err.reason, err.message, true);
        if (err.reason === 'not-a-record' && !this.format && offset === 0 && !gzip) return;
        await this.resync(gzip);
        continue;
      }
      this.stats.records++;
      // Where reading has got to, for progress; the file size once the end is reached.
      this.stats.bytes = offset;
      yield record;
      const end = await record.finish();
      if (end.damaged) continue;
    }
  }

  /** Skips CR, LF and NUL bytes between records. */
  private async skipBlankBytes(): Promise<void> {
    const c = this.cursor;
    for (;;) {
      const have = await c.ensure(256);
      if (have === 0) return;
      const v = c.peek(have);
      let i = 0;
      while (i < v.length && (v[i] === 10 || v[i] === 13 || v[i] === 0)) i++;
      c.advance(i);
      if (i < v.length) return;
    }
  }

  /** After a bad record: go to the next gzip member, or the next line that starts a record. */
  private async resync(gzip: boolean): Promise<void> {
    const c = this.cursor;
    if (gzip) {
      await c.skipToNextMember();
      return;
    }
    // Plain file: scan line by line for a record start.
    for (;;) {
      const nl = await c.indexOf(Buffer.from('\n'), Number.MAX_SAFE_INTEGER);
      if (nl < 0) {
        while ((await c.ensure(1 << 16)) > 0) c.advance(c.peek(1 << 16).length);
        return;
      }
      c.advance(nl + 1);
      const have = await c.ensure(8192);
      const line = c.peek(have);
      if (line.subarray(0, 5).equals(WARC_MAGIC) && this.format !== 'arc') return;
      if (this.format === 'arc') {
        const eol = line.indexOf(10);
        if (eol > 0 && looksLikeArcHeader(line.toString('latin1', 0, eol).replace(/\r$/, ''))) return;
      }
    }
  }

  private async readHeaderBlock(what: string): Promise<Buffer> {
    const c = this.cursor;
    let size = 4096;
    for (;;) {
      const have = await c.ensure(size);
      const view = c.peek(have);
      const end = headerBlockEnd(view);
      if (end >= 0) return view.subarray(0, end);
      if (have < size) {
        c.throwIfDamaged();
        throw new RecordProblem('truncated', `${what} cut short (end of data inside the header)`);
      }
      if (size >= HEADER_MAX) throw new RecordProblem('bad-header', `${what} longer than ${HEADER_MAX} bytes`);
      size *= 4;
    }
  }

  private async readWarcHead(offset: number): Promise<LiveRecord> {
    const c = this.cursor;
    const block = await this.readHeaderBlock('WARC header');
    const eol = block.indexOf(10);
    const version = block.toString('latin1', 0, eol).trim();
    const headers = parseHeaderLines(block.toString('utf8', eol + 1));
    const lengthText = headers.get('Content-Length');
    if (lengthText === undefined || !/^\d+$/.test(lengthText.trim())) {
      throw new RecordProblem('bad-header', `WARC record without a valid Content-Length (${JSON.stringify(lengthText ?? null)})`);
    }
    const startedAtMember = c.atMemberStart;
    c.advance(block.length);
    let contentLength = Number(lengthText.trim());
    const type = (headers.get('WARC-Type') ?? 'unknown').toLowerCase();
    let url = headers.get('WARC-Target-URI') ?? '';
    if (url.startsWith('<') && url.endsWith('>')) url = url.slice(1, -1);
    const date = warcDateTo14(headers.get('WARC-Date') ?? '');

    // A Content-Length that runs past the end of its gzip member into the next record or the
    // end of the file: believe the member. (A record may also continue in the next member, written in several: then
    // the next member does not start with `WARC/`, and Content-Length holds.)
    if (c.gzip && startedAtMember && contentLength <= (this.opts.inflateMaxBuffer ?? 32 << 20)) {
      const left = await c.bytesLeftInMember(contentLength + 4);
      if (left < contentLength && !c.atDamage && (await this.nextRecordAt(left))) {
        this.issue(offset, 'content-length-mismatch',
          `Content-Length ${contentLength} but the record's gzip member holds ${left} bytes`, false);
        contentLength = left;
      }
    }
    const httpKind = type === 'response' || type === 'revisit' ? 'response' : type === 'request' ? 'request' : undefined;
    const http = httpKind ? await this.readHttpHead(httpKind, contentLength) : undefined;
    return new LiveRecord(this, {
      format: 'warc', version, type, url, date, headers,
      contentType: headers.get('Content-Type'),
      contentLength, http,
      payloadDigest: normalizeDigest(headers.get('WARC-Payload-Digest')),
      offset,
    });
  }

  /** Whether a WARC record, or the end of the data, comes `at` bytes ahead (after blank lines). */
  private async nextRecordAt(at: number): Promise<boolean> {
    const c = this.cursor;
    const have = await c.ensure(at + 64);
    const v = c.peek(have);
    let i = at;
    while (i < v.length && (v[i] === 13 || v[i] === 10)) i++;
    if (i >= v.length && have < at + 64) return !c.atDamage;
    return v.subarray(i, i + 5).equals(WARC_MAGIC);
  }

  private async readArcHead(offset: number): Promise<LiveRecord> {
    const c = this.cursor;
    const have = await c.ensure(8192);
    const view = c.peek(have);
    const eol = view.indexOf(10);
    if (eol < 0) {
      c.throwIfDamaged();
      throw new RecordProblem(have < 8192 ? 'truncated' : 'bad-header', 'ARC header line has no end');
    }
    // UTF-8 where the bytes are UTF-8, else Latin-1 (raw 8-bit URLs of old crawls). A raw CR
    // inside the URL (seen in IA crawls) is dropped, as CDX-Writer does.
    const raw = view.subarray(0, eol);
    const line = raw.toString(isUtf8(raw) ? 'utf8' : 'latin1').replace(/\r/g, '');
    let h;
    try {
      h = parseArcHeader(line);
    } catch (msg) {
      // In a gzipped ARC the member bounds the record: a length field that cannot be right
      // (negative, not a number) is replaced by what the member holds.
      const bad = /^(.*) (-\d+|\S*[^\d\s-]\S*)$/.exec(line);
      if (!(c.gzip && c.atMemberStart && bad)) throw new RecordProblem('bad-header', String(msg));
      const left = (await c.bytesLeftInMember(Number.MAX_SAFE_INTEGER)) - (eol + 1);
      try {
        h = parseArcHeader(`${bad[1]} ${Math.max(0, left)}`);
      } catch {
        throw new RecordProblem('bad-header', String(msg));
      }
      this.issue(offset, 'bad-length', `${String(msg)}; used the gzip member's ${left} bytes`, false);
    }
    c.advance(eol + 1);
    const headers = new HeaderList();
    headers.add('ARC-URL', h.url);
    headers.add('ARC-IP', h.ip);
    headers.add('ARC-Date', h.rawDate);
    headers.add('Content-Type', h.mime);
    headers.add('Content-Length', String(h.length));
    const filedesc = h.url.startsWith('filedesc:');
    let version = 'ARC/1';
    let lastLineOpen = false;
    if (filedesc) {
      const block = c.peek(Math.min(await c.ensure(Math.min(h.length, 1 << 16)), h.length));
      if (block[0] === 0x32 /* '2' */) version = 'ARC/2';
      lastLineOpen = block.length === h.length && h.length > 0 && block[h.length - 1] !== 10;
    }
    const http = !filedesc && /^https?:/i.test(h.url) ? await this.readHttpHead('response', h.length) : undefined;
    return new LiveRecord(this, {
      format: 'arc', version, type: filedesc ? 'filedesc' : 'response', url: h.url, date: h.date, headers,
      contentType: h.mime, contentLength: h.length, http, payloadDigest: undefined, offset, lastLineOpen,
    });
  }

  private async readHttpHead(kind: 'response' | 'request', blockLength: number): Promise<HttpHead | undefined> {
    const c = this.cursor;
    const max = Math.min(blockLength, this.opts.httpHeaderMax ?? 256 * 1024);
    if (max === 0) return undefined;
    let size = Math.min(max, 8192);
    for (;;) {
      const have = await c.ensure(size);
      const view = c.peek(have);
      if (headerBlockEnd(view) >= 0 || have < size || size >= max) {
        const head = parseHttpHead(view, kind);
        if (!head) return undefined;
        // A head that claims more than its block (no blank line before the block ends) ends with it.
        const length = Math.min(head.length, blockLength);
        c.advance(length);
        return length === head.length ? head : { ...head, length };
      }
      size = Math.min(max, size * 4);
    }
  }

  /** Used by LiveRecord. */
  get _cursor(): SegmentCursor {
    return this.cursor;
  }

  _report(offset: number, reason: string, detail: string, skipped: boolean): void {
    this.issue(offset, reason, detail, skipped);
  }
}

class RecordProblem extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

interface RecordFields {
  format: ArchiveFormat;
  version: string;
  type: string;
  url: string;
  date: string | undefined;
  headers: HeaderList;
  contentType: string | undefined;
  contentLength: number;
  http: HttpHead | undefined;
  payloadDigest: string | undefined;
  offset: number;
  /** ARC filedesc: the declared length ends before the newline of the block's last line. */
  lastLineOpen?: boolean;
}

class LiveRecord implements ArchiveRecord {
  readonly format!: ArchiveFormat;
  readonly version!: string;
  readonly type!: string;
  readonly url!: string;
  readonly date!: string | undefined;
  readonly headers!: HeaderList;
  readonly contentType!: string | undefined;
  readonly contentLength!: number;
  readonly http!: HttpHead | undefined;
  readonly payloadDigest!: string | undefined;
  readonly offset!: number;
  private readonly lastLineOpen: boolean = false;
  /** Payload bytes not yet read. */
  private left: number;
  private ended: RecordEnd | undefined;
  private short = false;

  constructor(private readonly reader: ArchiveReader, f: RecordFields) {
    Object.assign(this, f);
    this.left = f.contentLength - (f.http?.length ?? 0);
  }

  payload(onRaw?: (stored: Buffer) => void): AsyncIterable<Buffer> {
    const te = this.http?.headers.get('Transfer-Encoding');
    const raw = onRaw ? tap(this.rawPayload(), onRaw) : this.rawPayload();
    if (!te || !/chunked/i.test(te)) return raw;
    return dechunk(raw, () =>
      this.reader._report(this.offset, 'bad-chunking', 'Transfer-Encoding chunked, but the payload is not; read as stored', false));
  }

  async *rawPayload(): AsyncGenerator<Buffer> {
    const c = this.reader._cursor;
    for await (const slice of c.take(this.left)) {
      this.left -= slice.length;
      yield slice;
    }
    if (this.left > 0) this.short = true;
  }

  async finish(): Promise<RecordEnd> {
    if (this.ended) return this.ended;
    const c = this.reader._cursor;
    if (this.left > 0 && !this.short) this.left -= await c.skip(this.left);
    if (this.left > 0) {
      const damage = c.atDamage ? c.clearDamage() : undefined;
      const reason = damage?.reason ?? 'truncated';
      const detail = damage?.detail ??
        `record cut short: Content-Length ${this.contentLength}, ${this.contentLength - this.left} bytes present`;
      this.reader._report(this.offset, reason, detail, true);
      this.ended = { length: -1, damaged: { reason, detail } };
      return this.ended;
    }
    let length: number;
    if (c.gzip) {
      // Take the record's trailing newlines out of its member before asking where it ends.
      const have = await c.ensure(4);
      const tail = c.peek(have);
      let i = 0;
      while (i < tail.length && (tail[i] === 13 || tail[i] === 10)) i++;
      c.advance(i);
      length = (await c.endHere()) - this.offset;
    } else {
      if (this.type === 'filedesc' && this.lastLineOpen) {
        // A filedesc whose declared length stops before its last line's newline (pywb's
        // hand-made ARCs): that newline is part of the record, as cdxj-indexer counts it.
        if ((await c.ensure(2)) === 2 && c.peek(1)[0] === 10) c.advance(1);
      }
      length = (await c.endHere()) - this.offset;
      await this.checkSeparator();
    }
    this.ended = { length };
    return this.ended;
  }

  /** Plain files: a record must be followed by its blank lines and then a record or the end. */
  private async checkSeparator(): Promise<void> {
    const c = this.reader._cursor;
    const have = await c.ensure(64);
    if (have === 0) return;
    const v = c.peek(have);
    let i = 0;
    while (i < v.length && (v[i] === 13 || v[i] === 10)) i++;
    if (i === v.length && have < 64) return;
    const next = v.subarray(i);
    const ok = this.format === 'warc'
      ? next.subarray(0, 5).equals(WARC_MAGIC) || next.length === 0
      : /^[a-z][a-z0-9+.-]*:/i.test(next.toString('latin1', 0, 16)) || next.length === 0;
    if (!ok) {
      this.reader._report(this.offset, 'content-length-mismatch',
        `record is not followed by the next record where its Content-Length ${this.contentLength} says`, false);
    }
  }
}

function describeBytes(b: Buffer): string {
  const printable = b.toString('latin1').replace(/[^\x20-\x7e]/g, '.');
  return JSON.stringify(printable);
}

/** The chunks of `it`, each shown to `see` on the way (a digest of the stored bytes, say). */
async function* tap(it: AsyncIterable<Buffer>, see: (chunk: Buffer) => void): AsyncGenerator<Buffer> {
  for await (const c of it) {
    see(c);
    yield c;
  }
}

/** Opens `path` (or `-` for stdin) and iterates its records. */
export async function readArchive(path: string, opts: ReadOptions = {}): Promise<ArchiveReader> {
  return new ArchiveReader(await openByteSource(path, opts.remote), opts);
}
