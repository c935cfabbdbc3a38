/**
 * The job registry: every job that the local runner and `nwax job NAME map|reduce` (Hadoop
 * Streaming) can run, by name. The mapreduce module never imports a job; jobs register here.
 */
import type { Job } from '../mapreduce/job.js';
import { cdxUrlCount } from './cdx-url-count.js';
import { importJob } from '../segment/import-job.js';
import { updatedbJob } from '../crawl/updatedb-job.js';
import { invertlinksJob } from '../crawl/linkdb-job.js';
import { indexJob } from '../index/index-job.js';
import { injectJob } from '../crawl/inject-job.js';
import { generateJob } from '../crawl/generate-job.js';
import { parseJob } from '../crawl/parse-job.js';
import { datesJob } from '../index/dates-job.js';

export const JOBS: Record<string, Job> = {
  [cdxUrlCount.name]: cdxUrlCount,
  [importJob.name]: importJob,
  [updatedbJob.name]: updatedbJob,
  [invertlinksJob.name]: invertlinksJob,
  [indexJob.name]: indexJob,
  [injectJob.name]: injectJob,
  [generateJob.name]: generateJob,
  [parseJob.name]: parseJob,
  [datesJob.name]: datesJob,
};

export function findJob(name: string): Job | undefined {
  return JOBS[name];
}
