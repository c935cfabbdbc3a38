/** The flags and properties every command that runs a MapReduce job shares (job, import, ...). */
import { Flags } from '@oclif/core';
import type { Configuration } from '../conf/config.js';
import type { JobActionOptions } from '../mapreduce/job-cli.js';
import { NwaxError } from '../util/errors.js';

export const jobFlags = {
  reduces: Flags.integer({ description: "Number of reduce partitions (default: the job's, or property mapreduce.job.reduces).", min: 1 }),
  memory: Flags.string({ description: 'Map output buffered before a spill (default: property mapreduce.task.io.sort.mb).' }),
  engine: Flags.string({ description: 'Where to run: this machine, or print the Hadoop Streaming command.', options: ['local', 'hadoop'], default: 'local' }),
  run: Flags.boolean({ description: 'With --engine hadoop: run the command (hadoop must be on the PATH), not just print it.', default: false }),
  force: Flags.boolean({ description: 'Take over a stale lock on the output dataset.', default: false }),
  threads: Flags.integer({ description: 'Map tasks at once on worker threads (default: property mapreduce.local.threads; 0 = one per core).', min: 0 }),
};

export interface JobFlagValues {
  reduces?: number;
  memory?: string;
  engine: string;
  run: boolean;
  force: boolean;
  threads?: number;
  define?: string[];
}

const TASK_WORKER = new URL('../jobs/task-worker.js', import.meta.url);

/** Threads of a job run on this machine: --threads, else mapreduce.local.threads, else one per core. */
async function localThreads(conf: Configuration, flags: JobFlagValues): Promise<number> {
  return flags.threads || conf.getNumber('mapreduce.local.threads') || (await import('node:os')).availableParallelism();
}

/**
 * Starts job `name`'s task threads (task-threads.ts's warmTaskThreads) before the command
 * reads its inputs, so that their start overlaps the command's: for a command that will run
 * the job on this machine with the options jobActionOptions gives and `reduces` reduces. As
 * many threads as its reduce phase will use are started (the map phase's count is not known
 * yet); a job of one reduce on a machine of many cores starts none ahead.
 */
export async function warmJob(name: string, conf: Configuration, flags: JobFlagValues, reduces: number): Promise<void> {
  if (flags.engine !== 'local' || reduces < 2) return;
  const { parseByteSize } = await import('../conf/config.js');
  const { warmTaskThreads } = await import('../mapreduce/task-threads.js');
  const { findJob } = await import('../jobs/registry.js');
  const memory = flags.memory ?? conf.getString('mapreduce.task.io.sort.mb');
  const job = await findJob(name);
  warmTaskThreads(TASK_WORKER, name, await localThreads(conf, flags), parseByteSize(memory, 'mapreduce.task.io.sort.mb'), reduces, job?.taskOldSpaceMb);
}

export async function jobActionOptions(
  conf: Configuration,
  flags: JobFlagValues,
  jobReduces: number | undefined,
  say: (m: string) => void,
): Promise<JobActionOptions> {
  return {
    reduces: flags.reduces ?? jobReduces ?? conf.getNumber('mapreduce.job.reduces'),
    memory: flags.memory ?? conf.getString('mapreduce.task.io.sort.mb'),
    engine: flags.engine as 'local' | 'hadoop',
    runHadoop: flags.run,
    force: flags.force,
    threads: await localThreads(conf, flags),
    taskWorker: TASK_WORKER,
    splitMin: conf.getBytes('mapreduce.input.fileinputformat.split.minsize'),
    splitMax: conf.getBytes('mapreduce.input.fileinputformat.split.maxsize'),
    mergeFactor: conf.getNumber('mapreduce.task.io.sort.factor'),
    blockSize: conf.getBytes('nwax.recordfile.block.size'),
    gzipLevel: conf.getInteger('nwax.recordfile.gzip.level', 0, 9),
    properties: flags.define ?? [],
    say,
  };
}

/** Runs registered job `name` over `inputs` into `output` (the pipeline commands: updatedb, invertlinks, index). */
export async function runRegisteredJob(
  name: string,
  inputs: string[],
  output: string,
  conf: Configuration,
  flags: JobFlagValues,
  say: (m: string) => void,
  extra: Partial<JobActionOptions> = {},
): Promise<number> {
  const { findJob } = await import('../jobs/registry.js');
  const { runJobAction } = await import('../mapreduce/job-cli.js');
  const job = (await findJob(name))!;
  return runJobAction(job, 'run', inputs, { ...(await jobActionOptions(conf, flags, job.numReduces, say)), ...extra, output });
}

/**
 * Runs a job over a database and segments (updatedb, invertlinks, index): their parts on this
 * machine, or on the cluster the directories by name, never looked at from here.
 */
export async function runDatasetJob(
  name: string,
  db: string | undefined,
  segments: string[],
  segmentParts: string[],
  output: string,
  conf: Configuration,
  flags: JobFlagValues,
  say: (m: string) => void,
  more: { dbs?: string[] } = {},
): Promise<number> {
  // A bad setting is named before any input is looked at.
  const reduces = await pipelineReduces(conf, flags, say);
  await warmJob(name, conf, flags, reduces);
  const { datasetInputs, clusterInputs } = await import('./dataset-inputs.js');
  if (flags.engine === 'hadoop') {
    const dirs = clusterInputs([...(more.dbs ?? []), ...(db ? [db] : [])], segments, segmentParts);
    return runRegisteredJob(name, dirs.inputs, output, conf, flags, say, { required: dirs.required });
  }
  const inputs: string[] = [];
  for (const d of more.dbs ?? []) inputs.push(...(await datasetInputs(d, [], [])));
  inputs.push(...(await datasetInputs(db, segments, segmentParts)));
  return runRegisteredJob(name, inputs, output, conf, { ...flags, reduces }, say);
}

/**
 * The reduces of a pipeline job (import, updatedb, invertlinks, index) run on this machine:
 * `--reduces`, else nwax.local.pipeline.reduces, else one per thread (the index: 17.4 s with
 * one, 12.2 s with two on two cores, on the bench corpus). A bad setting is a named error.
 */
export async function pipelineReduces(conf: Configuration, flags: JobFlagValues, say: (m: string) => void): Promise<number> {
  const perThread = conf.getNumber('nwax.local.pipeline.reduces');
  if (!Number.isInteger(perThread) || perThread < 0)
    throw new NwaxError('NWAX_CONF', `nwax.local.pipeline.reduces must be 0 (one per thread) or a positive whole number, got ${perThread}`);
  return flags.reduces ?? (perThread || (await jobActionOptions(conf, flags, undefined, say)).threads);
}
