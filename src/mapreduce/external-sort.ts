/**
 * External sort of text lines in byte order (as `LC_ALL=C sort`, `-u` with `unique`): lines
 * are buffered as bytes up to a memory budget, sorted, spilled as runs to a temp directory and
 * merged k-way, so input of any size needs only the budget. The shuffle of the MapReduce runner is
 * this same sort. `mergeSorted` merges inputs that are already sorted (`sort -m`).
 */
import { closeSync, openSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { LineArena, decodeLines, type ArenaStorage, type FillStop } from './line-arena.js';
import { arenaChunks, writeArenaLines, writeRun } from './run-writer.js';
import { ArenaLines, FileLines, fileChunks, lowerBound, mergeLines, middleLine, type LineCursor, type RunRange } from './byte-merge.js';
import { SpillWorker } from './spill-worker.js';
import { mergeDown } from './run-merge.js';
import { makeTempDir, sweepDead } from '../util/litter.js';

export interface SortOptions {
  /** Bytes of lines held in memory before a run is spilled (default 256 MiB). */
  memory?: number;
  /** Where runs are spilled (default the system temp dir). */
  tmpDir?: string;
  /** Drop repeated lines (sort -u). */
  unique?: boolean;
  /** Sort spilled runs on this thread instead of a worker (for callers that are workers themselves). */
  inProcess?: boolean;
  /**
   * The reading side is lighter than sorting (lines copied as bytes): when the spill worker is
   * still busy, the next run is sorted on the reading thread rather than waited for. Default false.
   */
  readerHelps?: boolean;
}

export async function writeLines(out: WriteStream, lines: Iterable<string>): Promise<void> {
  let buf = '';
  for (const l of lines) {
    buf += `${l}\n`;
    if (buf.length >= 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  if (buf && !out.write(buf)) await once(out, 'drain');
}

/**
 * A run being merged holds a read buffer, and a share of the output chunk (half a buffer
 * more), on each thread that merges. Reads are as large as the budget allows for all the
 * runs of a merge, from 16 to 256 KiB; more runs than 16 KiB reads allow are merged in passes
 * first. Passes cost more than small reads: a 2 GB sort-cdx in 32 MB (128 runs) took 15.5 s
 * with 256 KiB reads and 32 runs at a time (100 runs merged in passes), 11.3 s with 43 KiB
 * reads and all 128 at once (GNU sort: 12.5 s), peak RSS 218 -> 183 MB; at 3.6 GB (230 runs)
 * 16 KiB reads and no pass took 22.2 s against 23.8 s with 32 KiB reads and a pass.
 */
const MIN_READ = 16 << 10;
const MAX_READ = 256 << 10;
const OUT_SHARE = 1.5;
/** Runs merged at once at most (open files: a final merge cut in two opens each twice). */
const MAX_FAN_IN = 256;

/** Bytes per read for `runs` runs merged at once on `threads` threads within `budget`. */
function readSize(budget: number, runs: number, threads: number): number {
  return Math.max(MIN_READ, Math.min(MAX_READ, Math.floor(budget / (OUT_SHARE * threads * Math.max(1, runs)))));
}

/** Runs of at least this many bytes in all are merged on both cores (`mergeInTwo`). */
const SPLIT_BYTES = 16 << 20;

/**
 * The file that the sorted lines are written to, from byte `at` on, as they are given: the
 * final merge's upper half can then be written in its place by the worker, not through a file
 * of its own that is read back (a gigabyte written and read again on a 2 GB sort).
 */
export interface SortedOutput {
  path: string;
  at: number;
}

/**
 * An external sort fed line by line, as strings or as bytes: lines are held as UTF-8 in arenas
 * up to the budget, sorted by their bytes, spilled as runs and merged as bytes. `chunks()`
 * gives the sorted lines as bytes; `externalSort` below decodes them for callers of strings.
 */
export class ExternalSorter {
  private readonly runBudget: number;
  private readonly unique: boolean;
  private arena: LineArena;
  /** Arenas whose runs are written, kept for the next runs (their pages are mapped already). */
  private readonly spares: LineArena[] = [];
  private readonly runs: string[] = [];
  private dir: string | undefined;
  private readonly worker = new SpillWorker();
  /** Lines given to `addLines` so far. */
  linesAdded = 0;

  constructor(private readonly opts: SortOptions = {}) {
    // Two runs live at once (one filling here, one being sorted by the worker): half each.
    this.runBudget = opts.inProcess ? this.budget : this.budget / 2;
    this.unique = opts.unique ?? false;
    this.arena = new LineArena(this.runBudget);
    // Spills of a sort that was killed are removed now, whether or not this one spills.
    sweepDead(opts.tmpDir ?? tmpdir(), '.nwax-sort-');
  }

  private get budget(): number {
    return this.opts.memory ?? 256 << 20;
  }

  /** Adds a line (without its newline); a promise when a run is being handed over (await it). */
  add(line: string): Promise<void> | undefined {
    this.arena.add(line);
    return this.arena.full() ? this.spill() : undefined;
  }

  /** Adds `buf[from, to)` as a line. */
  addBytes(buf: Uint8Array, from: number, to: number): Promise<void> | undefined {
    this.arena.addBytes(buf, from, to);
    return this.arena.full() ? this.spill() : undefined;
  }

  /**
   * Room for a line of at most `max` bytes, to be written into `room` from the offset
   * returned and added with `commit`: a caller that assembles a line (dedup-cdx's key from
   * four fields) writes it where the sort holds it, not into a buffer of its own first.
   */
  reserve(max: number): number {
    return this.arena.reserve(max);
  }

  /** The Buffer `reserve` made room in. */
  get room(): Buffer {
    return this.arena.buf;
  }

  /** Adds the line of `n` bytes written at `reserve`'s offset `at`; a promise as `add` gives. */
  commit(at: number, n: number): Promise<void> | undefined {
    this.arena.commit(at, n);
    return this.arena.full() ? this.spill() : undefined;
  }

  /**
   * Lines written in place by a kernel (line-arena.ts's `fill`), called again after making
   * room or spilling a run until it stops done; resolves to where it stopped in its input.
   */
  async fill(f: (storage: ArenaStorage) => FillStop): Promise<number> {
    for (;;) {
      const stop = this.arena.fill(f);
      if (stop.status === 'room') this.arena.makeRoom(stop.need!);
      else if (stop.status === 'full') {
        const pending = this.spill();
        if (pending) await pending;
      } else return stop.at;
    }
  }

  /**
   * Adds the lines of `buf[from, to)` (each ending with a newline, as `lineChunks` gives them),
   * copied in stretches; resolves when all are in (spilling runs on the way).
   */
  async addLines(buf: Buffer, from: number, to: number): Promise<void> {
    while (from < to) {
      const before = this.arena.count;
      from = this.arena.addLines(buf, from, to);
      this.linesAdded += this.arena.count - before;
      if (this.arena.full()) {
        const pending = this.spill();
        if (pending) await pending;
      }
    }
  }

  /** The full arena becomes a run; lines added from now on go to a new one. */
  private spill(): Promise<void> | undefined {
    const full = this.arena;
    this.dir ??= makeTempDir(this.opts.tmpDir ?? tmpdir(), '.nwax-sort-');
    const path = join(this.dir, `run-${this.runs.length}`);
    this.runs.push(path);
    // With `readerHelps`, when the worker is still busy, the run is sorted and written on this
    // thread instead, and its arena filled again: right where reading is the lighter side
    // (sort-cdx copies bytes: 7-8 s against 10-11 s on 905 MB), wrong where it is the heavier
    // one (dedup-cdx parses fields: 13 s against 10.6 s, and a third more memory).
    if (this.opts.inProcess || (this.opts.readerHelps && this.worker.working)) {
      writeRun(full, path, this.unique);
      full.reset();
      return undefined;
    }
    return this.handOver(full, path);
  }

  /**
   * Waits for the worker to finish the run before (its arena comes back among the spares),
   * then gives it `full` and fills the spare. Taking a new arena before that wait held three
   * at once while the worker was slower than reading: 1.5x the budget (dedup-cdx --memory
   * 256M peaked at 472 MB).
   */
  private async handOver(full: LineArena, path: string): Promise<void> {
    await this.worker.drain();
    this.arena = this.spares.pop() ?? new LineArena(this.runBudget);
    await this.worker.spill(full, path, this.unique, (a) => {
      a.reset();
      this.spares.push(a);
    });
  }

  /**
   * The sorted lines, as chunks of whole lines (each with its newline). A chunk is valid until
   * the next is asked for. The sort's files are removed when the chunks end or are abandoned.
   * `output`: where the caller writes the chunks, asked for when the final merge is cut in
   * two; with it (and without `unique`, whose output size is not known beforehand) the upper
   * half is written there by the worker and the chunks end with the lower half.
   */
  async *chunks(output?: () => SortedOutput | undefined): AsyncGenerator<Buffer> {
    try {
      // The last run is sorted here while the worker may still sort the one before.
      const arena = this.arena;
      const { order } = arena.sorted();
      await this.worker.drain();
      if (this.runs.length === 0) {
        yield* arenaChunks(arena, order, 0, arena.count, this.unique);
        return;
      }
      // The spare arena's memory goes to the merge's read buffers.
      this.spares.length = 0;
      const parallel = !this.opts.inProcess;
      // A bounded fan-in (each run being merged holds a read buffer, on each thread that
      // merges): past it, runs are merged in passes first, so memory does not grow with the
      // number of runs.
      // What the last run (still held, merged from memory) leaves of the budget.
      const budget = Math.max(this.budget - this.runBudget, this.budget / 2);
      const threads = parallel ? 2 : 1;
      const fanIn = Math.max(2, Math.min(MAX_FAN_IN, Math.floor(budget / (MIN_READ * OUT_SHARE * threads))));
      const merged = await mergeDown(this.runs, fanIn, join(this.dir!, 'merge'), parallel ? this.worker : undefined, readSize(budget, fanIn, threads));
      const read = readSize(budget, merged.length, threads);
      if (parallel && merged.reduce((sum, r) => sum + statSync(r).size, 0) >= SPLIT_BYTES) {
        yield* this.mergeInTwo(merged, arena, order, read, this.unique ? undefined : output);
        return;
      }
      const cursors: LineCursor[] = merged.map((r) => new FileLines(r, 0, Infinity, read));
      cursors.push(new ArenaLines(arena, order, 0, arena.count));
      yield* mergeLines(cursors, this.unique);
    } finally {
      this.dispose();
    }
  }

  /**
   * The final merge on both cores: the lines are cut at a splitting line (the median of each
   * run's middle line), this thread merges those below it and hands them on while the worker
   * merges the rest into a file, which follows. Lines equal to the splitter all fall above it,
   * so `unique` holds across the cut.
   */
  private async *mergeInTwo(
    runs: string[],
    arena: LineArena,
    order: Int32Array,
    read: number,
    output?: () => SortedOutput | undefined,
  ): AsyncGenerator<Buffer> {
    const mid = arena.count >> 1;
    const samples = runs.map(middleLine).filter((l): l is Buffer => l !== undefined);
    if (arena.count > 0) samples.push(arena.buf.subarray(arena.start[order[mid]], arena.start[order[mid]] + arena.len[order[mid]]));
    samples.sort(Buffer.compare);
    const splitter = samples[samples.length >> 1];
    const cuts = runs.map((path) => lowerBound(path, splitter));
    // The arena's lines from the splitter on go to the worker as a file of their own.
    let k = 0;
    for (let hi = arena.count; k < hi; ) {
      const m = (k + hi) >> 1;
      const i = order[m];
      if (Buffer.compare(arena.buf.subarray(arena.start[i], arena.start[i] + arena.len[i]), splitter) < 0) k = m + 1;
      else hi = m;
    }
    const tail = join(this.dir!, 'tail');
    const fd = openSync(tail, 'w');
    try {
      writeArenaLines(arena, fd, order, k, arena.count, this.unique);
    } finally {
      closeSync(fd);
    }
    // In place: the upper half starts where the lower half's bytes end.
    const place = output?.();
    let lowerBytes = 0;
    if (place) {
      for (const c of cuts) lowerBytes += c;
      for (let m = 0; m < k; m++) lowerBytes += arena.len[order[m]] + 1;
    }
    const upper = place ? place.path : join(this.dir!, 'upper');
    const above: RunRange[] = runs.map((path, r) => ({ path, from: cuts[r], read }));
    above.push({ path: tail });
    const beside = this.worker.merge(above, upper, this.unique, place ? place.at + lowerBytes : undefined);
    beside.catch(() => {});
    const below: LineCursor[] = runs.map((path, r) => new FileLines(path, 0, cuts[r], read));
    below.push(new ArenaLines(arena, order, 0, k));
    yield* mergeLines(below, this.unique);
    await beside;
    if (!place) yield* fileChunks(upper);
  }

  /** Stops the worker and removes the spills (also when the sort is abandoned). */
  dispose(): void {
    this.worker.close();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}

/** Sorts the lines of `input` (batches of lines, as lineBatches gives them); decoded batches out. */
export async function* externalSort(input: AsyncIterable<string[]>, opts: SortOptions = {}): AsyncGenerator<string[]> {
  const sorter = new ExternalSorter(opts);
  try {
    for await (const batch of input) {
      for (const line of batch) {
        const pending = sorter.add(line);
        if (pending) await pending;
      }
    }
    for await (const chunk of sorter.chunks()) yield decodeLines(chunk, chunk.length);
  } finally {
    sorter.dispose();
  }
}

// The merges are run-merge.ts's; re-exported for the callers of the sort.
export { mergeBatches, mergeDown, mergeRunFiles, mergeSortedFiles } from './run-merge.js';
