/**
 * How an index part's rows reach its FTS5 table. Two ways, which write the same records:
 *
 * - `FtsSegmentLoad` (the addon's `fts` kernel, native/fts-segment.c): the rows are tokenized
 *   and their doclists kept by nwax, then written into FTS5's own tables (%_data, %_idx,
 *   %_docsize) as the segments FTS5 would write for them, one per `hashsize` of terms, as FTS5
 *   flushes its hash; several are merged by FTS5's own `optimize`. FTS5's insert path (a
 *   callback per token into a term hash whose key function crowds short terms into a few
 *   slots) was most of the index step.
 * - `FtsInsertLoad` (its twin, without the addon or with NWAX_NATIVE leaving `fts` out): the
 *   rows inserted through FTS5 in one transaction, its hash at `hashsize`, its incremental
 *   merges off until `optimize`.
 *
 * Nothing reads a part before it is renamed into place, so neither way waits on readers.
 */
import Database from 'better-sqlite3';
import type { Db } from './schema.js';
import { FtsSegmentBuilder } from '../native/fts.js';
import { analyzeChunk, indexText } from '../analysis/analyzer.js';
import { JsonText, plainText } from '../util/json-bytes.js';
import { readStructure, segmentsOf, writeStructure, type Fts5Segment, type Fts5Structure } from './fts5-structure.js';

/** FTS5's leaf size (its `pgsz` option, whose default the index keeps). */
const FTS5_PAGE_SIZE = 4050;
/** FTS5's own hashsize, where none is given. */
const FTS5_HASH_SIZE = 1 << 20;
/** The structure record's id in %_data (FTS5_STRUCTURE_ROWID), and the averages record's. */
const STRUCTURE_ID = 10;
const AVERAGES_ID = 1;

export interface FtsLoad {
  /**
   * Row `id` (increasing), a text per column of the FTS5 table, in its order, indexed as
   * analysis/analyzer.ts's indexText gives its terms; a text may be kept as JSON bytes. May
   * commit the caller's transaction and begin another before the row (the native load, to have
   * FTS5 merge its segments: see MERGE_AT).
   */
  add(id: number, texts: readonly (string | JsonText)[]): void;
  /** Inside the transaction, after the last row. */
  beforeCommit(): void;
  /** After the transaction commits. */
  afterCommit(): void;
}

/**
 * The FTS5 table `fts` of `db` loaded natively where the `fts` kernel is built (and `native`
 * is not false), else through FTS5's inserts; `hashSize` is FTS5's `hashsize` either way
 * (bytes of terms held before they are written as a segment).
 */
export function ftsLoad(db: Db, path: string, columns: readonly string[], hashSize: number | undefined, native = true): FtsLoad {
  const builder = native ? FtsSegmentBuilder.create(columns.length, FTS5_PAGE_SIZE) : undefined;
  return builder ? new FtsSegmentLoad(db, path, builder, hashSize ?? FTS5_HASH_SIZE) : new FtsInsertLoad(db, columns, hashSize);
}

/**
 * Kernel segments on level 0 that FTS5 is given to merge before the next is written: its own
 * 'crisismerge' bound, which the twin keeps (below). Unmerged, a part of many segments (a small
 * hashsize, or a very large part) passed the 2000 a structure record may hold, and FTS5 called
 * the index corrupt.
 */
const MERGE_AT = 64;

class FtsSegmentLoad implements FtsLoad {
  private readonly putData: Database.Statement;
  private readonly putIdx: Database.Statement;
  private readonly putDocsize: Database.Statement;
  /** The table's structure as FTS5 last wrote it (empty, or after a merge), and the kernel's segments since, on level 0. */
  private structure: Fts5Structure;
  private fresh: Fts5Segment[] = [];

  constructor(
    private readonly db: Db,
    private readonly path: string,
    private readonly builder: FtsSegmentBuilder,
    private readonly hashSize: number,
  ) {
    // FTS5's tables are written as FTS5 writes them; SQLite's defensive mode refuses any write
    // to a virtual table's shadow tables, so it is off on this connection while the part loads.
    db.unsafeMode(true);
    this.putData = db.prepare('INSERT OR REPLACE INTO fts_data(id, block) VALUES (?, ?)');
    this.putIdx = db.prepare('INSERT INTO fts_idx(segid, term, pgno) VALUES (?, ?, ?)');
    this.putDocsize = db.prepare('INSERT INTO fts_docsize(id, sz) VALUES (?, ?)');
    this.structure = this.readStructure();
  }

  add(id: number, texts: readonly (string | JsonText)[]): void {
    // FTS5 flushes its hash before a row once the terms held pass hashsize.
    if (this.builder.pending() > this.hashSize) this.writeSegment();
    // The words the analyzer must see (those with characters past ASCII) come back to it from
    // the kernel, a word at a time; ASCII words are FTS5's to cut, as indexText leaves them.
    // The kernel remembers the chunks it had analyzed, so chunkTerms's own cache is left out.
    // A JSON text the kernel does not read (not UTF-8, say) is parsed here, as a line is.
    const docsize =
      this.builder.add(
        id,
        texts.map((t) => (t instanceof JsonText ? t.json : t)),
        analyzeChunk,
      ) ?? this.builder.add(id, texts.map(plainText), analyzeChunk);
    this.putDocsize.run(id, docsize);
  }

  /** The structure record FTS5 wrote (at the table's making, or merging), its cookie among it. */
  private readStructure(): Fts5Structure {
    const block = this.db.prepare('SELECT block FROM fts_data WHERE id = ?').pluck().get(STRUCTURE_ID) as Buffer | undefined;
    return block ? readStructure(block, this.path) : { cookie: 0, writeCounter: 0, levels: [] };
  }

  private writeSegment(): void {
    // The lowest segment id not in use, as FTS5's fts5AllocateSegid picks one.
    const used = new Set([...segmentsOf(this.structure), ...this.fresh].map((g) => g.segid));
    let segid = 1;
    while (used.has(segid)) segid++;
    const s = this.builder.flush(segid);
    if (!s) return;
    for (const [id, block] of s.data) this.putData.run(id, block);
    // As integers, which FTS5 writes them as (a bound number is a REAL).
    for (const [sid, term, pgno] of s.idx) this.putIdx.run(BigInt(sid), term, BigInt(pgno));
    this.fresh.push({ segid, firstLeaf: 1, lastLeaf: s.lastLeaf });
    if (this.fresh.length >= MERGE_AT) this.merge();
  }

  /** The structure and averages records: FTS5's levels, then the kernel's new segments appended to level 0, as fts5FlushOneHash appends them. */
  private writeRecords(): void {
    const [first = { merging: 0, segments: [] }, ...rest] = this.structure.levels;
    const levels = this.fresh.length ? [{ merging: first.merging, segments: [...first.segments, ...this.fresh] }, ...rest] : this.structure.levels;
    this.putData.run(STRUCTURE_ID, writeStructure({ ...this.structure, levels }));
    this.putData.run(AVERAGES_ID, this.builder.averages());
  }

  /**
   * FTS5 merges the segments written so far as its automerge would ('merge': a level's
   * segments into one on the next, while a level holds usermerge of them), on a connection of
   * its own, between two transactions of this one: nothing reads the part before it is renamed
   * into place, and this connection's FTS5 may hold the structure it read before.
   */
  private merge(): void {
    this.writeRecords();
    this.db.exec('COMMIT');
    this.mergeOnOwnConnection("INSERT INTO fts(fts, rank) VALUES('merge', 1000000000)");
    this.db.exec('BEGIN');
    this.structure = this.readStructure();
    this.fresh = [];
  }

  private mergeOnOwnConnection(sql: string): void {
    const db = new Database(this.path);
    try {
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
      db.exec(sql);
    } finally {
      db.close();
    }
  }

  beforeCommit(): void {
    this.writeSegment();
    this.writeRecords();
    this.builder.free();
    this.db.unsafeMode(false);
  }

  afterCommit(): void {
    if (segmentsOf(this.structure).length + this.fresh.length < 2) return;
    // FTS5 merges the segments into one.
    this.mergeOnOwnConnection("INSERT INTO fts(fts) VALUES('optimize')");
  }
}

class FtsInsertLoad implements FtsLoad {
  private readonly insert: Database.Statement;

  constructor(
    private readonly db: Db,
    columns: readonly string[],
    hashSize: number | undefined,
  ) {
    this.insert = db.prepare(`INSERT INTO fts(rowid, ${columns.join(', ')}) VALUES (?${', ?'.repeat(columns.length)})`);
    // An integer in the SQL text: FTS5 takes only an INTEGER value, and a bound JS number is a REAL.
    if (hashSize !== undefined) db.exec(`INSERT INTO fts(fts, rank) VALUES('hashsize', ${Math.max(1, Math.floor(hashSize))})`);
    // No merging while the part loads (up to 64 segments a level before FTS5 must): `optimize`
    // merges them all once at the end. With FTS5's incremental merges, a part of 183k
    // documents (the bench corpus's part 20 times over) loaded in 31.7 s, without them 29.1 s
    // (medians of 3 alternated); a part of the bench corpus alone is one segment either way.
    db.exec("INSERT INTO fts(fts, rank) VALUES('automerge', 0)");
    db.exec("INSERT INTO fts(fts, rank) VALUES('crisismerge', 64)");
  }

  add(id: number, texts: readonly (string | JsonText)[]): void {
    this.insert.run(id, ...texts.map((t) => indexText(plainText(t))));
  }

  beforeCommit(): void {}

  afterCommit(): void {
    this.db.exec("INSERT INTO fts(fts) VALUES('optimize')");
    // FTS5 keeps its options in the index: FTS5's defaults again, for whatever writes it next.
    this.db.exec("INSERT INTO fts(fts, rank) VALUES('automerge', 4)");
    this.db.exec("INSERT INTO fts(fts, rank) VALUES('crisismerge', 16)");
  }
}
