/** Worker thread of the local runner: runs one reduce task (one partition) of a registered job. */
import { parentPort, workerData } from 'node:worker_threads';
import { runReduceTask, type ReduceTask } from '../mapreduce/local-runner.js';
import type { Counters } from '../mapreduce/job.js';
import { findJob } from './index.js';

const { jobName, task } = workerData as { jobName: string; task: ReduceTask };
try {
  const job = findJob(jobName);
  if (!job) throw new Error(`no job named ${jobName}`);
  const counters: Counters = {};
  await runReduceTask(job, task, counters);
  parentPort!.postMessage({ counters });
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message });
}
