/**
 * A task thread's side of the local runner: runs the map and reduce tasks the runner sends,
 * one at a time, for as long as the runner keeps the thread, with the jobs `findJob` names.
 * src/jobs/task-worker.ts serves the registered jobs; a test may serve jobs of its own.
 */
import { parentPort } from 'node:worker_threads';
import { runMapTask, type MapTask } from './map-task.js';
import { runReduceTask, type ReduceTask } from './reduce-task.js';
import { setWarningSink, type Counters, type Job } from './job.js';

export function serveTasks(findJob: (name: string) => Promise<Job | undefined>): void {
  // Warnings travel on the same port as the task's result, so none is lost or comes after it
  // (a worker's own stderr is delivered asynchronously, and could be cut off at its end).
  setWarningSink((message) => parentPort!.postMessage({ warn: message }));

  parentPort!.on('message', ({ jobName, task, close, preload }: { jobName: string; task: MapTask | ReduceTask; close?: boolean; preload?: string }) => {
    // The end of the phase: the thread exits on its own, its stderr flushed.
    if (close) return parentPort!.close();
    // Started ahead of its job (warmTaskThreads): its module loads while the command plans. A
    // failure here is the first task's to report.
    if (preload !== undefined) return void findJob(preload).catch(() => {});
    void (async () => {
      try {
        const job = await findJob(jobName);
        if (!job) throw new Error(`no job named ${jobName}`);
        const counters: Counters = {};
        if ('split' in task) await runMapTask(job, task, counters);
        else await runReduceTask(job, task, counters);
        parentPort!.postMessage({ counters });
      } catch (err) {
        // The error's code and exit status cross the thread too: a bad input stays a bad input.
        const e = err as { message: string; code?: unknown; exitCode?: unknown };
        parentPort!.postMessage({
          error: e.message,
          code: typeof e.code === 'string' ? e.code : undefined,
          exitCode: typeof e.exitCode === 'number' ? e.exitCode : undefined,
        });
      }
    })();
  });
}
