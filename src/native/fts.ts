/**
 * The `fts` kernel's surface (native/fts-segment.c): an FTS5 table's rows tokenized as FTS5's
 * `ascii` tokenizer does and written as FTS5's own segment records, without FTS5's insert path.
 * Undefined where the addon is not built or `NWAX_NATIVE` leaves the kernel to JavaScript;
 * index/fts-load.ts then inserts the rows through FTS5 (the twin, which writes the same records).
 */
import { nativeKernel } from './addon.js';

const kernel = nativeKernel('fts');

type Handle = object;
const ftsNew = kernel?.ftsNew as ((columns: number, pgsz: number) => Handle) | undefined;
const ftsAdd = kernel?.ftsAdd as (
  b: Handle,
  rowid: number,
  texts: readonly (string | Uint8Array)[],
  analyze: ((chunk: string) => string) | undefined,
) => Buffer | null | false;
const ftsPending = kernel?.ftsPending as (b: Handle) => number;
const ftsFlush = kernel?.ftsFlush as (b: Handle, segid: number) => Buffer | null;
const ftsAverages = kernel?.ftsAverages as (b: Handle) => Buffer;
const ftsFree = kernel?.ftsFree as (b: Handle) => void;

/** One segment's records, as ftsFlush lays them out (fts-segment.h). */
export interface SegmentRecords {
  /** Its leaves are pages 1 to lastLeaf. */
  lastLeaf: number;
  /** %_data rows: [id, block]. */
  data: [number, Buffer][];
  /** %_idx rows: [segid, term, pgno]. */
  idx: [number, Buffer, number][];
}

/** A %_data id: segid << 37 | dlidx << 36 | height << 31 | page (FTS5_SEGMENT_ROWID). */
const LEAF_IDS = 2 ** 31;

function readRecords(b: Buffer, segid: number): SegmentRecords {
  const out: SegmentRecords = { lastLeaf: 0, data: [], idx: [] };
  for (let at = 0; at < b.length; ) {
    const kind = b[at];
    if (kind === 0x44) {
      const id = Number(b.readBigInt64LE(at + 1));
      const n = b.readUInt32LE(at + 9);
      out.data.push([id, b.subarray(at + 13, at + 13 + n)]);
      // A leaf (no doclist index, height 0) of this segment.
      if (Math.floor(id / LEAF_IDS) === segid * 64) out.lastLeaf = Math.max(out.lastLeaf, id % LEAF_IDS);
      at += 13 + n;
    } else if (kind === 0x49) {
      const segid = b.readUInt32LE(at + 1);
      const n = b.readUInt32LE(at + 5);
      const term = b.subarray(at + 9, at + 9 + n);
      out.idx.push([segid, term, Number(b.readBigInt64LE(at + 9 + n))]);
      at += 17 + n;
    } else throw new Error(`FTS5 segment records: unknown record kind ${kind} at byte ${at}`);
  }
  return out;
}

/** A builder of an FTS5 table's segments from its rows; undefined without the kernel. */
export class FtsSegmentBuilder {
  private handle: Handle | undefined;

  private constructor(handle: Handle) {
    this.handle = handle;
  }

  /** A builder for `columns` indexed columns and leaves of `pgsz` bytes (FTS5's `pgsz`), or undefined without the kernel. */
  static create(columns: number, pgsz: number): FtsSegmentBuilder | undefined {
    return ftsNew ? new FtsSegmentBuilder(ftsNew(columns, pgsz)) : undefined;
  }

  private get live(): Handle {
    if (!this.handle) throw new Error('FtsSegmentBuilder used after free()');
    return this.handle;
  }

  /**
   * Row `rowid` (above every row added before), a text per column (a string, or the bytes of a
   * JSON string literal, quotes included, whose text it is); returns its %_docsize record, or
   * undefined where a JSON string is one the kernel leaves to JSON.parse (nothing is added: the
   * caller parses it and adds the row again). `analyze`: the terms (separated by spaces) of a
   * token with characters past ASCII, which stand where it stood; without it, such a token is
   * indexed as FTS5's ascii tokenizer cuts it.
   */
  add(rowid: number, texts: readonly (string | Uint8Array)[], analyze?: (chunk: string) => string): Buffer | undefined {
    const docsize = ftsAdd(this.live, rowid, texts, analyze);
    if (docsize === false) return undefined;
    if (!docsize) throw new Error(`FTS5 segment builder: row ${rowid} does not follow the row before`);
    return docsize;
  }

  /** Bytes of terms and doclists held, as FTS5 counts them against its `hashsize`. */
  pending(): number {
    return ftsPending(this.live);
  }

  /**
   * The terms held, written as segment `segid` (1 to 2000, one the table does not hold), or
   * undefined where none are held.
   */
  flush(segid: number): SegmentRecords | undefined {
    const b = ftsFlush(this.live, segid);
    return b ? readRecords(b, segid) : undefined;
  }

  /** The averages record of every row added (the rows, then each column's tokens). */
  averages(): Buffer {
    return ftsAverages(this.live);
  }

  free(): void {
    if (this.handle) ftsFree(this.handle);
    this.handle = undefined;
  }
}
