/** A search worker of the service: its own Searcher over the crawl directory. */
import { parentPort, workerData } from 'node:worker_threads';
import { Searcher, type SearchOptions } from './searcher.js';

const searcher = new Searcher((workerData as { dir: string }).dir);
parentPort!.on('message', (m: { id: number; query: string; opts: SearchOptions }) => {
  try {
    parentPort!.postMessage({ id: m.id, result: searcher.search(m.query, m.opts) });
  } catch (err) {
    const e = err as { message: string; code?: unknown; exitCode?: unknown };
    parentPort!.postMessage({ id: m.id, error: { message: e.message, code: typeof e.code === 'string' ? e.code : undefined, exitCode: typeof e.exitCode === 'number' ? e.exitCode : undefined } });
  }
});
