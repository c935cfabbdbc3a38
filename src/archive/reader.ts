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
import { arcLineAt, findRecordStart } from './record-start.js';
import { warcDateTo14 } from './dates.js';
import { normalizeDigest } from './digest.js';
import type { ArchiveFormat, ArchiveRecord } from './record.js';
import { LiveRecord, RecordProblem, describeBytes } from './live-record.js';
import { FormatError } from '../util/errors.js';
import { isUtf8 } from 'node:buffer';

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
    let lengthFromMember = false;
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
      // The member's closing newline is the ARC separator where this archive's members hold one
      // after the record (IA's), the record's own where they end with it (some Heritrix ARCs).
      lengthFromMember = this._separatorInMember !== false;
      this.issue(offset, 'bad-length', `${String(msg)}; used the gzip member's ${left} bytes${lengthFromMember ? ', less its closing newline' : ''}`, false);
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
      lengthFromMember,
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

  /** Used by LiveRecord: what the archive's last whole gzip record showed of where its separator goes. */
  _separatorInMember: boolean | undefined;

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

/** Opens `path` (or `-` for stdin) and iterates its records. */
export async function readArchive(path: string, opts: ReadOptions = {}): Promise<ArchiveReader> {
  return new ArchiveReader(await openByteSource(path, opts.remote), opts);
}
