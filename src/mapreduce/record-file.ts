/**
 * Sorted record files: the parts of every nwax dataset (docs/design.md, "Data on disk"), written here
 * and read by record-file-reader.ts. Lines
 * `key TAB value-json`, sorted by key in byte order, cut into blocks that are each one gzip
 * member, with a hidden sidecar index `.<part>.idx` of `firstKey TAB offset TAB length` per
 * block. The part (`part-00000.gz`) streams like text (`zcat`), greps like text, feeds Hadoop
 * Streaming as is (its TextInputFormat inflates a `.gz` file, concatenated members included,
 * and leaves hidden files out of a job's input), and gives random access by key: binary
 * search in the sidecar, one block read. Like a Hadoop MapFile, and like the ZipNum clusters
 * of large Wayback installations.
 *
 * Parts without a sidecar are read too: plain text (what Hadoop Streaming's TextOutputFormat
 * writes) gets its block index by one scan; a gzip stream without one (a streaming job with
 * output compression) is read whole. Sidecars of older nwax (`<part>.idx`, beside parts
 * without `.gz`) are found as well.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { compareBytes } from './byte-order.js';
import { NwaxError } from '../util/errors.js';
import { nativeSort } from '../native/sort.js';
import { gzipBlock } from './block-gzip.js';
import { indexPath } from './record-file-reader.js';

export interface RecordFileOptions {
  /** Uncompressed bytes per block (one gzip member each); default 64 KiB. */
  blockSize?: number;
  /** gzip level, default 3. */
  level?: number;
}

/** A gzip member of no bytes (20 bytes): what an empty part holds. */
const EMPTY_MEMBER = gzipSync(Buffer.alloc(0));

function checkKey(key: string, where: string): void {
  if (key.includes('\t') || key.includes('\n')) {
    throw new NwaxError('NWAX_KEY', `${where}: key ${JSON.stringify(key.slice(0, 80))} holds a tab or newline, which keys may not`);
  }
}

/** Buffer's UTF-8 encoder without `write()`'s argument handling; the caller has made room. */
const utf8Write = (buf: Buffer, text: string, at: number): number => (buf as unknown as { utf8Write(s: string, at: number): number }).utf8Write(text, at);

/**
 * UTF-16 code units of the UTF-8 bytes `buf[s, e)`: one per byte that starts a character, and
 * one more for a four-byte one (a surrogate pair). Blocks are cut by this count, the length of
 * the lines as strings, so that lines appended as bytes cut where the same lines as strings do.
 */
function utf16LengthJs(buf: Uint8Array, s: number, e: number): number {
  let n = 0;
  for (let i = s; i < e; i++) {
    const c = buf[i];
    if ((c & 0xc0) !== 0x80) n += c >= 0xf0 ? 2 : 1;
  }
  return n;
}

/** utf16LengthJs, in the addon where it is built (a call costs more than a short key's loop). */
const utf16Length = (buf: Uint8Array, s: number, e: number): number =>
  nativeSort && e - s > 256 ? nativeSort.utf16Length(buf, s, e) : utf16LengthJs(buf, s, e);

/**
 * Writes one part: append records in key order, then close. A block is cut when its lines'
 * length as strings reaches the block size; its bytes are gathered in one Buffer and gzipped
 * from there (lines appended as strings are encoded into it, lines given as bytes copied).
 */
export class RecordFileWriter {
  private readonly fd: number;
  readonly blockSize: number;
  private readonly level: number;
  private block: Buffer;
  /** Bytes of `block` in use, and the block's length in UTF-16 units (what cuts it). */
  private used = 0;
  private units = 0;
  private lines = 0;
  /** The block's first key, as bytes (see `index`). */
  private firstKey: Buffer = Buffer.alloc(0);
  private lastKey: string | undefined;
  private offset = 0;
  /**
   * Index lines as bytes: a string made from a key would keep alive the whole batch of text
   * the key was sliced from (V8's sliced strings), a megabyte per block.
   */
  private readonly index: Buffer[] = [];
  private closed = false;
  count = 0;

  constructor(
    readonly path: string,
    opts: RecordFileOptions = {},
  ) {
    this.fd = openSync(path, 'w');
    this.blockSize = opts.blockSize ?? 64 * 1024;
    this.level = opts.level ?? 3;
    this.block = Buffer.allocUnsafeSlow(Math.max(4096, this.blockSize * 2));
  }

  /** Appends a record; keys must come in byte order (equal keys allowed). */
  append(key: string, value: unknown): void {
    checkKey(key, this.path);
    if (this.lastKey !== undefined && compareBytes(key, this.lastKey) < 0) {
      throw new NwaxError(
        'NWAX_ORDER',
        `${this.path}: key ${JSON.stringify(key.slice(0, 80))} after ${JSON.stringify(this.lastKey.slice(0, 80))}: records must be appended in key order`,
      );
    }
    this.appendLine(key, JSON.stringify(value) ?? 'null');
  }

  /** Appends a line whose value is JSON text already (as a reducer's output carries it). */
  appendLine(key: string, valueJson: string): void {
    this.room((key.length + valueJson.length) * 3 + 2);
    const at = this.used;
    const k = utf8Write(this.block, key, at);
    if (this.lines === 0) this.firstKey = Buffer.from(this.block.subarray(at, at + k));
    this.block[at + k] = 0x09;
    const v = utf8Write(this.block, valueJson, at + k + 1);
    this.block[at + k + 1 + v] = 0x0a;
    this.used = at + k + v + 2;
    this.lastKey = key;
    this.added(key.length + valueJson.length + 2);
  }

  /**
   * Appends a record whose key is the bytes `key[s, e)` (UTF-8, in order, no tab or newline:
   * a line of a sorted run) and whose value is JSON text: the bytes `appendLine` writes for
   * the key decoded. `ascii`: the caller knows the key to be ASCII (its length is its bytes).
   */
  appendBytes(key: Buffer, s: number, e: number, valueJson: string, ascii = false): void {
    const n = e - s;
    this.room(n + valueJson.length * 3 + 2);
    const at = this.used;
    key.copy(this.block, at, s, e);
    if (this.lines === 0) this.firstKey = Buffer.from(this.block.subarray(at, at + n));
    this.block[at + n] = 0x09;
    const v = utf8Write(this.block, valueJson, at + n + 1);
    this.block[at + n + 1 + v] = 0x0a;
    this.used = at + n + v + 2;
    this.added((ascii ? n : utf16Length(key, s, e)) + valueJson.length + 2);
  }

  /**
   * Appends `key TAB value` given as bytes: the key's UTF-8 and the value's JSON text as UTF-8
   * (a reduce that passes values on as they came from the shuffle, never decoding them). The
   * caller appends in key order, as for appendLine.
   */
  appendRaw(key: Uint8Array, value: Uint8Array | readonly Uint8Array[]): void {
    // A value in pieces is copied piece by piece: a reduce that builds a value around bytes it
    // passes on (import's crawl_parse) allocates nothing for it.
    const parts = value instanceof Uint8Array ? [value] : value;
    let length = 0;
    for (const p of parts) length += p.length;
    const n = key.length;
    this.room(n + length + 2);
    const at = this.used;
    this.block.set(key, at);
    if (this.lines === 0) this.firstKey = Buffer.from(key);
    this.block[at + n] = 0x09;
    let to = at + n + 1;
    for (const p of parts) {
      this.block.set(p, to);
      to += p.length;
    }
    this.block[to] = 0x0a;
    this.used = to + 1;
    // Counted once over the line as copied: a value in many small pieces (an inlink list of
    // thousands) would be as many calls, each over a few bytes in JavaScript.
    this.added(utf16Length(this.block, at, to + 1));
  }

  /**
   * For an appender that writes whole lines into the block in place (the native sum): the
   * block, with its bytes used, length in UTF-16 units and lines put in `st[at, at + 3)`.
   */
  blockFor(st: Int32Array, at: number): Buffer {
    st[at] = this.used;
    st[at + 1] = this.units;
    st[at + 2] = this.lines;
    return this.block;
  }

  /** Takes the block's state back from `st[at, at + 3)` after lines were written in place; flushes a full block. */
  blockWritten(st: Int32Array, at: number): void {
    const added = st[at + 2] - this.lines;
    if (added <= 0) return;
    if (this.lines === 0) this.firstKey = Buffer.from(this.block.subarray(0, this.block.indexOf(0x09)));
    this.used = st[at];
    this.units = st[at + 1];
    this.lines = st[at + 2];
    this.count += added;
    if (this.units >= this.blockSize) this.flushBlock();
  }

  /** Makes room for `need` more bytes in the block (a record larger than a block grows it). */
  private room(need: number): void {
    if (this.used + need <= this.block.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.block.length * 2, this.used + need));
    this.block.copy(bigger, 0, 0, this.used);
    this.block = bigger;
  }

  private added(units: number): void {
    this.units += units;
    this.lines++;
    this.count++;
    if (this.units >= this.blockSize) this.flushBlock();
  }

  private flushBlock(): void {
    if (this.lines === 0) return;
    const member = gzipBlock(this.block.subarray(0, this.used), this.level);
    writeSync(this.fd, member);
    this.index.push(Buffer.concat([this.firstKey, Buffer.from(`\t${this.offset}\t${member.length}\n`)]));
    this.offset += member.length;
    this.used = 0;
    this.units = 0;
    this.lines = 0;
  }

  close(): void {
    if (this.closed) return;
    this.flushBlock();
    // A part without a record is an empty gzip member, not an empty file: Hadoop's GzipCodec
    // refuses a zero-byte .gz ("Unexpected end of input stream") and fails every map of the next
    // job reading it (a LinkDb partition of a collection without links). No block: the index stays empty.
    if (this.offset === 0) writeSync(this.fd, EMPTY_MEMBER);
    closeSync(this.fd);
    const fd = openSync(indexPath(this.path), 'w');
    writeSync(fd, Buffer.concat(this.index));
    closeSync(fd);
    this.closed = true;
  }
}

export { RecordFileReader, indexPath, type Record } from './record-file-reader.js';
