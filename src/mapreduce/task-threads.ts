/**
 * The local runner's task threads: worker threads that run map and reduce tasks one after
 * another, started once per job (or ahead of it, while the command plans: warmTaskThreads) and
 * kept from the map phase to the reduce, with a heap sized from the task's buffer. `runTasks`
 * hands a phase's tasks out to them, or runs them on this thread.
 */
import { Worker } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import type { Counters } from './job.js';
import type { MapTask } from './map-task.js';
import type { ReduceTask } from './reduce-task.js';
import { NwaxError } from '../util/errors.js';

/**
 * Heap per byte of a map task's buffer. The buffer itself is a line arena, off the heap; what
 * the heap holds in proportion to it is the garbage of making the records and of combining a
 * spill's repeated keys (group-and-count: 13 s either way; 460 MB peak at 1, 540 MB at
 * 3, the factor of the string buffer).
 */
const HEAP_PER_BUFFERED_BYTE = 1;

/** Task threads started with a job's taskOldSpaceMb whose heaps are not made yet. */
let oldSpacePending = 0;

/**
 * Has the threads started from now on make their heaps with `mb` MB of old space, until
 * `made` is called once for each. V8's flag is process-wide and read when a heap is made (the
 * heaps already made keep theirs), so it is set for these threads and put back to V8's own (0)
 * once each is online: a job after them in this process (the crawl's index after its parse)
 * starts as V8 would start it.
 */
function withOldSpace(mb: number): () => void {
  if (oldSpacePending++ === 0) setFlagsFromString(`--initial-old-space-size=${mb}`);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--oldSpacePending === 0) setFlagsFromString('--initial-old-space-size=0');
  };
}

/**
 * A worker thread that runs tasks one after another: started once per thread of a phase, so
 * that a job of many small tasks does not pay a thread start and its module loading (a third
 * of a second for the import's parsers) per task.
 */
class TaskThread {
  private readonly worker: Worker;
  private pending: { resolve: (c: Counters) => void; reject: (e: Error) => void } | undefined;

  constructor(script: URL, heapMb: number, oldSpaceMb = 0) {
    const made = oldSpaceMb > 0 ? withOldSpace(oldSpaceMb) : undefined;
    try {
      this.worker = new Worker(script, { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    } catch (err) {
      made?.();
      throw err;
    }
    if (made) {
      this.worker.once('online', made);
      this.worker.once('exit', made);
    }
    this.worker.on('message', (m: { counters?: Counters; error?: string; code?: string; exitCode?: number; warn?: string }) => {
      if (m.warn !== undefined) {
        process.stderr.write(`${m.warn}\n`);
        return;
      }
      const p = this.pending;
      this.pending = undefined;
      if (m.error === undefined) p?.resolve(m.counters!);
      else p?.reject(m.code?.startsWith('NWAX_') ? new NwaxError(m.code, m.error, m.exitCode) : new Error(m.error));
    });
    const fail = (err: Error) => {
      const p = this.pending;
      this.pending = undefined;
      p?.reject(err);
    };
    this.worker.on('error', (err: Error & { code?: string }) =>
      fail(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new NwaxError('NWAX_MEMORY', `a task ran out of its ${heapMb} MB heap (${err.message}); give the job more memory (--memory) or fewer threads`)
          : err,
      ),
    );
    this.worker.on('exit', (code) => {
      this.exited = true;
      fail(new Error(`task worker exited (${code})`));
    });
  }

  /** The thread has ended (a task that died takes its thread with it). */
  private exited = false;

  /**
   * Has the thread load job `jobName`'s module while the command still plans the job; until a
   * job takes it (`adopt`), the thread does not keep the process alive.
   */
  preload(jobName: string): void {
    this.worker.unref();
    this.worker.postMessage({ preload: jobName });
  }

  adopt(): void {
    this.worker.ref();
  }

  /** Ends a started thread that no job took. */
  terminate(): void {
    void this.worker.terminate();
  }

  get alive(): boolean {
    return !this.exited;
  }

  run(jobName: string, task: MapTask | ReduceTask): Promise<Counters> {
    if (this.exited) return Promise.reject(new Error('task worker exited'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage({ jobName, task });
    });
  }

  /** Lets the thread end on its own (anything it still writes to stderr is delivered). */
  close(): Promise<void> {
    // A thread that died already will not say 'exit' again.
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => void this.worker.terminate(), 10_000);
      this.worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.postMessage({ close: true });
    });
  }
}

/**
 * Runs `tasks` on `threads` task threads of the pool (or on this thread), each thread taking
 * the next task when it is done with one. When a task fails no new task
 * starts, the ones under way finish, and the error of the first failed task in input order is
 * thrown: which error a run reports does not depend on which thread was quicker.
 */
export async function runTasks<T extends MapTask | ReduceTask>(
  tasks: T[],
  threads: number,
  here: (t: T, c: Counters) => Promise<void>,
  done: (c: Counters) => void,
  pool?: TaskThreads,
): Promise<void> {
  let next = 0;
  const failed: { index: number; error: unknown }[] = [];
  const runner = async (r: number) => {
    while (next < tasks.length && failed.length === 0) {
      const index = next++;
      const task = tasks[index];
      const c: Counters = {};
      try {
        if (pool) Object.assign(c, await pool.thread(r).run(pool.jobName, task));
        else await here(task, c);
      } catch (error) {
        failed.push({ index, error });
        return;
      }
      done(c);
    }
  };
  await Promise.all(Array.from({ length: pool ? Math.min(threads, tasks.length) : 1 }, (_, r) => runner(r)));
  if (failed.length) throw failed.reduce((a, b) => (b.index < a.index ? b : a)).error;
}

/**
 * A job's task threads, started as a phase first needs each and kept for the next phase: the
 * reduce runs on the threads the map phase started (each start and its module loading cost
 * 40-60 ms, on the way from one phase to the next). The heap limit is the larger of the two
 * phases'. They end with the job, their stderr flushed.
 */
export class TaskThreads {
  private readonly threads: TaskThread[] = [];

  constructor(
    private readonly script: URL,
    readonly jobName: string,
    private readonly heapMb: number,
    private readonly oldSpaceMb = 0,
  ) {
    const started = warm;
    warm = undefined;
    if (!started) return;
    if (started.key !== poolKey(script, jobName, heapMb, oldSpaceMb)) {
      for (const t of started.threads) t.terminate();
      return;
    }
    // (A thread that died while it waited is left out; the job starts another in its place.)
    for (const thread of started.threads.filter((t) => t.alive)) {
      thread.adopt();
      this.threads.push(thread);
    }
  }

  thread(r: number): TaskThread {
    return (this.threads[r] ??= new TaskThread(this.script, this.heapMb, this.oldSpaceMb));
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t?.close()));
  }
}

/** A map task's heap, capped near what its buffer's records cost on the heap plus room for
 * what the map itself holds (a page being parsed), so V8 collects early instead of growing
 * the heap far past the budget. */
function mapHeapMb(taskBudget: number): number {
  return Math.ceil((taskBudget * HEAP_PER_BUFFERED_BYTE) / 2 ** 20) + 256;
}

/** A reduce streams: a fixed heap. */
const REDUCE_HEAP_MB = 512;

/** The heap limit of a job's task threads: the larger of its two phases'. */
export function poolHeapMb(budget: number, threads: number): number {
  return Math.max(mapHeapMb(Math.floor(budget / threads)), REDUCE_HEAP_MB);
}

function poolKey(script: URL, jobName: string, heapMb: number, oldSpaceMb: number): string {
  return `${script.href} ${jobName} ${heapMb} ${oldSpaceMb}`;
}

/** Task threads that warmTaskThreads started, until runLocal takes them. */
let warm: { key: string; threads: TaskThread[] } | undefined;

/**
 * Starts `count` task threads (at most `threads`) of a job that runLocal will run with
 * `threads` threads and a sort budget of `sortMemory` bytes, each loading the job's module,
 * while the command still reads its inputs and plans the job. A thread's start and module
 * loading (about 0.1 s, more for the import's parsers) then overlap the command's own instead
 * of following it. runLocal takes them when its job, threads and budget are these, and starts
 * any others it needs as before; otherwise they end. Until then they do not keep the process
 * alive. `oldSpaceMb` is the job's taskOldSpaceMb. Returns how many threads were started.
 */
export function warmTaskThreads(script: URL, jobName: string, threads: number, sortMemory: number, count = threads, oldSpaceMb = 0): number {
  const n = Math.min(threads, count);
  if (threads <= 1 || n < 1) return 0;
  const heapMb = poolHeapMb(sortMemory, threads);
  const key = poolKey(script, jobName, heapMb, oldSpaceMb);
  if (warm?.key === key) return 0;
  // Threads warmed for a job that never ran (its command failed first) make way.
  for (const t of warm?.threads ?? []) t.terminate();
  const started = Array.from({ length: n }, () => new TaskThread(script, heapMb, oldSpaceMb));
  for (const t of started) t.preload(jobName);
  warm = { key, threads: started };
  return n;
}
