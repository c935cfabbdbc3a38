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
import type { ReloadResult, SearchOptions, SearchResult } from '../search/types.js';
import { NwaxError } from '../util/errors.js';
import type { AccessSettings } from '../access/policy.js';

interface Pending {
  message: { id: number; query: string; opts: SearchOptions; user: string | undefined } | { id: number; reload: true };
  resolve: (r: SearchResult & ReloadResult) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
  /** Its client went away: answered already (499), its result is dropped when it comes. */
  abandoned?: boolean;
}

/**
 * How long a query whose client went away may still run before its worker is replaced. A new
 * worker opens every index set and starts with cold caches (about a second at a million
 * documents), far more than most queries cost: a client that gives up on a 10 ms query (a
 * load generator stopping, a user paging on) must not cost that.
 */
const ABANDON_GRACE_MS = 1000;

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
  /** Whether the worker has opened the indexes and built the public's view (it says so once). */
  ready: boolean;
}

export class SearchPool {
  private readonly slots: Slot[] = [];
  private next = 1;
  private closed = false;
  /** Queries stopped by the time budget so far. */
  timeouts = 0;
  /** Queries whose client went away (stopped if they ran on past ABANDON_GRACE_MS). */
  aborted = 0;

  /** `timeoutMs`: the time budget of one query (0: none). */
  constructor(
    private readonly dir: string,
    threads: number,
    private readonly timeoutMs = 0,
    private readonly access?: AccessSettings,
  ) {
    for (let i = 0; i < Math.max(1, threads); i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./search-worker.js', import.meta.url), { workerData: { dir: this.dir, access: this.access } });
    const slot: Slot = { worker, pending: new Map(), ready: false };
    worker.on(
      'message',
      (m: { id: number; ready?: true; result?: SearchResult; reload?: ReloadResult; error?: { message: string; code?: string; exitCode?: number } }) => {
        if (m.ready) {
          slot.ready = true;
          this.dispatch();
          return;
        }
        const p = slot.pending.get(m.id);
        if (!p) return;
        slot.pending.delete(m.id);
        clearTimeout(p.timer);
        if (m.error) p.reject(m.error.code?.startsWith('NWAX_') ? new NwaxError(m.error.code, m.error.message, m.error.exitCode) : new Error(m.error.message));
        else p.resolve((m.result ?? m.reload) as SearchResult & ReloadResult);
        this.dispatch();
      },
    );
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
    return this.waiting.size + this.slots.reduce((n, s) => n + s.pending.size, 0);
  }

  /**
   * Runs a query on the first worker that is free; `signal` stops it when the client goes away.
   * Queries wait in one queue, not one per worker: a query handed to a busy worker would wait
   * behind whatever runs there while the other worker idles (the service's p99 was 2.6x the
   * in-process p99 at 40% load with per-worker queues). The worker answers from `user`'s view.
   */
  search(user: string | undefined, query: string, opts: SearchOptions, signal?: AbortSignal): Promise<SearchResult> {
    if (this.closed) return Promise.reject(new NwaxError('NWAX_SHUTDOWN', 'the service is shutting down', 1));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const p: Pending = { message: { id, query, opts, user }, resolve, reject };
      if (this.timeoutMs > 0) p.timer = setTimeout(() => this.stop(id, new QueryTimeout(this.timeoutMs)), this.timeoutMs);
      signal?.addEventListener('abort', () => this.abandon(id), { once: true });
      this.waiting.set(id, p);
      this.dispatch();
    });
  }

  /** Queries not yet handed to a worker, oldest first. */
  private readonly waiting = new Map<number, Pending>();

  /** Hands waiting queries to the workers that have nothing to do. */
  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.waiting.size === 0) return;
      // A worker still starting (a million access rules to read, the public's view to build)
      // is given nothing: its start would count against a query's time, and stopping the query
      // would start another worker, as slow.
      if (!slot.ready || slot.pending.size > 0) continue;
      const [id, p] = this.waiting.entries().next().value!;
      this.waiting.delete(id);
      slot.pending.set(id, p);
      // The budget is the query's running time from here (its wait is bounded by the same).
      if (this.timeoutMs > 0) {
        clearTimeout(p.timer);
        p.timer = setTimeout(() => this.stop(id, new QueryTimeout(this.timeoutMs)), this.timeoutMs);
      }
      slot.worker.postMessage(p.message);
    }
  }

  /** Every worker looks for new, replaced and removed index sets now; their reports. */
  reload(): Promise<ReloadResult[]> {
    return Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<ReloadResult>((resolve, reject) => {
            const id = this.next++;
            const p: Pending = { message: { id, reload: true }, resolve, reject };
            slot.pending.set(id, p);
            slot.worker.postMessage(p.message);
          }),
      ),
    );
  }

  /** The client of query `id` went away: answered now; the query is stopped only if it runs on. */
  private abandon(id: number): void {
    if (this.closed) return;
    const queued = this.waiting.get(id);
    if (queued) {
      // Not started: it never will.
      this.waiting.delete(id);
      clearTimeout(queued.timer);
      this.aborted++;
      queued.reject(new QueryAborted());
      return;
    }
    const p = this.slots.find((s) => s.pending.has(id))?.pending.get(id);
    if (!p || p.abandoned) return;
    p.abandoned = true;
    this.aborted++;
    p.reject(new QueryAborted());
    clearTimeout(p.timer);
    p.timer = setTimeout(() => this.stop(id), ABANDON_GRACE_MS);
  }

  /**
   * Stops query `id` by replacing its worker (`why`: the time budget; none for an abandoned
   * query, answered already); the others queued there go to the new one.
   */
  private stop(id: number, why?: QueryTimeout): void {
    const queued = this.waiting.get(id);
    if (queued && !this.closed) {
      // Timed out while waiting for a worker: nothing runs to stop.
      this.waiting.delete(id);
      this.timeouts++;
      queued.reject(why ?? new QueryTimeout(this.timeoutMs));
      return;
    }
    const slot = this.slots.find((s) => s.pending.has(id));
    const p = slot?.pending.get(id);
    if (!slot || !p || this.closed) return;
    slot.pending.delete(id);
    clearTimeout(p.timer);
    if (why) {
      this.timeouts++;
      p.reject(why);
    }
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
    this.dispatch();
  }

  /** Ends the workers, stopping what still runs; queries still waiting are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.waiting.values()) {
      clearTimeout(p.timer);
      p.reject(new NwaxError('NWAX_SHUTDOWN', 'the service is shutting down', 1));
    }
    this.waiting.clear();
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
