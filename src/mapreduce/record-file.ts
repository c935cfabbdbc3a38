/**
 * Sorted record files: the parts of every nwax dataset (DESIGN, "Data on disk"). Lines
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
import { closeSync, existsSync, openSync, readFileSync, readSync, writeSync, fstatSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { compareBytes } from './byte-order.js';
import { NwaxError, visible } from '../util/errors.js';
import { nativeSort } from './native.js';
import { gzipBlock } from './block-gzip.js';

export interface RecordFileOptions {
  /** Uncompressed bytes per block (one gzip member each); default 64 KiB. */
  blockSize?: number;
  /** gzip level, default 3. */
  level?: number;
}

interface BlockEntry {
  firstKey: string;
  offset: number;
  length: number;
}

/** A gzip member of no bytes (20 bytes): what an empty part holds. */
const EMPTY_MEMBER = gzipSync(Buffer.alloc(0));

/** The block index of a part: hidden, so that Hadoop's FileInputFormat leaves it out of a job's input. */
export function indexPath(part: string): string {
  return join(dirname(part), `.${basename(part)}.idx`);
}

/** Where nwax before 0.2 put the block index (beside the part, not hidden). */
function legacyIndexPath(part: string): string {
  return `${part}.idx`;
}

/** Text blocks cut when a part without a block index is scanned. */
const SCAN_BLOCK = 64 * 1024;

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

export interface Record {
  key: string;
  /** The value, parsed from its JSON. */
  value: unknown;
}

/** Reads one part: everything in order, by key, or a key range. */
export class RecordFileReader {
  private readonly blocks: BlockEntry[];
  /** How the blocks are stored: gzip members (the record file), plain text, or one gzip stream read whole. */
  private readonly kind: 'members' | 'text' | 'stream';
  private whole: string[] | undefined;

  constructor(readonly path: string) {
    const idx = [indexPath(path), legacyIndexPath(path)].find((p) => existsSync(p));
    if (idx === undefined) {
      const scanned = RecordFileReader.scan(path);
      this.kind = scanned.gzip ? 'stream' : 'text';
      this.blocks = scanned.blocks;
      return;
    }
    this.kind = 'members';
    const text = readFileSync(idx, 'utf8');
    this.blocks = text
      .split('\n')
      .filter(Boolean)
      .map((l, i) => {
        const [firstKey, offset, length] = l.split('\t');
        if (length === undefined || !/^\d+$/.test(offset) || !/^\d+$/.test(length)) {
          throw new NwaxError('NWAX_FORMAT', `${idx}: line ${i + 1}: not "key TAB offset TAB length"`);
        }
        return { firstKey, offset: Number(offset), length: Number(length) };
      });
  }

  /**
   * A part with no block index: plain text is cut into blocks at line ends (one read of the
   * file); a gzip stream is one block, inflated whole when read.
   */
  private static scan(path: string): { gzip: boolean; blocks: BlockEntry[] } {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      throw new NwaxError('NWAX_INPUT', `${path}: no such part`);
    }
    try {
      const size = fstatSync(fd).size;
      const head = Buffer.alloc(2);
      readSync(fd, head, 0, 2, 0);
      if (size >= 2 && head[0] === 0x1f && head[1] === 0x8b) return { gzip: true, blocks: size ? [{ firstKey: '', offset: 0, length: size }] : [] };
      const blocks: BlockEntry[] = [];
      const buf = Buffer.allocUnsafe(1 << 20);
      let start = 0; // where the current block starts
      let pos = 0;
      let atLineStart = true;
      let key: number[] | undefined = [];
      let keyDone = false;
      while (pos < size) {
        const n = readSync(fd, buf, 0, buf.length, pos);
        if (n <= 0) break;
        for (let i = 0; i < n; i++) {
          const c = buf[i];
          if (atLineStart && pos + i - start >= SCAN_BLOCK) {
            blocks.push({ firstKey: Buffer.from(key!).toString('utf8'), offset: start, length: pos + i - start });
            start = pos + i;
            key = [];
            keyDone = false;
          }
          atLineStart = c === 0x0a;
          if (!keyDone) {
            if (c === 0x09 || c === 0x0a) keyDone = true;
            else key!.push(c);
          }
        }
        pos += n;
      }
      if (size > start) blocks.push({ firstKey: Buffer.from(key!).toString('utf8'), offset: start, length: size - start });
      return { gzip: false, blocks };
    } finally {
      closeSync(fd);
    }
  }

  get blockCount(): number {
    return this.blocks.length;
  }

  private readBlock(fd: number, b: BlockEntry): string[] {
    if (this.kind === 'stream') return (this.whole ??= this.inflateWhole(fd));
    const buf = Buffer.allocUnsafe(b.length);
    const n = readSync(fd, buf, 0, b.length, b.offset);
    if (n !== b.length) throw new NwaxError('NWAX_FORMAT', `${this.path}: offset ${b.offset}: block cut short (${n} of ${b.length} bytes)`);
    let text: string;
    if (this.kind === 'text') text = buf.toString('utf8');
    else {
      try {
        text = gunzipSync(buf).toString('utf8');
      } catch (err) {
        throw new NwaxError('NWAX_FORMAT', `${this.path}: offset ${b.offset}: corrupt block (${(err as Error).message})`);
      }
    }
    const lines = text.split('\n');
    // A last line without its newline (a text part cut by hand) is still a record.
    if (lines[lines.length - 1] === '') lines.pop();
    return lines;
  }

  private inflateWhole(fd: number): string[] {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(size);
    readSync(fd, buf, 0, size, 0);
    let text: string;
    try {
      text = gunzipSync(buf).toString('utf8');
    } catch (err) {
      throw new NwaxError('NWAX_FORMAT', `${this.path}: corrupt gzip stream (${(err as Error).message})`);
    }
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines;
  }

  private static parse(line: string, path: string): Record {
    const tab = line.indexOf('\t');
    try {
      return { key: line.slice(0, tab), value: JSON.parse(line.slice(tab + 1)) };
    } catch {
      throw new NwaxError('NWAX_FORMAT', `${path}: a record whose value is not JSON: ${visible(JSON.stringify(line.slice(0, 80)))}`);
    }
  }

  /** Index of the last block whose first key is <= key (the block that may hold it), or -1. */
  private blockFor(key: string): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (compareBytes(this.blocks[mid].firstKey, key) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** Every record with a key in [from, to) (to undefined: to the end), in order. */
  *range(from: string, to?: string): Generator<Record> {
    if (this.blocks.length === 0) return;
    const fd = openSync(this.path, 'r');
    try {
      // Equal keys may run over from earlier blocks: start at the first block that can hold `from`.
      let i = Math.max(0, this.blockFor(from));
      while (i > 0 && this.blocks[i].firstKey === from) i--;
      for (; i < this.blocks.length; i++) {
        if (to !== undefined && compareBytes(this.blocks[i].firstKey, to) >= 0) return;
        for (const line of this.readBlock(fd, this.blocks[i])) {
          const key = line.slice(0, line.indexOf('\t'));
          if (compareBytes(key, from) < 0) continue;
          if (to !== undefined && compareBytes(key, to) >= 0) return;
          yield RecordFileReader.parse(line, this.path);
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  /** The values stored under `key` (one block read, more only when the key spans blocks). */
  get(key: string): unknown[] {
    const out: unknown[] = [];
    for (const r of this.range(key, `${key}\u0000`)) if (r.key === key) out.push(r.value);
    return out;
  }

  /** Every record whose key starts with `prefix`. */
  *prefix(prefix: string): Generator<Record> {
    for (const r of this.range(prefix)) {
      if (!r.key.startsWith(prefix)) return;
      yield r;
    }
  }

  /** Every record, in order. */
  *entries(): Generator<Record> {
    if (this.blocks.length === 0) return;
    yield* this.range(this.blocks[0].firstKey);
  }

  /** Size of the part in bytes. */
  size(): number {
    const fd = openSync(this.path, 'r');
    try {
      return fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  }
}
