/**
 * A job's taskOldSpaceMb (task-threads.ts): its task threads make their heaps with that much
 * old space, so a map that promotes short-lived garbage runs few full collections; a job run
 * after it in the same process, without it, has its threads made as V8 makes them. Real
 * threads and V8's own collector, counted by each map through perf_hooks' gc entries.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runLocal } from '../src/mapreduce/local-runner.js';
import type { Job } from '../src/mapreduce/job.js';
import { ROOT, tempDir } from './helpers.js';

/**
 * A task thread serving one job, `gc-probe`: each line's map keeps a window of 200,000 small
 * objects while it makes 4,000,000 (each outlives two scavenges, then dies in the old space:
 * what a page's text and links do in the import) and counts the full collections it saw.
 */
const PROBE_WORKER = `
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { serveTasks } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'mapreduce', 'task-serve.js')).href)};
const probe = {
  name: 'gc-probe',
  description: 'full collections while promoting garbage',
  input: 'lines',
  linesPerSplit: 1,
  async map(key, value, emit, ctx) {
    let major = 0;
    const seen = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major++;
    });
    seen.observe({ entryTypes: ['gc'] });
    const window = new Array(200000);
    for (let i = 0; i < 4e6; i++) window[i % 200000] = { i, text: 'page text ' + i, links: [i, i + 1] };
    // gc entries are delivered after the collection, on a later turn.
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen.disconnect();
    ctx.count('full collections', major);
    emit(value, window.length);
  },
  reduce(key, values, emit) {
    emit(key, values.length);
  },
};
serveTasks(async (name) => (name === 'gc-probe' ? probe : undefined));
`;

describe("a job's taskOldSpaceMb", () => {
  it("starts its task threads with more old space, and the next job's as V8 starts them", async () => {
    const dir = tempDir();
    const worker = join(dir, 'probe-worker.mjs');
    writeFileSync(worker, PROBE_WORKER);
    const input = join(dir, 'lines');
    writeFileSync(input, 'a\nb\n');
    // The main thread's half of the job: what the runner reads (the threads run the worker's).
    const probe = (taskOldSpaceMb?: number): Job => ({
      name: 'gc-probe',
      description: '',
      input: 'lines',
      linesPerSplit: 1,
      taskOldSpaceMb,
      map() {},
      reduce() {},
    });
    const run = async (job: Job, out: string) =>
      (await runLocal(job, { inputs: [input], output: join(dir, out), numReduces: 1, threads: 2, taskWorker: pathToFileURL(worker) })).counters;
    const before = await run(probe(), 'before');
    const larger = await run(probe(256), 'larger');
    const after = await run(probe(), 'after');
    // Two map tasks each time, one a thread.
    for (const c of [before, larger, after]) expect(c['map input records']).toBe(2);
    expect(before['full collections']).toBeGreaterThanOrEqual(10);
    expect(larger['full collections']).toBeLessThanOrEqual(before['full collections'] / 3);
    expect(after['full collections']).toBeGreaterThanOrEqual(10);
  }, 60_000);
});
