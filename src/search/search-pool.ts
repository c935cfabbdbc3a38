/**
 * Searches on worker threads: each worker opens its own read-only connections to the index
 * sets and answers queries; the server thread only parses HTTP and renders. A query goes to
 * the worker with the fewest pending, so one slow query (BM25 scores every match of common
 * words) does not hold up the others, and both cores answer.
 *
 * A query that runs past the time budget (nwax.serve.query.timeout) is stopped: better-sqlite3
 * offers no interrupt or progress handler, so its worker is terminated (which ends the SQLite
 * call) and replaced, the queries queued behind it are sent to the new worker, and the caller
 * gets a QueryTimeout (503). No query holds a thread past the budget. A query whose client
 * has gone is stopped the same way.
 */
import { Worker } from 'node:worker_threads';
import type { ReloadResult, SearchOptions, SearchResult } from './searcher.js';
import { NwaxError } from '../util/errors.js';

interface Pending {
  message: { id: number; query: string; opts: SearchOptions } | { id: number; reload: true };
  resolve: (r: SearchResult & ReloadResult) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
}

/** A query whose client went away: stopped, not finished for nobody. */
export class QueryAborted extends NwaxError {
  constructor() {
    super('NWAX_ABORTED', 'the client went away; the query was stopped', 1);
    this.name = 'QueryAborted';
  }
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
  /** Queries stopped because their client went away. */
  aborted = 0;

  /** `timeoutMs`: the time budget of one query (0: none). */
  constructor(private readonly dir: string, threads: number, private readonly timeoutMs = 0) {
    for (let i = 0; i < Math.max(1, threads); i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./search-worker.js', import.meta.url), { workerData: { dir: this.dir } });
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (m: { id: number; result?: SearchResult; reload?: ReloadResult; error?: { message: string; code?: string; exitCode?: number } }) => {
      const p = slot.pending.get(m.id);
      if (!p) return;
      slot.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.error) p.reject(m.error.code?.startsWith('NWAX_') ? new NwaxError(m.error.code, m.error.message, m.error.exitCode) : new Error(m.error.message));
      else p.resolve((m.result ?? m.reload) as SearchResult & ReloadResult);
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

  /** Queries waiting or running on the workers. */
  get queued(): number {
    return this.slots.reduce((n, s) => n + s.pending.size, 0);
  }

  /** Runs a query on the least busy worker; `signal` stops it when the client goes away. */
  search(query: string, opts: SearchOptions, signal?: AbortSignal): Promise<SearchResult> {
    if (this.closed) return Promise.reject(new NwaxError('NWAX_SHUTDOWN', 'the service is shutting down', 1));
    const slot = this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const p: Pending = { message: { id, query, opts }, resolve, reject };
      if (this.timeoutMs > 0) p.timer = setTimeout(() => this.stop(id, new QueryTimeout(this.timeoutMs)), this.timeoutMs);
      signal?.addEventListener('abort', () => this.stop(id, new QueryAborted()), { once: true });
      slot.pending.set(id, p);
      slot.worker.postMessage(p.message);
    });
  }

  /** Every worker looks for new, replaced and removed index sets now; their reports. */
  reload(): Promise<ReloadResult[]> {
    return Promise.all(this.slots.map((slot) => new Promise<ReloadResult>((resolve, reject) => {
      const id = this.next++;
      const p: Pending = { message: { id, reload: true }, resolve, reject };
      slot.pending.set(id, p);
      slot.worker.postMessage(p.message);
    })));
  }

  /** Stops query `id` by replacing its worker; the others queued there go to the new one. */
  private stop(id: number, why: QueryTimeout | QueryAborted): void {
    const slot = this.slots.find((s) => s.pending.has(id));
    const p = slot?.pending.get(id);
    if (!slot || !p || this.closed) return;
    slot.pending.delete(id);
    clearTimeout(p.timer);
    if (why instanceof QueryTimeout) this.timeouts++;
    else this.aborted++;
    p.reject(why);
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

  /** Ends the workers, stopping what still runs; queries still waiting are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.slots) {
      for (const p of s.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new NwaxError('NWAX_SHUTDOWN', 'the service is shutting down', 1));
      }
      s.pending.clear();
    }
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
