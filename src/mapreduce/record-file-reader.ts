/**
 * Reading sorted record files (record-file.ts describes them and writes them): records in
 * order, a key's records by binary search in the block index, and parts without a sidecar
 * (plain text scanned for its blocks, a gzip stream read whole).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, fstatSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { compareBytes } from './byte-order.js';
import { NwaxError, visible } from '../util/errors.js';
import type { BlockCache } from './block-cache.js';
import { GunzipPrefix, retirePrefixes } from '../util/gunzip-prefix.js';
import { jsonStringFromBytes, jsonStringHeadCut, jsonStringPiece } from '../util/json-bytes.js';

interface BlockEntry {
  firstKey: string;
  offset: number;
  length: number;
}

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

/**
 * A key's line as far as it is inflated, kept for a lookup that wants more of it next (a snippet
 * not in a page's first 8 kB): the inflate goes on where it stopped, and the text decoded so far
 * is kept, while nothing else inflated meanwhile (`prefix.live`).
 */
interface LineHead {
  key: string;
  block: number;
  prefix: GunzipPrefix;
  /** `\nKEY\t`, or `KEY\t` where the key starts the block. */
  needle: Buffer;
  starts: boolean;
  /** Where the needle is (-1: not yet found) and how far it was looked for. */
  at: number;
  searchedKey: number;
  /** Where the line ends (-1: not yet found) and how far that was looked for. */
  nl: number;
  searchedEnd: number;
  /** The value's text decoded so far, and the first byte not decoded. */
  text?: string;
  decodedTo: number;
}

/** What a lookup's caller keeps of a line's text decoded so far (LineHead's, or a new one for a block kept whole). */
type DecodedHead = Pick<LineHead, 'text' | 'decodedTo'>;

export interface Record {
  key: string;
  /** The value, parsed from its JSON. */
  value: unknown;
}

/**
 * Where lookups read a block's member: one buffer for every reader, as the inflate engine is
 * one (a member's bytes are needed only while its line's head is live, and a new head is a
 * new inflate). A block a lookup (a snippet's hit) was garbage the moment it was read.
 */
let members = Buffer.allocUnsafeSlow(64 << 10);

function memberBuffer(length: number): Buffer {
  // Kept up to 16 MB, as the inflate's buffer (a larger block is read into one of its own).
  if (length > 16 << 20) return Buffer.allocUnsafeSlow(length);
  if (members.length < length) members = Buffer.allocUnsafeSlow(Math.max(length, members.length * 2));
  return members.subarray(0, length);
}

/** Readers made so far (each its own name in a block cache). */
let readers = 0;

/** Reads one part: everything in order, by key, or a key range. */
export class RecordFileReader {
  private readonly blocks: BlockEntry[];
  /** How the blocks are stored: gzip members (the record file), plain text, or one gzip stream read whole. */
  private readonly kind: 'members' | 'text' | 'stream';
  private whole: string[] | undefined;
  /** The block the last lookup by key looked in, and for which key (another key there: lookups in key order). */
  private lastLookup = { block: -1, key: '' };
  /** The line the last lookup inflated (stringHead goes on with it). */
  private head: LineHead | undefined;
  /** The block valueJson inflated last, and where the line after its last key starts (lookups in key order look there first). */
  private rawBlock: { block: number; bytes: Buffer; next: number } | undefined;
  /** This reader's blocks in a shared cache: a part written again at the same path is another reader. */
  private readonly serial = ++readers;

  /** `cache`: inflated blocks shared with other readers (lookups by key that come back to a block). */
  constructor(
    readonly path: string,
    private readonly cache?: BlockCache,
  ) {
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
    if (this.cache === undefined) return this.inflateBlock(fd, b);
    const key = `${this.serial}:${b.offset}`;
    let lines = this.cache.get(key);
    if (lines === undefined) this.cache.set(key, (lines = this.inflateBlock(fd, b)));
    return lines;
  }

  /** A block's bytes as stored, inflated (gzip members). */
  private blockBytes(fd: number, b: BlockEntry): Buffer {
    const buf = Buffer.allocUnsafe(b.length);
    const n = readSync(fd, buf, 0, b.length, b.offset);
    if (n !== b.length) throw new NwaxError('NWAX_FORMAT', `${this.path}: offset ${b.offset}: block cut short (${n} of ${b.length} bytes)`);
    if (this.kind === 'text') return buf;
    try {
      return gunzipSync(buf);
    } catch (err) {
      throw new NwaxError('NWAX_FORMAT', `${this.path}: offset ${b.offset}: corrupt block (${(err as Error).message})`);
    }
  }

  private inflateBlock(fd: number, b: BlockEntry): string[] {
    const text = this.blockBytes(fd, b).toString('utf8');
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

  /**
   * The value of a key stored once (a document's text in parse_text), its block inflated only
   * as far as the key's line: a lookup among many, as the searcher's; undefined where the key is
   * not there. (A key stored many times may start in an earlier block: get() gives all.)
   */
  valueOf(key: string): unknown {
    const r = this.lookUp(key, Infinity);
    return r === undefined || 'value' in r ? r?.value : this.decode(key, r.bytes, r.start, r.end);
  }

  /**
   * The value of a key stored once as the JSON it is stored in, its bytes (an export copies a
   * page's text into pages.jsonl so, with no decoding and encoding of it again); the block is
   * inflated whole once for lookups in key order. Undefined where the key is not there.
   */
  valueJson(key: string): Buffer | undefined {
    if (this.kind === 'stream') {
      const v = this.valueOf(key);
      return v === undefined ? undefined : Buffer.from(JSON.stringify(v));
    }
    const i = this.blockFor(key);
    if (i < 0) return undefined;
    if (this.rawBlock?.block !== i) {
      const fd = openSync(this.path, 'r');
      try {
        this.rawBlock = { block: i, bytes: this.blockBytes(fd, this.blocks[i]), next: 0 };
      } finally {
        closeSync(fd);
      }
    }
    const raw = this.rawBlock;
    const { bytes } = raw;
    const needle = Buffer.from(`${key}\t`, 'utf8');
    const startsAt = (at: number) => at + needle.length <= bytes.length && bytes.compare(needle, 0, needle.length, at, at + needle.length) === 0;
    let at = raw.next < bytes.length && startsAt(raw.next) ? raw.next : startsAt(0) ? 0 : -1;
    if (at < 0) {
      const nl = bytes.indexOf(Buffer.concat([Buffer.of(0x0a), needle]));
      if (nl < 0) return undefined;
      at = nl + 1;
    }
    const start = at + needle.length;
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    raw.next = end + 1;
    return bytes.subarray(start, end);
  }

  /** A value from its bytes: a text (a JSON string) made straight from them by the addon; anything else, or without the addon, decoded and parsed. */
  private decode(key: string, bytes: Buffer, start: number, end: number): unknown {
    if (bytes[start] === 0x22) {
      const s = jsonStringFromBytes(bytes, start, end);
      if (s !== undefined) return s;
    }
    return RecordFileReader.parse(`${key}\t${bytes.toString('utf8', start, end)}`, this.path).value;
  }

  /**
   * The head of a string value of a key stored once: at least `chars` characters of it, fewer
   * only where it is shorter (`whole`), its block inflated only that far; undefined where the
   * key is not there or its value is not a string.
   */
  stringHead(key: string, chars: number): { text: string; whole: boolean } | undefined {
    // Most text is a byte of JSON a character: that much first, more (up to the 6 bytes of a
    // \uXXXX escape a character) where the head decodes shorter.
    for (let want = chars + 64; ; want = Math.min(6 * chars + 1, 2 * want)) {
      const r = this.lookUp(key, want);
      if (r === undefined || 'value' in r) return typeof r?.value === 'string' ? { text: r.value, whole: true } : undefined;
      if (r.bytes[r.start] !== 0x22) return undefined;
      const h = r.head;
      // What a shorter head of this text decoded is kept; the rest is decoded after it.
      const more = h.text !== undefined && h.decodedTo > r.start ? h.decodedTo : -1;
      if (r.whole && more < 0) {
        const text = this.decode(key, r.bytes, r.start, r.end);
        return typeof text === 'string' ? { text, whole: true } : undefined;
      }
      // (Decoded to its closing quote already: nothing more to decode.)
      if (r.whole && more >= r.end) return { text: h.text!, whole: true };
      const piece = more < 0 ? jsonStringHeadCut(r.bytes, r.start, r.end) : jsonStringPiece(r.bytes, more, r.end, r.whole);
      if (piece === undefined) throw new NwaxError('NWAX_FORMAT', `${this.path}: the value of ${visible(JSON.stringify(key))} is not a JSON string`);
      const text = more < 0 ? piece.text : h.text + piece.text;
      h.text = text;
      h.decodedTo = piece.cut;
      if (r.whole) return { text, whole: true };
      if (text.length >= chars || want >= 6 * chars + 1) return { text, whole: false };
    }
  }

  /**
   * A key's line from the head of its block: its value's bytes `[start, end)` in `bytes`, up to
   * the line's end or, past `want` bytes of it, cut there (`whole` false); `value` where the
   * block was read whole (a cached one, or lookups coming back to it); undefined: no such key.
   * `bytes` are valid until the next lookup; a lookup of the same key next goes on inflating
   * where this one stopped (`head`).
   */
  private lookUp(key: string, want: number): { bytes: Buffer; start: number; end: number; whole: boolean; head: DecodedHead } | { value: unknown } | undefined {
    const i = this.blockFor(key);
    if (i < 0) return undefined;
    const b = this.blocks[i];
    const cacheKey = `${this.serial}:${b.offset}`;
    const kept = this.kind === 'members' ? this.cache?.getBytes(cacheKey) : undefined;
    if (kept) return RecordFileReader.lineIn(kept, key, want);
    // Lookups that come back to a block (an export in key order) read it whole, once, through the cache.
    const again = this.lastLookup.block === i && this.lastLookup.key !== key;
    this.lastLookup = { block: i, key };
    if (this.kind !== 'members' || (this.cache && (again || this.cache.get(cacheKey)))) {
      const values = this.get(key);
      return values.length ? { value: values[0] } : undefined;
    }
    let h = this.head;
    if (h === undefined || h.key !== key || h.block !== i || !h.prefix.live) {
      // A block asked for again (block-cache.ts): inflated whole, once, and its lines read from it while it is kept.
      if (this.cache?.secondTouch(cacheKey)) {
        const fd = openSync(this.path, 'r');
        let bytes: Buffer;
        try {
          bytes = this.blockBytes(fd, b);
        } finally {
          closeSync(fd);
        }
        this.cache.set(cacheKey, bytes);
        return RecordFileReader.lineIn(bytes, key, want);
      }
      // The shared buffer is overwritten: no line head (this reader's or another's) goes on with
      // it, even where the read fails.
      retirePrefixes();
      const member = memberBuffer(b.length);
      const fd = openSync(this.path, 'r');
      try {
        const n = readSync(fd, member, 0, b.length, b.offset);
        if (n !== b.length) throw new NwaxError('NWAX_FORMAT', `${this.path}: offset ${b.offset}: block cut short (${n} of ${b.length} bytes)`);
      } finally {
        closeSync(fd);
      }
      const starts = b.firstKey === key;
      const needle = Buffer.from(starts ? `${key}\t` : `\n${key}\t`, 'utf8');
      h = { key, block: i, prefix: new GunzipPrefix(member), needle, starts, at: -1, searchedKey: 0, nl: -1, searchedEnd: 0, decodedTo: -1 };
      this.head = h;
    }
    const line = h;
    const find = (out: Buffer, from: number) =>
      line.starts ? (out.length >= line.needle.length && out.subarray(0, line.needle.length).equals(line.needle) ? 0 : -1) : out.indexOf(line.needle, from);
    // Enough: the line's end inflated, or `want` bytes of it (each byte looked at once, however many calls).
    const enough = (out: Buffer, length: number): boolean => {
      const seen = out.subarray(0, length);
      if (line.at < 0) {
        line.at = find(seen, Math.max(0, line.searchedKey - line.needle.length));
        line.searchedKey = length;
        if (line.at < 0) return false;
        line.searchedEnd = line.at + line.needle.length;
      }
      if (line.nl < 0) {
        line.nl = seen.indexOf(0x0a, line.searchedEnd);
        line.searchedEnd = length;
      }
      return line.nl >= 0 || length - line.at - line.needle.length > want;
    };
    let bytes: Buffer;
    try {
      bytes = enough(h.prefix.bytes, h.prefix.bytes.length) ? h.prefix.bytes : h.prefix.until(enough);
    } catch (err) {
      this.head = undefined;
      throw new NwaxError('NWAX_FORMAT', `${this.path}: offset ${b.offset}: corrupt block (${(err as Error).message})`);
    }
    // Where the member ended in the step that inflated the rest, until() did not show enough()
    // that step's bytes: looked at here, so that the head kept for the next lookup knows where
    // its line starts and ends (a line found only here once kept a line end searched from 0).
    if (h.prefix.ended) enough(bytes, bytes.length);
    if (h.at < 0) return undefined;
    const start = h.at + h.needle.length;
    const nl = h.nl;
    // The line ends in what was inflated, or the block ended (a last line without its newline).
    if (nl >= 0 || bytes.length - start <= want) return { bytes, start, end: nl >= 0 ? nl : bytes.length, whole: true, head: h };
    return { bytes, start, end: bytes.length, whole: false, head: h };
  }

  /**
   * A key's line in a block inflated whole: its value's bytes, cut after `want` of them as a
   * lookup's head is (`whole` false), or undefined where the key is not there.
   */
  private static lineIn(
    bytes: Buffer,
    key: string,
    want: number,
  ): { bytes: Buffer; start: number; end: number; whole: boolean; head: DecodedHead } | undefined {
    const needle = Buffer.from(`\n${key}\t`, 'utf8');
    let start: number;
    if (bytes.length >= needle.length - 1 && bytes.compare(needle, 1, needle.length, 0, needle.length - 1) === 0) start = needle.length - 1;
    else {
      const at = bytes.indexOf(needle);
      if (at < 0) return undefined;
      start = at + needle.length;
    }
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    if (end - start <= want) return { bytes, start, end, whole: true, head: { decodedTo: -1 } };
    return { bytes, start, end: start + want, whole: false, head: { decodedTo: -1 } };
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
