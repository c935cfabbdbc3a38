/**
 * One record as the reader hands it out (reader.ts finds and parses its header): its payload
 * streamed from the reader's cursor, HTTP chunked transfer undone on request, and its end
 * checked: a gzip member that ends before the declared length, bytes after it inside the
 * member, or (plain files) a declared length that runs into the next record or stops short of
 * it are reported through the reader, and the record is read as the reference indexers read it.
 */
import type { SliceCursor } from './cursor.js';
import type { HeaderList, HttpHead } from './headers.js';
import { findRecordStart, recordAt } from './record-start.js';
import type { ArchiveFormat, ArchiveRecord, RecordEnd } from './record.js';
import { dechunk } from './dechunk.js';

/** What a record needs of the reader that made it. */
export interface RecordReader {
  readonly _cursor: SliceCursor;
  readonly _format: ArchiveFormat | undefined;
  _report(offset: number, reason: string, detail: string, skipped: boolean): void;
  _rewindTo(pos: number): boolean;
  /**
   * gzip: whether this archive's last whole record left its separator inside its member after
   * its declared length (IA's ARCs, every WARC) or ended its member with it (some Heritrix
   * ARCs); undefined before the first. Tells a member's closing newline from a payload's.
   */
  _separatorInMember: boolean | undefined;
}

/** A record that cannot be read: why (a skip reason) and what was found. */
export class RecordProblem extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RecordFields {
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
  /**
   * gzip: the length is what the record's member holds (its own length field could not be
   * read), so the member's closing separator is counted in it and is no part of the payload.
   */
  lengthFromMember?: boolean;
}

/** Plain files: how near its declared end a record's end is checked against what follows. */
const END_LOOKAHEAD = 64 * 1024;
/** Plain files: how far from the declared end a length that lies by a few bytes is looked for. */
const END_SLACK = 16;

export class LiveRecord implements ArchiveRecord {
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
  private lengthFromMember = false;
  /** gzip: the member's tail was checked for a length that runs into the separator. */
  private tailChecked = false;
  /** The record's end is not where its length said (a warning): it teaches nothing of the archive's habits. */
  private repaired = false;
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
    private readonly reader: RecordReader,
    f: RecordFields,
  ) {
    Object.assign(this, f);
    this.left = f.contentLength - (f.http?.length ?? 0);
    this.repaired = this.lengthFromMember;
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
      const sep = separatorOf(this.format).length;
      if (this.lengthFromMember && this.left <= sep) {
        // The member's last bytes: its closing newlines are the separator, not the payload's.
        const have = await c.ensure(this.left);
        this.left -= trailingNewlines(c.peek(have), have, sep);
        this.lengthFromMember = false;
        if (this.left === 0) return Buffer.alloc(0);
      }
      if (this.startedAtMember && !this.tailChecked && this.left <= END_LOOKAHEAD) await this.checkSeparatorOverrun();
      const slice = await c.takeSlice(this.lengthFromMember ? this.left - sep : this.left);
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
    const sep = separatorOf(this.format);
    // The member ends with its separator whole, and bytes stand before it: the declared length
    // stops short of the record's true end, which its member shows. Read to there.
    if (rest <= END_LOOKAHEAD && rest > sep.length && view.toString('latin1', rest - sep.length, rest) === sep && !recordAt(view, i, this.format)) {
      const short = rest - sep.length;
      this.reader._report(
        this.offset,
        'content-length-mismatch',
        `${lengthName(this.format)} ${this.contentLength} is ${short} byte${short > 1 ? 's' : ''} short: its gzip member holds ${short} more before the record's closing ${sep === '\n' ? 'newline' : 'CRLF CRLF'}; read to there`,
        false,
      );
      this.left = short;
      this.repaired = true;
      return;
    }
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
   * gzip, before the last bytes of the record go out: where its member holds fewer bytes after
   * the declared end than the separator has, and the member ends with the separator whole, the
   * length ran into the separator by the difference (a Content-Length 2 too long takes `\r\n`
   * of the closing CRLF CRLF): the record ends before its separator, with a warning.
   */
  private async checkSeparatorOverrun(): Promise<void> {
    this.tailChecked = true;
    const c = this.reader._cursor;
    const sep = separatorOf(this.format);
    const total = await c.bytesLeftInMember(this.left + sep.length + 1);
    const rest = total - this.left;
    if (rest <= 0 || rest >= sep.length || (await c.ensure(total)) < total) return;
    if (c.peek(total).toString('latin1', total - sep.length, total) !== sep) return;
    const over = Math.min(sep.length - rest, this.left);
    this.reader._report(
      this.offset,
      'content-length-mismatch',
      `${lengthName(this.format)} ${this.contentLength} is ${over} byte${over > 1 ? 's' : ''} too long: it runs into the record's closing CRLF CRLF, which ends its gzip member; read to there`,
      false,
    );
    this.left -= over;
    this.repaired = true;
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
    this.repaired = true;
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
        if (this.startedAtMember && !this.repaired) this.reader._separatorInMember = i > 0;
      } else if (this.startedAtMember && !this.repaired) this.reader._separatorInMember = false;
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

export function describeBytes(b: Buffer): string {
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
