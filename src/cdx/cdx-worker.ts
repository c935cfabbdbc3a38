/** Worker thread of `nwax cdx --jobs N`: indexes one file into a part file. */
import { parentPort, workerData } from 'node:worker_threads';
import { indexFileToPart } from './cdx-job.js';

const { path, part, opts } = workerData as { path: string; part: string; opts: Parameters<typeof indexFileToPart>[2] };
try {
  const result = await indexFileToPart(path, part, opts, (issue) => parentPort!.postMessage({ kind: 'issue', issue }));
  parentPort!.postMessage({ kind: 'done', result });
} catch (err) {
  const e = err as Error & { code?: string };
  parentPort!.postMessage({ kind: 'failed', message: e.message, code: e.code });
}
