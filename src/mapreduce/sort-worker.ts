/**
 * The spill worker of the external sort: sorts one run (a line arena handed over, not copied)
 * and writes it to its file, on a core of its own while the main thread reads on; then merges
 * beside the main thread (a merge pass, or the upper half of the final merge).
 */
import { parentPort } from 'node:worker_threads';
import { LineArena } from './line-arena.js';
import { writeRun } from './run-writer.js';
import { mergeToFile, type RunRange } from './byte-merge.js';

export interface SpillMessage {
  kind: 'spill';
  buf: ArrayBuffer;
  used: number;
  start: Int32Array;
  len: Int32Array;
  count: number;
  path: string;
  unique: boolean;
}

/** Merge these run ranges into `out` (from byte `at` of it, when given). */
export interface MergeMessage {
  kind: 'merge';
  sources: RunRange[];
  out: string;
  unique: boolean;
  at?: number;
}

/** A run written: its arena's memory handed back, or what went wrong. */
export interface SpillDone {
  ok: boolean;
  message?: string;
  buf?: ArrayBuffer;
  start?: Int32Array;
  len?: Int32Array;
}

parentPort!.on('message', (m: SpillMessage | MergeMessage) => {
  try {
    if (m.kind === 'merge') {
      mergeToFile(m.sources, m.out, m.unique, m.at);
      parentPort!.postMessage({ ok: true });
      return;
    }
    writeRun(LineArena.of(Buffer.from(m.buf), m.used, m.start, m.len, m.count), m.path, m.unique);
    // The arena's memory goes back for the next run: fresh pages cost a fault each to fill.
    const back: SpillDone = { ok: true, buf: m.buf, start: m.start, len: m.len };
    parentPort!.postMessage(back, [m.buf, m.start.buffer as ArrayBuffer, m.len.buffer as ArrayBuffer]);
  } catch (err) {
    parentPort!.postMessage({ ok: false, message: (err as Error).message });
  }
});
