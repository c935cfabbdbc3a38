/** Worker thread of the local runner: runs one map task of a registered job. */
import { parentPort, workerData } from 'node:worker_threads';
import { runMapTask, type MapTask } from '../mapreduce/local-runner.js';
import type { Counters } from '../mapreduce/job.js';
import { findJob } from './index.js';

const { jobName, task } = workerData as { jobName: string; task: MapTask };
try {
  const job = findJob(jobName);
  if (!job) throw new Error(`no job named ${jobName}`);
  const counters: Counters = {};
  await runMapTask(job, task, counters);
  parentPort!.postMessage({ counters });
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message });
}
