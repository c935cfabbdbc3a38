/**
 * The job registry: every job that the local runner and `nwax job NAME map|reduce` (Hadoop
 * Streaming) can run, by name. The mapreduce module never imports a job; jobs register here.
 * Each job's module is loaded when the job is asked for: a task thread of updatedb loaded every
 * job (the import's parsers, the index's SQLite), 72 ms against 9 ms, in each of the four
 * threads a job starts, and again in the command's own thread.
 */
import type { Job } from '../mapreduce/job.js';

const LOADERS: Record<string, () => Promise<Job>> = {
  'cdx-url-count': async () => (await import('./cdx-url-count.js')).cdxUrlCount,
  import: async () => (await import('../segment/import-job.js')).importJob,
  updatedb: async () => (await import('../crawl/updatedb-job.js')).updatedbJob,
  invertlinks: async () => (await import('../crawl/invertlinks-job.js')).invertlinksJob,
  index: async () => (await import('../index/index-job.js')).indexJob,
  inject: async () => (await import('../crawl/inject-job.js')).injectJob,
  generate: async () => (await import('../crawl/generate-job.js')).generateJob,
  parse: async () => (await import('../crawl/parse-job.js')).parseJob,
  dates: async () => (await import('../index/dates-job.js')).datesJob,
};

/** The registered jobs' names. */
export const JOB_NAMES: readonly string[] = Object.keys(LOADERS);

/** The job named `name`, its module loaded; undefined for no such job. */
export async function findJob(name: string): Promise<Job | undefined> {
  const load = Object.hasOwn(LOADERS, name) ? LOADERS[name] : undefined;
  if (!load) return undefined;
  const job = await load();
  // The registry's name is the job's (a job run under another name would name its tasks wrong).
  if (job.name !== name) throw new Error(`job registry: ${name} loads job ${job.name}`);
  return job;
}
