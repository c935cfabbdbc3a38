/**
 * Politeness: one queue per host (or IP, or domain: fetcher.queue.mode); at most
 * fetcher.threads.per.queue fetches in flight per queue; with one thread per queue the next
 * fetch to a queue starts fetcher.server.delay (or the host's longer robots Crawl-delay) after
 * the last one ended, with more, fetcher.server.min.delay. Queues are served round robin, so
 * one large host does not hold the others back.
 */
export interface QueueItem {
  url: string;
  queueId: string;
}

interface Queue<T> {
  items: T[];
  inFlight: number;
  /** Earliest start of the next fetch, ms since the epoch. */
  nextStart: number;
  /** The host's Crawl-delay, ms, when longer than the configured delay. */
  crawlDelay: number;
}

export class FetchQueues<T extends QueueItem> {
  private readonly queues = new Map<string, Queue<T>>();
  private wake: (() => void) | undefined;
  private order: string[] = [];
  private cursor = 0;

  constructor(
    private readonly threadsPerQueue: number,
    private readonly delayMs: number,
    private readonly minDelayMs: number,
  ) {}

  add(item: T): void {
    let q = this.queues.get(item.queueId);
    if (!q) {
      this.queues.set(item.queueId, (q = { items: [], inFlight: 0, nextStart: 0, crawlDelay: 0 }));
      this.order.push(item.queueId);
    }
    q.items.push(item);
    this.notify();
  }

  setCrawlDelay(queueId: string, seconds: number): void {
    const q = this.queues.get(queueId);
    if (q) q.crawlDelay = Math.max(q.crawlDelay, seconds * 1000);
  }

  /** The gap between two fetches of a queue, ms. */
  delayFor(queueId: string): number {
    const q = this.queues.get(queueId);
    return this.threadsPerQueue === 1 ? Math.max(this.delayMs, q?.crawlDelay ?? 0) : this.minDelayMs;
  }

  /** Drops what is left in a queue (a host deferred for this round); returns it. */
  drain(queueId: string): T[] {
    const q = this.queues.get(queueId);
    if (!q) return [];
    const left = q.items;
    q.items = [];
    return left;
  }

  get pending(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.items.length + q.inFlight;
    return n;
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** The next item some queue may fetch now; waits for one; undefined when all is done. */
  async take(): Promise<T | undefined> {
    for (;;) {
      const now = Date.now();
      let soonest = Infinity;
      let busy = false;
      for (let i = 0; i < this.order.length; i++) {
        const id = this.order[(this.cursor + i) % this.order.length];
        const q = this.queues.get(id)!;
        if (q.inFlight > 0) busy = true;
        if (q.items.length === 0 || q.inFlight >= this.threadsPerQueue) continue;
        if (q.nextStart <= now) {
          this.cursor = (this.cursor + i + 1) % this.order.length;
          q.inFlight++;
          // With several threads per queue the gap is between starts.
          if (this.threadsPerQueue > 1) q.nextStart = now + this.minDelayMs;
          return q.items.shift()!;
        }
        soonest = Math.min(soonest, q.nextStart);
      }
      if (!busy && soonest === Infinity) return undefined;
      await new Promise<void>((resolve) => {
        const timer = soonest < Infinity ? setTimeout(resolve, Math.max(1, soonest - now)) : undefined;
        const prev = this.wake;
        this.wake = () => {
          if (timer) clearTimeout(timer);
          prev?.();
          resolve();
        };
      });
    }
  }

  /** A fetch of the queue ended: the next may start after the delay. */
  finish(item: T): void {
    const q = this.queues.get(item.queueId)!;
    q.inFlight--;
    if (this.threadsPerQueue === 1) q.nextStart = Date.now() + this.delayFor(item.queueId);
    this.notify();
  }
}
