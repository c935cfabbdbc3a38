/**
 * Merging sorted runs and inputs: runs merged in passes of a fan-in (as Hadoop's merger does),
 * the runs' lines as batches, and sorted inputs merged k-way (`sort -m`, `-u` with `unique`).
 */
import { rmSync, statSync } from 'node:fs';
import { compareBytes, hasHighChars } from './byte-order.js';
import { lineBatches } from './line-reader.js';
import { decodeLines } from './line-arena.js';
import { FileLines, mergeLines, mergeToFile } from './byte-merge.js';
import type { SpillWorker } from './spill-worker.js';

/**
 * Merges runs in passes of `factor` (smallest first, as Hadoop's merger does) until at most
 * `factor` remain, so a reduce holds a bounded number of files open whatever the input size.
 * Runs are this sort's own files (newline-terminated lines): merged as bytes. With `helper`,
 * two passes run at once, one on its worker thread.
 */
export async function mergeDown(runs: string[], factor: number, prefix: string, helper?: SpillWorker, read?: number): Promise<string[]> {
  const left = runs.map((path) => ({ path, size: statSync(path).size }));
  let n = 0;
  const take = (count: number) => {
    left.sort((a, b) => a.size - b.size);
    return { group: left.splice(0, Math.min(factor, count - factor + 1)), path: `${prefix}-${n++}` };
  };
  while (left.length > factor) {
    const a = take(left.length);
    // A second pass at once, when one more is needed beside this one (its output counts as a run).
    const b = helper && left.length + 1 > factor ? take(left.length + 1) : undefined;
    const beside = b
      ? helper!.merge(
          b.group.map((g) => ({ path: g.path, read })),
          b.path,
          false,
        )
      : undefined;
    beside?.catch(() => {});
    mergeToFile(
      a.group.map((g) => ({ path: g.path, read })),
      a.path,
      false,
    );
    await beside;
    for (const pass of b ? [a, b] : [a]) {
      for (const g of pass.group) rmSync(g.path);
      left.push({ path: pass.path, size: statSync(pass.path).size });
    }
  }
  return left.map((r) => r.path);
}

/**
 * The lines of this sort's own run files, merged as bytes, decoded in batches of 64 KiB: small
 * enough that a batch's strings die young (in V8's scavenges) instead of filling the old heap.
 */
export function* mergeRunFiles(paths: string[]): Generator<string[]> {
  for (const chunk of mergeLines(
    paths.map((p) => new FileLines(p)),
    false,
    64 << 10,
  ))
    yield decodeLines(chunk, chunk.length);
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
  const less = (a: RunCursor, b: RunCursor) => (a.exact || b.exact ? compareBytes(a.head!, b.head!) < 0 : a.head! < b.head!);
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
  return mergeBatches(
    paths.map((p) => lineBatches(p)),
    unique,
  );
}
