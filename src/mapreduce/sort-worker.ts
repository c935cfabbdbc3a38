/**
 * The spill worker of the external sort: sorts one run (a line arena handed over, not copied)
 * and writes it to its file, on a core of its own while the main thread reads on.
 */
import { parentPort } from 'node:worker_threads';
import { LineArena, writeRun } from './line-arena.js';

export interface SpillMessage {
  buf: ArrayBuffer;
  used: number;
  start: Int32Array;
  len: Int32Array;
  count: number;
  path: string;
  unique: boolean;
}

parentPort!.on('message', (m: SpillMessage) => {
  try {
    writeRun(LineArena.of(Buffer.from(m.buf), m.used, m.start, m.len, m.count), m.path, m.unique);
    parentPort!.postMessage({ ok: true });
  } catch (err) {
    parentPort!.postMessage({ ok: false, message: (err as Error).message });
  }
});
