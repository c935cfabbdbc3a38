/**
 * Worker thread: the SHA-256 of a byte range of a file (a stored WACZ entry), on a core of its
 * own while the main thread reads the same bytes for their records.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { path, start, length } = workerData as { path: string; start: number; length: number };
const h = createHash('sha256');
if (length > 0) for await (const c of createReadStream(path, { start, end: start + length - 1, highWaterMark: 1 << 20 })) h.update(c as Buffer);
parentPort!.postMessage(h.digest('hex'));
