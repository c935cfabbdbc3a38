/**
 * The spill worker of the external sort: sorts one run of lines (byte order, unique when
 * asked) and writes it to its file, on a core of its own while the main thread reads on.
 */
import { parentPort } from 'node:worker_threads';
import { openSync, writeSync, closeSync } from 'node:fs';
import { sortByteOrder } from './byte-order.js';
import { dedupeSorted } from './run-utils.js';

parentPort!.on('message', ({ lines, path, unique }: { lines: string[]; path: string; unique: boolean }) => {
  try {
    let sorted = sortByteOrder(lines);
    if (unique) sorted = dedupeSorted(sorted);
    const fd = openSync(path, 'w');
    for (let i = 0; i < sorted.length; i += 65536) writeSync(fd, `${sorted.slice(i, i + 65536).join('\n')}\n`);
    closeSync(fd);
    parentPort!.postMessage({ ok: true });
  } catch (err) {
    parentPort!.postMessage({ ok: false, message: (err as Error).message });
  }
});
