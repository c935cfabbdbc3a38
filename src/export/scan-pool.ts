/**
 * Records scanned on worker threads (record-scan.ts: the CDX entry, and an HTML page's
 * resources). Inflating and reading every page's markup is most of an export's work; the
 * thread that reads the index, copies the records and writes the package hands it out and
 * takes the answers back in the order it asks for them. A record's bytes are transferred,
 * not copied, both ways.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { RecordScan, ScanOptions } from './record-scan.js';
import type { ScanReply, ScanRequest } from './record-scan-worker.js';

interface Waiting {
  resolve: (r: { bytes: Buffer; scan: RecordScan }) => void;
  reject: (e: Error) => void;
}

export class ScanPool {
  private readonly workers: Worker[] = [];
  private readonly load: number[] = [];
  private readonly waiting = new Map<number, Waiting & { worker: number }>();
  private next = 0;

  /**
   * One thread fewer than the cores: the thread that hands out the records is as busy as a
   * scanner, and libuv's threads deflate pages.jsonl beside them (bench corpus, 2 cores:
   * 1 scanner 7.0 s, 2 scanners 8.1-8.9 s, 3 scanners 9.0-9.4 s; with the native resource
   * scan, 1 scanner 3.6 s, 2 scanners 4.2 s).
   */
  constructor(size = availableParallelism() - 1) {
    for (let i = 0; i < Math.max(1, size); i++) {
      const w = new Worker(new URL('./record-scan-worker.js', import.meta.url));
      w.on('message', (m: ScanReply) => this.settle(i, m));
      w.on('error', (err) => this.fail(err));
      this.workers.push(w);
      this.load.push(0);
    }
  }

  /** `bytes` (one record, given up: it comes back in the answer) scanned on the least busy thread. */
  scan(bytes: Buffer, opts: ScanOptions): Promise<{ bytes: Buffer; scan: RecordScan }> {
    const id = this.next++;
    const worker = this.load.indexOf(Math.min(...this.load));
    this.load[worker]++;
    // A Buffer may sit in a shared pool; only a buffer of its own can be transferred.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : Buffer.from(bytes);
    const request: ScanRequest = { id, bytes: own, ...opts };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, worker });
      this.workers[worker].postMessage(request, [own.buffer as ArrayBuffer]);
    });
  }

  private settle(worker: number, m: ScanReply): void {
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    this.load[worker]--;
    // A scan that threw is nwax's own fault, not the input's (the scan skips damaged records):
    // a plain Error, which the command reports as an internal error (exit 70).
    if ('error' in m) w.reject(new Error(`record scan: ${m.error}`));
    else w.resolve({ bytes: Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength), scan: m.scan });
  }

  private fail(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
