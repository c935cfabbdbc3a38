/**
 * readArchive: the records of an ARC or WARC file (gzipped per record or plain) as an async
 * iterator. Payloads are streamed, never read whole. A damaged record is reported through
 * `onIssue`, counted by reason, and skipped; reading resumes at the next record (next gzip
 * member, or the next `WARC/` or ARC header line).
 */
import { ByteWindow } from './byte-window.js';
import { openByteSource, type ByteSource, type RemoteOptions } from './byte-source.js';
import { SliceCursor } from './cursor.js';
import { gzipSlices, plainSlices } from './slices.js';
import { HeaderList, headerBlockEnd, parseHeaderLines, parseHttpHead, type HttpHead } from './headers.js';
import { parseArcHeader } from './arc-header.js';
import { arcLineAt, findRecordStart, recordAt } from './record-start.js';
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

/**
 * What a skip with `reason` dropped: bytes that start no record (garbage between records, or
 * after a record's declared end in its member), or a record.
 */
export function skippedWhat(reason: string): 'bytes' | 'record' {
  return reason === 'not-a-record' || reason === 'trailing-garbage' ? 'bytes' : 'record';
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
  private cursor!: SliceCursor;
  /** Plain files that can be read again: go back to an offset already passed. */
  private rewind: ((pos: number) => void) | undefined;

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
      const source = this.source;
      const reopen = source.reopen ? (pos: number) => new ByteWindow(source.reopen!(pos), pos) : undefined;
      const events = gzip
        ? gzipSlices(
            win,
            {
              window: this.opts.inflateWindow ?? 4 << 20,
              maxBuffer: this.opts.inflateMaxBuffer ?? 32 << 20,
              verifyCrc: this.opts.verifyCrc ?? true,
            },
            reopen,
          )
        : plainSlices(win);
      this.rewind = reopen && !gzip ? (pos) => this.cursor.reset(plainSlices(reopen(pos), pos), pos) : undefined;
      this.cursor = new SliceCursor(events, gzip);
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
          await this.garbageBeforeArcLine();
          record = await this.readArcHead(offset);
        } else {
          throw new RecordProblem(
            'not-a-record',
            this.format
              ? `no ${this.format.toUpperCase()} record starts here (${describeBytes(probe)})`
              : `not an ARC or WARC file (starts with ${describeBytes(probe)})${offset === 0 && probe[0] === 0x50 && probe[1] === 0x4b && probe[2] === 0x03 && probe[3] === 0x04 ? '; a ZIP file: a WACZ package is read by its path ending .wacz' : ''}`,
          );
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
        if (err.reason === 'not-a-record' && !this.format && offset === 0 && !gzip) {
          this.issue(offset, err.reason, err.message, true);
          return;
        }
        if (err.reason !== 'not-a-record' || gzip) {
          this.issue(offset, err.reason, err.message, true);
          await this.resync(gzip);
          continue;
        }
        // Plain file: say how many bytes start no record, once the next record is found.
        await this.resync(gzip);
        const skipped = (await c.offsetHere()) - offset;
        this.issue(offset, err.reason, `${skipped} byte${skipped === 1 ? '' : 's'} that start no record, skipped: ${err.message}`, true);
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

  /**
   * Plain ARC: bytes without a newline before a header line ("GARBAGEhttp://...") would be
   * read as part of its URL. Where the line does not start with a crawler's scheme but one
   * starts a valid header line further on, the bytes before it are no record.
   */
  private async garbageBeforeArcLine(): Promise<void> {
    const c = this.cursor;
    if (c.gzip) return;
    const view = c.peek(await c.ensure(8192));
    if (arcLineAt(view, 0)) return;
    const eol = view.indexOf(10);
    const at = findRecordStart(eol < 0 ? view : view.subarray(0, eol + 1), 1, 'arc');
    if (at > 0) throw new RecordProblem('not-a-record', `${at} bytes before an ARC header line (${describeBytes(view.subarray(0, Math.min(at, 16)))})`);
  }

  /**
   * Skips CR, LF and NUL bytes between records. NULs are no separator: a run of them (padding
   * some writers leave) is reported as a warning with its offset and count.
   */
  private async skipBlankBytes(): Promise<void> {
    const c = this.cursor;
    let nuls = 0;
    let firstNul = -1;
    for (;;) {
      const have = await c.ensure(256);
      if (have === 0) break;
      const v = c.peek(have);
      let i = 0;
      for (; i < v.length && (v[i] === 10 || v[i] === 13 || v[i] === 0); i++) {
        if (v[i] !== 0) continue;
        if (nuls++ === 0 && !c.gzip) firstNul = (await c.offsetHere()) + i;
      }
      if (nuls > 0 && firstNul < 0) firstNul = await c.offsetHere();
      c.advance(i);
      if (i < v.length) break;
    }
    if (nuls > 0) this.issue(firstNul, 'nul-bytes', `${nuls} NUL byte${nuls === 1 ? '' : 's'} between records, skipped`, false);
  }

  /** After a bad record: go to the next gzip member, or the next line that starts a record. */
  private async resync(gzip: boolean): Promise<void> {
    const c = this.cursor;
    if (gzip) {
      await c.skipToNextMember();
      return;
    }
    // Plain file: scan for the next record start, wherever it stands on its line (garbage
    // without a newline may come right before it). Skip the place reading stopped at.
    const SPAN = 1 << 16;
    let from = 1;
    for (;;) {
      const have = await c.ensure(SPAN);
      if (have <= from) {
        c.advance(have);
        return;
      }
      const view = c.peek(have);
      const at = findRecordStart(view, from, this.format);
      // A start near the end of the view may have its line cut: look again with more.
      if (at >= 0 && (at < have - 8192 || have < SPAN)) {
        c.advance(at);
        return;
      }
      if (have < SPAN) {
        c.advance(have);
        return;
      }
      const keep = 8192;
      c.advance(have - keep);
      from = 0;
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
    // Above 2^53 a number is rounded: no file is that long, and the digits are printed as read.
    if (!Number.isSafeInteger(Number(lengthText.trim()))) {
      throw new RecordProblem('bad-header', `WARC Content-Length ${lengthText.trim().slice(0, 40)} is larger than any file`);
    }
    const startedAtMember = c.atMemberStart;
    c.advance(block.length);
    const contentLength = Number(lengthText.trim());
    const type = (headers.get('WARC-Type') ?? 'unknown').toLowerCase();
    let url = headers.get('WARC-Target-URI') ?? '';
    if (url.startsWith('<') && url.endsWith('>')) url = url.slice(1, -1);
    const date = warcDateTo14(headers.get('WARC-Date') ?? '');

    const httpKind = type === 'response' || type === 'revisit' ? 'response' : type === 'request' ? 'request' : undefined;
    const http = httpKind ? await this.readHttpHead(httpKind, contentLength) : undefined;
    return new LiveRecord(this, {
      format: 'warc',
      version,
      type,
      url,
      date,
      headers,
      contentType: headers.get('Content-Type'),
      contentLength,
      http,
      payloadDigest: normalizeDigest(headers.get('WARC-Payload-Digest')),
      offset,
      startedAtMember,
    });
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
      const bad = /^(.*) (-\d+|\d{16,}|\S*[^\d\s-]\S*)$/.exec(line);
      if (!(c.gzip && c.atMemberStart && bad)) throw new RecordProblem('bad-header', String(msg));
      const left = (await c.bytesLeftInMember(Number.MAX_SAFE_INTEGER)) - (eol + 1);
      try {
        h = parseArcHeader(`${bad[1]} ${Math.max(0, left)}`);
      } catch {
        throw new RecordProblem('bad-header', String(msg));
      }
      this.issue(offset, 'bad-length', `${String(msg)}; used the gzip member's ${left} bytes`, false);
    }
    const startedAtMember = c.atMemberStart;
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
      format: 'arc',
      version,
      type: filedesc ? 'filedesc' : 'response',
      url: h.url,
      date: h.date,
      headers,
      contentType: h.mime,
      contentLength: h.length,
      http,
      payloadDigest: undefined,
      offset,
      lastLineOpen,
      startedAtMember,
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
  get _cursor(): SliceCursor {
    return this.cursor;
  }

  _report(offset: number, reason: string, detail: string, skipped: boolean): void {
    this.issue(offset, reason, detail, skipped);
  }

  get _format(): ArchiveFormat | undefined {
    return this.format;
  }

  /** Plain files: reads on from `pos` (already passed); false where the input cannot be read again. */
  _rewindTo(pos: number): boolean {
    if (!this.rewind) return false;
    this.rewind(pos);
    return true;
  }
}

class RecordProblem extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
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
  /** gzip: the record's header is the first thing in its member (the member bounds the record). */
  startedAtMember: boolean;
}

/** Plain files: how near its declared end a record's end is checked against what follows. */
const END_LOOKAHEAD = 64 * 1024;
/** Plain files: how far from the declared end a length that lies by a few bytes is looked for. */
const END_SLACK = 16;

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
  private readonly startedAtMember: boolean = false;
  /** Payload bytes not yet read. */
  private left: number;
  private ended: RecordEnd | undefined;
  /** Set when the record's bytes cannot be trusted (damage, a length that ran into the next record). */
  private damaged: { reason: string; detail: string } | undefined;
  /** Plain files: the declared end was checked against what follows. */
  private endChecked = false;
  /** Plain files: the first place inside the payload where a record starts (a length that lies). */
  private innerStart = -1;
  /** Plain files: the file offset of the next payload byte. */
  private at = -1;

  constructor(
    private readonly reader: ArchiveReader,
    f: RecordFields,
  ) {
    Object.assign(this, f);
    this.left = f.contentLength - (f.http?.length ?? 0);
  }

  payload(onRaw?: (stored: Buffer) => void): AsyncIterable<Buffer> {
    const te = this.http?.headers.get('Transfer-Encoding');
    const raw = onRaw ? tap(this.rawPayload(), onRaw) : this.rawPayload();
    if (!te || !/chunked/i.test(te)) return raw;
    return dechunk(raw, () => this.reader._report(this.offset, 'bad-chunking', 'Transfer-Encoding chunked, but the payload is not; read as stored', false));
  }

  async *rawPayload(): AsyncGenerator<Buffer> {
    for (let s = await this.next(); s.length > 0; s = await this.next()) yield s;
  }

  /**
   * The next slice of the payload, empty at its end. Where the declared length lies, the
   * record ends where the archive shows it does: in gzip files at the end of its member when
   * the next member starts a record; in plain files at the next record start within a few
   * bytes of the declared end.
   */
  private async next(): Promise<Buffer> {
    const c = this.reader._cursor;
    if (this.left <= 0 || this.damaged) return Buffer.alloc(0);
    if ((await c.ensure(1)) === 0) {
      // The file ended long before the declared end, after a record start was passed.
      if (!c.gzip && !c.atDamage && !this.endChecked && this.runOver()) this.endChecked = true;
      return Buffer.alloc(0);
    }
    if (c.gzip) {
      if (this.startedAtMember && !this.endChecked) await this.checkMemberEnd();
      const slice = await c.takeSlice(this.left);
      this.left -= slice.length;
      if (this.left === 0 && this.startedAtMember) await this.checkMemberRest();
      return slice;
    }
    if (this.at < 0) this.at = await c.offsetHere();
    if (!this.endChecked && this.left <= END_LOOKAHEAD) {
      await this.checkEnd();
      if (this.left <= 0 || this.damaged) return Buffer.alloc(0);
    }
    const slice = await c.takeSlice(this.endChecked ? this.left : this.left - END_LOOKAHEAD);
    if (!this.endChecked && this.innerStart < 0) this.lookForInnerStart(slice);
    this.at += slice.length;
    this.left -= slice.length;
    return slice;
  }

  /**
   * gzip: the declared length is read; what is left of the record's member should be its
   * trailing newlines (or another record). Other bytes are no part of the record: a record is
   * its declared length, as warcio and jwarc read it, so they are reported with their count and
   * dropped with the rest of the member, and the record keeps the digest of what it declared.
   */
  private async checkMemberRest(): Promise<void> {
    const c = this.reader._cursor;
    // The member ended with the declared length: what follows is another member's, never this record's.
    if (c.memberConsumed) return;
    const rest = await c.bytesLeftInMember(END_LOOKAHEAD + 1);
    if (rest === 0) return;
    const view = c.peek(Math.min(rest, END_LOOKAHEAD));
    let i = 0;
    while (i < view.length && (view[i] === 10 || view[i] === 13)) i++;
    if (i === rest || recordAt(view, i, this.format)) return;
    const count = rest > END_LOOKAHEAD ? `more than ${END_LOOKAHEAD}` : String(rest - i);
    this.reader._report(
      this.offset,
      'trailing-garbage',
      `${count} bytes after the record's declared ${lengthName(this.format)} ${this.contentLength}, inside its gzip member, start no record (${describeBytes(view.subarray(i, i + 16))}); dropped, the record read as declared`,
      true,
    );
    await c.skipToNextMember();
  }

  /**
   * gzip: where the record's member ends before the declared length does, and the next member
   * starts a record (or the file ends there), the length was too long: the record ends with
   * its member, less the separator newlines at its end.
   */
  private async checkMemberEnd(): Promise<void> {
    const c = this.reader._cursor;
    const { left, endsMember } = c.headSlice();
    if (!endsMember || left >= this.left) return;
    const want = left + (this.format === 'arc' ? 8192 : 16);
    const have = await c.ensure(want);
    const view = c.peek(have);
    const endsFile = have === left && !c.atDamage;
    if (!endsFile && !recordAt(view, left, this.format)) return;
    const body = left - trailingNewlines(view, left, separatorOf(this.format).length);
    this.endChecked = true;
    this.reader._report(
      this.offset,
      'content-length-mismatch',
      `${lengthName(this.format)} ${this.contentLength}, but the record's gzip member ends after ${this.contentLength - this.left + left} bytes of it and ${endsFile ? 'the file ends' : 'the next member starts a record'}; read to the end of its member`,
      false,
    );
    this.left = body;
  }

  /**
   * Plain files, once the declared end is near: is it followed by the record separator and a
   * record (or the end of the file)? If not, a record start a few bytes before it gives the
   * true end; a record start seen earlier inside the payload means the length ran over the
   * next record, which is read again from there.
   */
  private async checkEnd(): Promise<void> {
    this.endChecked = true;
    // A filedesc whose length stops before its last newline is finished below, as pywb counts it.
    if (this.lastLineOpen) return;
    const c = this.reader._cursor;
    const want = this.left + END_SLACK + 8192;
    const have = await c.ensure(want);
    const view = c.peek(have);
    const atEof = have < want && !c.atDamage;
    const sep = separatorOf(this.format);
    const strict = (end: number) => end >= 0 && end <= have && followedByRecord(view, end, sep, atEof, this.format);
    // The declared end followed by newlines and a record: taken as it stands where the whole
    // separator follows it (a record may end in newlines of its own), or where the length
    // counted the separator too (the record starts right there).
    const loose = (end: number) => {
      if (end > have || !followedByRecord(view, end, '', atEof, this.format)) return false;
      if (this.format !== 'warc') return end > 0 && view[end - 1] === 10;
      let run = 0;
      while (view[end + run] === 13 || view[end + run] === 10) run++;
      return run === 0 || run >= sep.length;
    };
    const declared = this.left;
    if (declared > have) {
      // The data ends before the declared end: cut short, unless the length ran over records.
      if (!this.runOver()) this.cutAtRecordIn(view, sep);
      return;
    }
    if (strict(declared) || loose(declared)) return;
    // A length a few bytes too long: the next record starts just before the declared end. A
    // length is never stretched the other way: bytes after the declared end that start no
    // record are no part of this one (the records loop reports and skips them), or a line of
    // garbage after a record would change its digest.
    for (let d = 1; d <= END_SLACK; d++) {
      if (strict(declared - d)) {
        this.reader._report(
          this.offset,
          'content-length-mismatch',
          `${lengthName(this.format)} ${this.contentLength} is ${d} byte${d > 1 ? 's' : ''} too long: the next record starts at offset ${this.at + declared - d + sep.length}; read to there`,
          false,
        );
        this.left = declared - d;
        return;
      }
    }
    if (!this.runOver()) this.cutAtRecordIn(view, sep);
  }

  /** Plain files: a record starting before the declared end, in the bytes held, ends this one. */
  private cutAtRecordIn(view: Buffer, sep: string): void {
    const inner = findRecordStart(view, 0, this.reader._format);
    if (inner >= 0 && inner < this.left) {
      // The separator before the next record is not the payload's.
      const end = inner - trailingNewlines(view, inner, sep.length);
      this.reader._report(
        this.offset,
        'content-length-mismatch',
        `${lengthName(this.format)} ${this.contentLength} runs over the record at offset ${this.at + inner}; read to there`,
        false,
      );
      this.left = end;
    }
  }

  /**
   * Plain files: where a record start was seen inside a payload already given out, the length
   * ran over one or more records: this record is damaged, and reading goes back to that start.
   */
  private runOver(): boolean {
    const at = this.innerStart;
    if (at < 0) return false;
    const again = this.reader._rewindTo(at);
    this.damaged = {
      reason: 'content-length-mismatch',
      detail:
        `${lengthName(this.format)} ${this.contentLength} runs over the record at offset ${at}` +
        (again ? '; reading resumes there' : '; this input cannot be read again, so the records up to the declared end are lost'),
    };
    if (again) this.left = 0;
    return true;
  }

  /** Plain files: remembers the first record start inside a payload slice (lengths that lie). */
  private lookForInnerStart(slice: Buffer): void {
    const i = slice.indexOf(10);
    if (i < 0) return;
    const at = findRecordStart(slice, i + 1, this.reader._format);
    if (at >= 0 && slice[at - 1] === 10) this.innerStart = this.at + at;
  }

  async finish(): Promise<RecordEnd> {
    if (this.ended) return this.ended;
    const c = this.reader._cursor;
    while ((await this.next()).length > 0);
    const broken = (reason: string, detail: string): RecordEnd => {
      this.reader._report(this.offset, reason, detail, true);
      this.ended = { length: -1, damaged: { reason, detail } };
      return this.ended;
    };
    if (this.damaged) return broken(this.damaged.reason, this.damaged.detail);
    if (this.left > 0) {
      const damage = c.atDamage ? c.clearDamage() : undefined;
      return broken(
        damage?.reason ?? 'truncated',
        damage?.detail ?? `record cut short: ${lengthName(this.format)} ${this.contentLength}, ${this.contentLength - this.left} bytes present`,
      );
    }
    let length: number;
    if (c.gzip) {
      // Take the record's trailing newlines out of its member before asking where it ends
      // (none where the member has ended: the next member's bytes are its own).
      if (!c.memberConsumed) {
        const have = await c.ensure(4);
        const tail = c.peek(have);
        let i = 0;
        while (i < tail.length && (tail[i] === 13 || tail[i] === 10)) i++;
        c.advance(i);
      }
      const end = await c.endHere();
      if (end < 0) {
        // The member the record was read from fails its check: its bytes are not the record's.
        const d = c.clearDamage()!;
        return broken(d.reason, d.detail);
      }
      length = end - this.offset;
    } else {
      if (this.type === 'filedesc' && this.lastLineOpen) {
        // A filedesc whose declared length stops before its last line's newline (pywb's
        // hand-made ARCs): that newline is part of the record, as cdxj-indexer counts it.
        if ((await c.ensure(2)) === 2 && c.peek(1)[0] === 10) c.advance(1);
      }
      // What follows, if it starts no record, is reported by the records loop, not blamed on this record's length.
      length = (await c.endHere()) - this.offset;
    }
    this.ended = { length };
    return this.ended;
  }
}

/** What a record's declared length is called in messages: ARC's header line has no Content-Length. */
function lengthName(format: ArchiveFormat): string {
  return format === 'arc' ? 'ARC length' : 'Content-Length';
}

/** What stands between two records: `\r\n\r\n` in WARC, a newline in ARC. */
function separatorOf(format: ArchiveFormat): string {
  return format === 'warc' ? '\r\n\r\n' : '\n';
}

/** How many CR/LF bytes (at most `max`) end `view` before `end`. */
function trailingNewlines(view: Buffer, end: number, max: number): number {
  let n = 0;
  while (n < max && end - n > 0 && (view[end - n - 1] === 10 || view[end - n - 1] === 13)) n++;
  return n;
}

/**
 * Whether `view` at `end` holds exactly the separator `sep` (any run of CR/LF when empty),
 * then a record start or the end of the file.
 */
function followedByRecord(view: Buffer, end: number, sep: string, atEof: boolean, format: ArchiveFormat): boolean {
  let i = end;
  if (sep) {
    // Exactly the separator, and the next record right after it.
    if (view.toString('latin1', i, i + sep.length) !== sep) return atEof && i === view.length;
    i += sep.length;
  } else {
    while (i < view.length && (view[i] === 13 || view[i] === 10)) i++;
  }
  if (i >= view.length) return atEof;
  return recordAt(view, i, format);
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
