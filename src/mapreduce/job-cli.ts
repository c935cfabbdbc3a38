/** What `nwax job NAME ACTION` does: the streaming tasks on stdin/stdout, or a whole run. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Counters, Job } from './job.js';
import { mapper, reducer, combiner } from './streaming.js';
import { lineBatches } from './line-reader.js';
import { runLocal } from './local-runner.js';
import { hadoopTaskOutputDir, sideEffectReducer } from './task-output.js';
import { LineOutput } from '../util/output.js';
import { parseByteSize, defaultConfDir } from '../conf/config.js';
import { Progress, formatCounts } from '../util/progress.js';
import { InputError, UsageError, describeFsError } from '../util/errors.js';

export interface JobActionOptions {
  output?: string;
  reduces: number;
  memory: string;
  engine: 'local' | 'hadoop';
  runHadoop: boolean;
  force: boolean;
  threads: number;
  splitMin?: number;
  mergeFactor?: number;
  splitMax?: number;
  blockSize?: number;
  gzipLevel?: number;
  taskWorker?: URL;
  /** The -D overrides of the command line: tasks load the same configuration. */
  properties?: string[];
  /** The exit status from the counters (a job that skipped damaged input exits 3, say); default 0. */
  exitCode?: (counters: Counters) => number;
  /** Local runs: the last writes into the output before it is renamed into place (LocalRunOptions.commitJob). */
  commitJob?: (dir: string, counters: Counters) => Promise<void>;
  /** With --engine hadoop: files shipped to the tasks (-files) besides the site configuration. */
  files?: string[];
  /** With --engine hadoop: directories that must exist on the cluster (segments), checked with --run. */
  required?: string[];
  say: (m: string) => void;
}

/**
 * A local input as the files a job reads: a file is itself; a directory is every file in it
 * (sorted), leaving out hidden files and Hadoop's `_SUCCESS`, `_logs` and `.crc` side files,
 * as FileInputFormat does; a directory inside is an error (one level, as Hadoop without
 * recursion).
 */
export function localInputFiles(input: string): string[] {
  if (input === '-') return [input];
  let st;
  try {
    st = statSync(input);
  } catch (err) {
    throw new InputError(describeFsError(input, err as NodeJS.ErrnoException));
  }
  if (st.isFile()) return [input];
  if (!st.isDirectory()) throw new InputError(`${input}: not a regular file or a directory; a job reads files`);
  const files: string[] = [];
  for (const name of readdirSync(input).sort()) {
    if (name.startsWith('.') || name.startsWith('_')) continue;
    const path = join(input, name);
    if (!statSync(path).isFile())
      throw new InputError(`${path}: a directory inside the input directory ${input}; give the datasets themselves (a job reads one level, as Hadoop does)`);
    files.push(path);
  }
  if (files.length === 0) throw new InputError(`${input}: a directory with no input files in it`);
  return files;
}

/** A streaming task's counters, as Hadoop Streaming reads them from stderr. */
function reportCounters(counters: Counters): void {
  for (const [k, v] of Object.entries(counters)) process.stderr.write(`reporter:counter:nwax,${k},${v}\n`);
}

export async function runJobAction(job: Job, action: string, inputs: string[], opts: JobActionOptions): Promise<number> {
  const counters: Counters = {};
  if (action === 'reduce' && hadoopTaskOutputDir()) {
    // A reduce task under Hadoop: the job's own parts, as side-effect files of the task.
    const task = sideEffectReducer(job, counters, opts.properties ?? []);
    for await (const batch of lineBatches(inputs[0] ?? '-')) for (const line of batch) task.push(line);
    task.close();
    reportCounters(counters);
    return 0;
  }
  if (action === 'map' || action === 'reduce' || action === 'combine') {
    // A streaming task: stdin to stdout. Counters go to stderr as Hadoop Streaming reads them.
    const out = new LineOutput(undefined);
    const write = (l: string) => out.write(l);
    const props = opts.properties ?? [];
    const task =
      action === 'map'
        ? { push: mapper(job, write, counters, props), flush: () => {} }
        : action === 'reduce'
          ? reducer(job, write, counters, props)
          : combiner(job, write, counters, props).grouper;
    for await (const batch of lineBatches(inputs[0] ?? '-')) {
      for (const line of batch) {
        const pending = task.push(line);
        if (pending) await pending;
      }
      await out.flush();
    }
    task.flush();
    await out.close();
    reportCounters(counters);
    return 0;
  }
  if (action === 'write') {
    // Hadoop Streaming's output (reduced lines, a part per partition) in the job's own layout.
    if (inputs.length === 0) throw new UsageError(`nwax job ${job.name} write: give the part files the streaming job wrote`);
    if (!opts.output) throw new UsageError(`nwax job ${job.name} write: -o OUTPUT is needed`);
    const { writeStreamedOutput } = await import('./job-output.js');
    const c = await writeStreamedOutput(job, inputs, opts.output, {
      force: opts.force,
      recordFile: { blockSize: opts.blockSize, level: opts.gzipLevel },
      properties: opts.properties,
    });
    opts.say(`${job.name}: ${inputs.length} part${inputs.length === 1 ? '' : 's'} written to ${opts.output}; ${formatCounts(c)}`);
    return 0;
  }
  if (inputs.length === 0) throw new UsageError(`nwax job ${job.name} run: no input files`);
  if (!opts.output) throw new UsageError(`nwax job ${job.name} run: -o OUTPUT (the output dataset) is needed`);
  if (opts.engine === 'hadoop') {
    const { runOnHadoop } = await import('./hadoop-run.js');
    const { Configuration } = await import('../conf/config.js');
    const site = join(defaultConfDir(), 'nwax-site.json');
    return runOnHadoop(job, {
      inputs,
      output: opts.output,
      numReduces: opts.reduces,
      properties: opts.properties ?? [],
      files: [...(existsSync(site) ? [site] : []), ...(opts.files ?? [])],
      run: opts.runHadoop,
      hadoop: Configuration.load(opts.properties ?? []).getString('nwax.hadoop.command'),
      required: opts.required,
      exitCode: opts.exitCode,
      say: opts.say,
    });
  }
  // Local inputs must be readable files, or directories of them read as Hadoop's FileInputFormat
  // reads one (Hadoop inputs are the cluster's paths, not checked here).
  inputs = inputs.flatMap(localInputFiles);
  const started = Date.now();
  const progress = new Progress(`nwax job ${job.name}`);
  const r = await runLocal(job, {
    onProgress: (c) => {
      progress.records = c['map input records'] ?? 0;
      progress.lines = c['map output records'] ?? 0;
    },
    inputs,
    output: opts.output,
    numReduces: opts.reduces,
    sortMemory: parseByteSize(opts.memory, 'mapreduce.task.io.sort.mb'),
    force: opts.force,
    threads: opts.threads,
    taskWorker: opts.taskWorker,
    splitMin: opts.splitMin,
    splitMax: opts.splitMax,
    mergeFactor: opts.mergeFactor,
    recordFile: { blockSize: opts.blockSize, level: opts.gzipLevel },
    properties: opts.properties,
    commitJob: opts.commitJob,
  });
  progress.stop();
  opts.say(
    `${job.name}: ${r.mapTasks} map task${r.mapTasks === 1 ? '' : 's'}, ${r.parts} part${r.parts === 1 ? '' : 's'} in ${opts.output} in ${((Date.now() - started) / 1000).toFixed(1)} s (map ${r.mapSeconds.toFixed(1)} s, shuffle and reduce ${r.reduceSeconds.toFixed(1)} s); ${formatCounts(r.counters)}`,
  );
  return opts.exitCode?.(r.counters) ?? 0;
}
