/** Writes one ZipNum shard on a core of its own (zipnum-writer.ts sends the task). */
import { parentPort, workerData } from 'node:worker_threads';
import { writeShard, type ShardTask } from './zipnum-shard.js';

writeShard(workerData as ShardTask).then(
  (r) => parentPort!.postMessage({ ok: true, result: r }),
  (err: Error & { code?: string }) => parentPort!.postMessage({ ok: false, message: err.message, code: err.code }),
);
