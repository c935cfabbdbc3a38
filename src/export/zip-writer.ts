/**
 * A ZIP written in one pass to a file descriptor, as an export makes a WACZ: an entry's bytes
 * written through as they are made (the package's WARC, stored, so that readers read its records
 * by offset), entries deflated on libuv's threads as they are streamed in, and entries already
 * deflated elsewhere copied in with their CRC-32 and sizes. Entries streamed in have their sizes
 * and CRC-32 after them (a data descriptor, general purpose bit 3) and in the central directory;
 * ZIP64 records are written where a size, an offset or the entry count needs them.
 * Written with synchronous writes: the export's thread is the only writer, and a write of a
 * record to the page cache costs less than a trip through libuv's threads.
 *
 * yazl wrote the packages before this: it computes CRC-32 in JavaScript (0.46 s of the export's
 * main thread on the bench corpus, where zlib.crc32 takes a tenth of that) and takes no entry
 * deflated beforehand nor one written in place, so the WARC was written aside and copied.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
/** Unix, APPNOTE 6.3 (as yazl and Info-ZIP write it). */
const VERSION_MADE_BY = (3 << 8) | 63;
const VERSION_NEEDED = 20;
const VERSION_ZIP64 = 45;
/** Names in UTF-8 (bit 11); sizes and CRC-32 in a data descriptor after the data (bit 3). */
const FLAG_UTF8 = 0x0800;
const FLAG_DESCRIPTOR = 0x0008;
const STORED = 0;
const DEFLATED = 8;
/** A regular file, rw-rw-r--, in the upper half of the external attributes. */
const FILE_ATTRIBUTES = (0o100664 << 16) >>> 0;
const MAX32 = 0xffffffff;
/**
 * Bytes a Deflated holds for its thread before a write waits: a writer that waited at each
 * megabyte (a stream's mark is 16 kB) stopped its other work meanwhile (an export: 155 stops
 * of a few milliseconds while its records waited to be handed out).
 */
const QUEUED = 8 << 20;

/** What the central directory says of an entry. */
interface Entry {
  name: Buffer;
  method: number;
  descriptor: boolean;
  crc: number;
  size: number;
  compressedSize: number;
  offset: number;
}

/** An entry's data as it is made: its CRC-32 and sizes counted on the way. */
export interface EntrySink {
  write(b: Buffer): void | Promise<void>;
}

/** The DOS date and time of `d` (local time, as zip tools write it), and its Unix seconds for the extended timestamp. */
function timestamps(d: Date): { time: number; date: number; unix: number } {
  const year = Math.max(1980, d.getFullYear());
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
    unix: Math.floor(d.getTime() / 1000) >>> 0,
  };
}

/**
 * Raw deflate of what is written to it, on libuv's threads, its output handed to `out` as it
 * comes; the CRC-32 and size of what went in counted as it went. Level 0 hands it out as it
 * is (an entry stored, not deflated).
 */
export class Deflated {
  crc = 0;
  size = 0;
  compressedSize = 0;
  private readonly deflate;
  private readonly ended: Promise<unknown>;

  constructor(
    readonly level: number,
    private readonly out: (b: Buffer) => void,
  ) {
    this.deflate = level > 0 ? createDeflateRaw({ level, chunkSize: 1 << 16 }) : undefined;
    this.deflate?.on('data', (b: Buffer) => {
      this.compressedSize += b.length;
      out(b);
    });
    this.ended = this.deflate ? once(this.deflate, 'end') : Promise.resolve();
    this.ended.catch(() => {});
  }

  async write(b: Buffer): Promise<void> {
    this.crc = crc32(b, this.crc);
    this.size += b.length;
    if (!this.deflate) {
      this.compressedSize += b.length;
      this.out(b);
    } else if (!this.deflate.write(b) && this.deflate.writableLength > QUEUED) await once(this.deflate, 'drain');
  }

  /** The rest deflated and handed out. */
  async end(): Promise<void> {
    this.deflate?.end();
    await this.ended;
  }

  destroy(): void {
    this.deflate?.destroy();
  }
}

export class ZipWriter {
  private readonly fd: number;
  private at = 0;
  private readonly entries: Entry[] = [];
  private closed = false;
  private readonly when: { time: number; date: number; unix: number };

  /** The package written to `path` (created, or emptied). */
  constructor(
    path: string,
    private readonly opts: { mtime?: Date; forceZip64?: boolean } = {},
  ) {
    this.fd = openSync(path, 'w');
    this.when = timestamps(opts.mtime ?? new Date());
  }

  /** Bytes written so far. */
  get position(): number {
    return this.at;
  }

  private put(b: Buffer): void {
    for (let o = 0; o < b.length; ) o += writeSync(this.fd, b, o);
    this.at += b.length;
  }

  /** The extended timestamp extra field (0x5455: the modification time, Unix seconds). */
  private timestampField(): Buffer {
    const b = Buffer.alloc(9);
    b.writeUInt16LE(0x5455, 0);
    b.writeUInt16LE(5, 2);
    b.writeUInt8(1, 4);
    b.writeUInt32LE(this.when.unix, 5);
    return b;
  }

  private localHeader(e: Entry): void {
    const extra = this.timestampField();
    const h = Buffer.alloc(30);
    h.writeUInt32LE(LOCAL_HEADER, 0);
    h.writeUInt16LE(VERSION_NEEDED, 4);
    h.writeUInt16LE(FLAG_UTF8 | (e.descriptor ? FLAG_DESCRIPTOR : 0), 6);
    h.writeUInt16LE(e.method, 8);
    h.writeUInt16LE(this.when.time, 10);
    h.writeUInt16LE(this.when.date, 12);
    // Known beforehand (an entry copied in) they are here; else 0, and the descriptor has them
    // (also where a size needs 64 bits: readers go by the central directory's ZIP64 field).
    h.writeUInt32LE(e.descriptor ? 0 : e.crc, 14);
    h.writeUInt32LE(e.descriptor ? 0 : e.compressedSize, 18);
    h.writeUInt32LE(e.descriptor ? 0 : e.size, 22);
    h.writeUInt16LE(e.name.length, 26);
    h.writeUInt16LE(extra.length, 28);
    this.put(Buffer.concat([h, e.name, extra]));
  }

  private needsZip64(e: Entry): boolean {
    return this.opts.forceZip64 === true || e.size >= MAX32 || e.compressedSize >= MAX32 || e.offset >= MAX32;
  }

  private descriptor(e: Entry): void {
    const wide = this.needsZip64(e);
    const d = Buffer.alloc(wide ? 24 : 16);
    d.writeUInt32LE(DATA_DESCRIPTOR, 0);
    d.writeUInt32LE(e.crc, 4);
    if (wide) {
      d.writeBigUInt64LE(BigInt(e.compressedSize), 8);
      d.writeBigUInt64LE(BigInt(e.size), 16);
    } else {
      d.writeUInt32LE(e.compressedSize, 8);
      d.writeUInt32LE(e.size, 12);
    }
    this.put(d);
  }

  /** An entry's local header; its sizes and CRC-32 go in a descriptor after its data where they are not `known` (or need 64 bits). */
  private begin(name: string, method: number, known?: { crc: number; size: number; compressedSize: number }): Entry {
    const descriptor = known === undefined || known.size >= MAX32 || known.compressedSize >= MAX32;
    const e: Entry = { name: Buffer.from(name, 'utf8'), method, descriptor, crc: 0, size: 0, compressedSize: 0, offset: this.at, ...known };
    this.localHeader(e);
    this.entries.push(e);
    return e;
  }

  /**
   * A stored entry written as it comes: `fill` writes its bytes through the sink (synchronously,
   * in order), and may take as long as it needs; the entry is closed when it returns.
   */
  async stored<T>(name: string, fill: (sink: { write(b: Buffer): void; readonly size: number }) => Promise<T>): Promise<T> {
    const e = this.begin(name, STORED);
    const sink = {
      write: (b: Buffer) => {
        e.crc = crc32(b, e.crc);
        e.size += b.length;
        this.put(b);
      },
      get size() {
        return e.size;
      },
    };
    const result = await fill(sink);
    e.compressedSize = e.size;
    this.descriptor(e);
    return result;
  }

  /** An entry deflated at `level` (0: stored) as `fill` writes it. */
  async deflated(name: string, level: number, fill: (sink: EntrySink) => Promise<void>): Promise<void> {
    const e = this.begin(name, level > 0 ? DEFLATED : STORED);
    const d = new Deflated(level, (b) => this.put(b));
    try {
      await fill(d);
      await d.end();
    } finally {
      d.destroy();
    }
    Object.assign(e, { crc: d.crc, size: d.size, compressedSize: d.compressedSize });
    this.descriptor(e);
  }

  /** A small entry, deflated here. */
  buffer(name: string, data: Buffer, level = 6): void {
    const deflated = deflateRawSync(data, { level });
    this.begin(name, DEFLATED, { crc: crc32(data), size: data.length, compressedSize: deflated.length });
    this.put(deflated);
  }

  private centralHeader(e: Entry): Buffer {
    const wide = this.needsZip64(e);
    const fields: Buffer[] = [this.timestampField()];
    if (wide) {
      // All three in the ZIP64 field, all three 0xFFFFFFFF below (the field holds those that are).
      const z = Buffer.alloc(28);
      z.writeUInt16LE(0x0001, 0);
      z.writeUInt16LE(24, 2);
      z.writeBigUInt64LE(BigInt(e.size), 4);
      z.writeBigUInt64LE(BigInt(e.compressedSize), 12);
      z.writeBigUInt64LE(BigInt(e.offset), 20);
      fields.unshift(z);
    }
    const extra = Buffer.concat(fields);
    const h = Buffer.alloc(46);
    h.writeUInt32LE(CENTRAL_HEADER, 0);
    h.writeUInt16LE(VERSION_MADE_BY, 4);
    h.writeUInt16LE(wide ? VERSION_ZIP64 : VERSION_NEEDED, 6);
    h.writeUInt16LE(FLAG_UTF8 | (e.descriptor ? FLAG_DESCRIPTOR : 0), 8);
    h.writeUInt16LE(e.method, 10);
    h.writeUInt16LE(this.when.time, 12);
    h.writeUInt16LE(this.when.date, 14);
    h.writeUInt32LE(e.crc, 16);
    h.writeUInt32LE(wide ? MAX32 : e.compressedSize, 20);
    h.writeUInt32LE(wide ? MAX32 : e.size, 24);
    h.writeUInt16LE(e.name.length, 28);
    h.writeUInt16LE(extra.length, 30);
    h.writeUInt16LE(0, 32); // comment
    h.writeUInt16LE(0, 34); // disk
    h.writeUInt16LE(0, 36); // internal attributes
    h.writeUInt32LE(FILE_ATTRIBUTES, 38);
    h.writeUInt32LE(wide ? MAX32 : e.offset, 42);
    return Buffer.concat([h, e.name, extra]);
  }

  /** The central directory and its end (ZIP64's where the count, a size or an offset needs it); the file closed. */
  finish(): void {
    const start = this.at;
    for (const e of this.entries) this.put(this.centralHeader(e));
    const size = this.at - start;
    const count = this.entries.length;
    const wide = this.opts.forceZip64 === true || count >= 0xffff || start >= MAX32 || size >= MAX32;
    if (wide) {
      const at = this.at;
      const r = Buffer.alloc(56);
      r.writeUInt32LE(ZIP64_END, 0);
      r.writeBigUInt64LE(44n, 4); // the record's size past this field
      r.writeUInt16LE(VERSION_MADE_BY, 12);
      r.writeUInt16LE(VERSION_ZIP64, 14);
      r.writeBigUInt64LE(BigInt(count), 24);
      r.writeBigUInt64LE(BigInt(count), 32);
      r.writeBigUInt64LE(BigInt(size), 40);
      r.writeBigUInt64LE(BigInt(start), 48);
      const l = Buffer.alloc(20);
      l.writeUInt32LE(ZIP64_LOCATOR, 0);
      l.writeBigUInt64LE(BigInt(at), 8);
      l.writeUInt32LE(1, 16); // disks
      this.put(Buffer.concat([r, l]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END_OF_CENTRAL, 0);
    end.writeUInt16LE(wide ? 0xffff : count, 8);
    end.writeUInt16LE(wide ? 0xffff : count, 10);
    end.writeUInt32LE(wide ? MAX32 : size, 12);
    end.writeUInt32LE(wide ? MAX32 : start, 16);
    this.put(end);
    this.close();
  }

  /** The file closed (finished or given up). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
