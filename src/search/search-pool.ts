/**
 * Searches on worker threads: each worker opens its own read-only connections to the index
 * sets and answers queries; the server thread only parses HTTP and renders. A query goes to
 * the worker with the fewest pending, so one slow query (BM25 scores every match of common
 * words) does not hold up the others, and both cores answer.
 */
import { Worker } from 'node:worker_threads';
import type { SearchOptions, SearchResult } from './searcher.js';
import { NwaxError } from '../util/errors.js';

interface Pending {
  resolve: (r: SearchResult) => void;
  reject: (e: Error) => void;
}

export class SearchPool {
  private readonly workers: { worker: Worker; pending: Map<number, Pending> }[] = [];
  private next = 1;

  constructor(dir: string, threads: number) {
    for (let i = 0; i < Math.max(1, threads); i++) {
      const worker = new Worker(new URL('./search-worker.js', import.meta.url), { workerData: { dir } });
      const pending = new Map<number, Pending>();
      worker.on('message', (m: { id: number; result?: SearchResult; error?: { message: string; code?: string; exitCode?: number } }) => {
        const p = pending.get(m.id);
        if (!p) return;
        pending.delete(m.id);
        if (m.error) p.reject(m.error.code?.startsWith('NWAX_') ? new NwaxError(m.error.code, m.error.message, m.error.exitCode) : new Error(m.error.message));
        else p.resolve(m.result!);
      });
      worker.on('error', (err) => {
        for (const p of pending.values()) p.reject(err);
        pending.clear();
      });
      this.workers.push({ worker, pending });
    }
  }

  search(query: string, opts: SearchOptions): Promise<SearchResult> {
    const w = this.workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      w.pending.set(id, { resolve, reject });
      w.worker.postMessage({ id, query, opts });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}
