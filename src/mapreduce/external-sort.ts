/**
 * External sort of text lines in byte order (as `LC_ALL=C sort`, `-u` with `unique`): lines
 * are buffered up to a memory budget, sorted, spilled as runs to a temp directory and merged
 * k-way, so input of any size needs only the budget. The shuffle of the MapReduce runner is
 * this same sort. `mergeSorted` merges inputs that are already sorted (`sort -m`).
 */
import { createWriteStream, rmSync, statSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { sortByteOrder, compareBytes, hasHighChars } from './byte-order.js';
import { lineBatches } from './line-reader.js';
import { dedupeSorted } from './run-utils.js';
import { Worker } from 'node:worker_threads';
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
}

/** Per-line overhead of a JS string in an array, counted against the budget. */
const LINE_OVERHEAD = 112;

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
 * Sorts and writes runs on a worker thread, one at a time, so that reading the next run and
 * sorting the last one use both cores.
 */
class SpillWorker {
  private worker: Worker | undefined;
  private pending: Promise<void> | undefined;
  private busy = false;

  constructor(private readonly runBytes: number) {}

  /**
   * Hands `lines` to the worker (they are copied; the caller may drop them), or, when the
   * worker is still busy with the previous run, sorts and writes them on this thread rather
   * than wait: both cores stay at work.
   */
  async spill(lines: string[], path: string, unique: boolean): Promise<void> {
    if (this.busy) return writeRun(lines, path, unique);
    await this.pending;
    this.busy = true;
    // A heap limit makes the worker collect its garbage early instead of growing its heap:
    // room for its copy of a run, the sort's scratch space and the strings it writes.
    this.worker ??= new Worker(new URL('./sort-worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: Math.max(48, Math.ceil((this.runBytes * 4) / 2 ** 20)) },
    });
    const w = this.worker;
    this.pending = new Promise<void>((resolve, reject) => {
      // One listener of each kind per run, both removed when either fires (not one more
      // 'error' listener per run for the life of the worker).
      const done = (m: { ok: boolean; message?: string }) => {
        w.off('error', failed);
        this.busy = false;
        if (m.ok) resolve();
        else reject(new Error(`sort run ${path}: ${m.message}`));
      };
      const failed = (err: Error) => {
        w.off('message', done);
        reject(err);
      };
      w.once('message', done);
      w.once('error', failed);
    });
    w.postMessage({ lines, path, unique });
  }

  async drain(): Promise<void> {
    await this.pending;
  }

  close(): void {
    void this.worker?.terminate();
  }
}

/** Memory one run takes while it is merged: its 1 MiB read buffer, a batch of its lines, slack. */
const MERGE_BYTES_PER_RUN = 4 << 20;

/** Sorts the lines of `input` (batches of lines, as lineBatches gives them). */
export async function* externalSort(input: AsyncIterable<string[]>, opts: SortOptions = {}): AsyncGenerator<string[]> {
  const budget = opts.memory ?? 256 << 20;
  // Two runs live at once (one filling or sorting here, one being sorted by the worker): half each.
  const runBudget = opts.inProcess ? budget : budget / 2;
  let buffer: string[] = [];
  let used = 0;
  const runs: string[] = [];
  let dir: string | undefined;
  // Spills of a sort that was killed are removed now, whether or not this one spills.
  sweepDead(opts.tmpDir ?? tmpdir(), '.nwax-sort-');
  const worker = new SpillWorker(runBudget);
  try {
    for await (const batch of input) {
      for (const line of batch) {
        buffer.push(line);
        used += line.length + LINE_OVERHEAD;
      }
      if (used >= runBudget) {
        dir ??= makeTempDir(opts.tmpDir ?? tmpdir(), '.nwax-sort-');
        const path = join(dir, `run-${runs.length}`);
        if (opts.inProcess) await writeRun(buffer, path, opts.unique ?? false);
        else await worker.spill(buffer, path, opts.unique ?? false);
        runs.push(path);
        buffer = [];
        used = 0;
      }
    }
    await worker.drain();
    let last = sortByteOrder(buffer);
    if (opts.unique) last = dedupeSorted(last);
    buffer = [];
    if (runs.length === 0) {
      for (let i = 0; i < last.length; i += 65536) yield last.slice(i, i + 65536);
      return;
    }
    // A bounded fan-in (each run being merged holds a read buffer and a batch of lines): past
    // it, runs are merged in passes first, so memory does not grow with the number of runs.
    const fanIn = Math.max(2, Math.min(32, Math.floor(budget / MERGE_BYTES_PER_RUN)));
    const merged = await mergeDown(runs, fanIn, join(dir!, 'merge'));
    const sources: AsyncIterable<string[]>[] = merged.map((r) => lineBatches(r));
    sources.push((async function* () {
      yield last;
    })());
    yield* mergeBatches(sources, opts.unique ?? false);
  } finally {
    worker.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Merges runs in passes of `factor` (smallest first, as Hadoop's merger does) until at most
 * `factor` remain, so a reduce holds a bounded number of files open whatever the input size.
 */
export async function mergeDown(runs: string[], factor: number, prefix: string): Promise<string[]> {
  const left = runs.map((path) => ({ path, size: statSync(path).size }));
  let n = 0;
  while (left.length > factor) {
    left.sort((a, b) => a.size - b.size);
    const group = left.splice(0, Math.min(factor, left.length - factor + 1));
    const path = `${prefix}-${n++}`;
    const out = createWriteStream(path);
    for await (const batch of mergeSortedFiles(group.map((g) => g.path))) await writeLines(out, batch);
    out.end();
    await once(out, 'close');
    for (const g of group) rmSync(g.path);
    left.push({ path, size: statSync(path).size });
  }
  return left.map((r) => r.path);
}

/** Sorts and writes one run here, on the calling thread. */
async function writeRun(lines: string[], path: string, unique: boolean): Promise<void> {
  let sorted = sortByteOrder(lines);
  if (unique) sorted = dedupeSorted(sorted);
  const out = createWriteStream(path);
  await writeLines(out, sorted);
  out.end();
  await once(out, 'close');
}

/** A cursor over one sorted source of line batches. */
class RunCursor {
  private batch: string[] = [];
  private i = 0;
  head: string | undefined;
  /** The current batch has characters where UTF-16 and UTF-8 order differ. */
  exact = false;

  constructor(private readonly it: AsyncIterator<string[]>) {}

  /** Next line: synchronous within a batch; a promise only when a new batch must be read. */
  advance(): boolean | Promise<boolean> {
    if (this.i < this.batch.length) {
      this.head = this.batch[this.i++];
      return true;
    }
    return this.refill();
  }

  private async refill(): Promise<boolean> {
    while (this.i >= this.batch.length) {
      const r = await this.it.next();
      if (r.done) {
        this.head = undefined;
        return false;
      }
      this.batch = r.value;
      this.i = 0;
      this.exact = this.batch.some(hasHighChars);
    }
    this.head = this.batch[this.i++];
    return true;
  }
}

/** k-way merge of sorted sources with a binary heap; batches out. */
export async function* mergeBatches(sources: AsyncIterable<string[]>[], unique: boolean): AsyncGenerator<string[]> {
  const heap: RunCursor[] = [];
  for (const s of sources) {
    const c = new RunCursor(s[Symbol.asyncIterator]());
    if (await c.advance()) heap.push(c);
  }
  const less = (a: RunCursor, b: RunCursor) =>
    a.exact || b.exact ? compareBytes(a.head!, b.head!) < 0 : a.head! < b.head!;
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === i) return;
      const t = heap[i];
      heap[i] = heap[m];
      heap[m] = t;
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  let out: string[] = [];
  let prev: string | undefined;
  while (heap.length > 0) {
    const top = heap[0];
    const line = top.head!;
    if (!unique || line !== prev) out.push(line);
    prev = line;
    if (out.length >= 65536) {
      yield out;
      out = [];
    }
    let more = top.advance();
    if (more !== true && more !== false) more = await more;
    if (!more) {
      const last = heap.pop()!;
      if (heap.length > 0) heap[0] = last;
    }
    if (heap.length > 0) down(0);
  }
  if (out.length > 0) yield out;
}

/** Merges files that are each sorted already (sort -m). */
export function mergeSortedFiles(paths: string[], unique = false): AsyncGenerator<string[]> {
  return mergeBatches(paths.map((p) => lineBatches(p)), unique);
}
