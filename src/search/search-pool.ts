/**
 * Searches on worker threads: each worker opens its own read-only connections to the index
 * sets and answers queries; the server thread only parses HTTP and renders. A query goes to
 * the worker with the fewest pending, so one slow query (BM25 scores every match of common
 * words) does not hold up the others, and both cores answer.
 *
 * A query that runs past the time budget (nwax.serve.query.timeout) is stopped: better-sqlite3
 * offers no interrupt or progress handler, so its worker is terminated (which ends the SQLite
 * call) and replaced, the queries queued behind it are sent to the new worker, and the caller
 * gets a QueryTimeout (503). No query holds a thread past the budget.
 */
import { Worker } from 'node:worker_threads';
import type { SearchOptions, SearchResult } from './searcher.js';
import { NwaxError } from '../util/errors.js';

interface Pending {
  message: { id: number; query: string; opts: SearchOptions };
  resolve: (r: SearchResult) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
}

/** A query stopped by the time budget. */
export class QueryTimeout extends NwaxError {
  constructor(ms: number) {
    super('NWAX_TIMEOUT', `the query ran past ${ms} ms and was stopped; narrow it (fewer common words, site:, date:)`, 1);
    this.name = 'QueryTimeout';
  }
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

export class SearchPool {
  private readonly slots: Slot[] = [];
  private next = 1;
  private closed = false;
  /** Queries stopped by the time budget so far. */
  timeouts = 0;

  /** `timeoutMs`: the time budget of one query (0: none). */
  constructor(private readonly dir: string, threads: number, private readonly timeoutMs = 0) {
    for (let i = 0; i < Math.max(1, threads); i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./search-worker.js', import.meta.url), { workerData: { dir: this.dir } });
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (m: { id: number; result?: SearchResult; error?: { message: string; code?: string; exitCode?: number } }) => {
      const p = slot.pending.get(m.id);
      if (!p) return;
      slot.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.error) p.reject(m.error.code?.startsWith('NWAX_') ? new NwaxError(m.error.code, m.error.message, m.error.exitCode) : new Error(m.error.message));
      else p.resolve(m.result!);
    });
    worker.on('error', (err) => {
      for (const p of slot.pending.values()) {
        clearTimeout(p.timer);
        p.reject(err);
      }
      slot.pending.clear();
    });
    return slot;
  }

  search(query: string, opts: SearchOptions): Promise<SearchResult> {
    const slot = this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const p: Pending = { message: { id, query, opts }, resolve, reject };
      if (this.timeoutMs > 0) p.timer = setTimeout(() => this.stop(id), this.timeoutMs);
      slot.pending.set(id, p);
      slot.worker.postMessage(p.message);
    });
  }

  /** Stops query `id` by replacing its worker; the others queued there go to the new one. */
  private stop(id: number): void {
    const slot = this.slots.find((s) => s.pending.has(id));
    const p = slot?.pending.get(id);
    if (!slot || !p || this.closed) return;
    slot.pending.delete(id);
    this.timeouts++;
    p.reject(new QueryTimeout(this.timeoutMs));
    const i = this.slots.indexOf(slot);
    const fresh = this.spawn();
    this.slots[i] = fresh;
    slot.worker.removeAllListeners('message');
    void slot.worker.terminate();
    for (const [qid, other] of slot.pending) {
      fresh.pending.set(qid, other);
      fresh.worker.postMessage(other.message);
    }
    slot.pending.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.slots) for (const p of s.pending.values()) clearTimeout(p.timer);
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
