/**
 * The external sort's helper thread: runs handed over (not copied: an arena's memory moves to
 * the worker, sort-worker.ts) to be sorted and written, and merges of runs, one at a time.
 */
import { Worker } from 'node:worker_threads';
import type { LineArena } from './line-arena.js';
import type { RunRange } from './byte-merge.js';
import type { MergeMessage, SpillDone, SpillMessage } from './sort-worker.js';

/**
 * Sorts and writes runs on a worker thread, one at a time, so that reading the next run and
 * sorting the last one use both cores. A run is handed over, not copied: its arena's memory
 * moves to the worker.
 */
export class SpillWorker {
  private worker: Worker | undefined;
  private pending: Promise<void> | undefined;
  private busy = false;

  /** Whether a run or a merge is under way on the worker. */
  get working(): boolean {
    return this.busy;
  }

  /**
   * Hands `arena` to the worker (the caller must not use it again) once the run before it is
   * written; `free` gets it back when its run is written.
   */
  async spill(arena: LineArena, path: string, unique: boolean, free: (arena: LineArena) => void): Promise<void> {
    await this.pending;
    const message: SpillMessage = {
      kind: 'spill',
      buf: arena.buf.buffer as ArrayBuffer,
      used: arena.used,
      start: arena.start,
      len: arena.len,
      count: arena.count,
      path,
      unique,
    };
    this.send(message, [message.buf, message.start.buffer as ArrayBuffer, message.len.buffer as ArrayBuffer], `sort run ${path}`, (m) => {
      arena.adopt(Buffer.from(m.buf!), m.start!, m.len!);
      free(arena);
    });
  }

  /**
   * Merges run ranges into `out` on the worker (from byte `at` of it, when given), once what it
   * was doing is done; resolves when written.
   */
  async merge(sources: RunRange[], out: string, unique: boolean, at?: number): Promise<void> {
    await this.pending;
    this.send({ kind: 'merge', sources, out, unique, at }, [], `merge into ${out}`, () => {});
    await this.pending;
  }

  private send(message: SpillMessage | MergeMessage, transfer: ArrayBuffer[], what: string, ok: (m: SpillDone) => void): void {
    this.busy = true;
    // The runs' bytes are off the worker's heap: a small heap is enough.
    this.worker ??= new Worker(new URL('./sort-worker.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: 64 } });
    const w = this.worker;
    this.pending = new Promise<void>((resolve, reject) => {
      // One listener of each kind per message, both removed when either fires (not one more
      // 'error' listener per run for the life of the worker).
      const done = (m: SpillDone) => {
        w.off('error', failed);
        this.busy = false;
        if (m.ok) {
          ok(m);
          resolve();
        } else reject(new Error(`${what}: ${m.message}`));
      };
      const failed = (err: Error) => {
        w.off('message', done);
        reject(err);
      };
      w.once('message', done);
      w.once('error', failed);
    });
    w.postMessage(message, transfer);
  }

  async drain(): Promise<void> {
    await this.pending;
  }

  close(): void {
    void this.worker?.terminate();
  }
}
