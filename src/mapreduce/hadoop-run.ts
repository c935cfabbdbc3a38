/**
 * A job on Hadoop (`--engine hadoop`): the streaming command and the `hadoop fs` commands that
 * put its output in place, printed, and with `--run` run. As the local runner does, the job
 * writes aside (`OUTPUT.tmp-STAMP`: Hadoop refuses an output directory that exists) and the
 * new dataset replaces the old one only when the job succeeded (the old one moved to
 * `OUTPUT.old` for the moment of the swap, as Nutch's CrawlDb.install does). Paths are the
 * cluster's: nothing here looks at this machine's disk. The job's `nwax` counters, which its
 * tasks report as streaming counters, come back from Hadoop's final report into the same
 * one-line summary the local runner prints.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { Counters, Job } from './job.js';
import { hadoopCommand, shellLine } from './hadoop.js';
import { failedTaskReport } from './hadoop-task-log.js';
import { formatCounts } from '../util/progress.js';
import { NwaxError, UsageError } from '../util/errors.js';

export interface HadoopRunOptions {
  inputs: string[];
  output: string;
  numReduces: number;
  files: string[];
  properties: string[];
  /** Run the commands (else print them only). */
  run: boolean;
  /** The hadoop command (property nwax.hadoop.command). */
  hadoop: string;
  /** Paths that must exist on the cluster before the job starts (segments), checked with --run. */
  required?: string[];
  exitCode?: (counters: Counters) => number;
  say: (m: string) => void;
}

/** The `hadoop fs` commands that put a finished job's output in place of the old dataset. */
export function installCommands(hadoop: string, tmp: string, output: string): string[][] {
  const old = `${output}.old`;
  return [
    [hadoop, 'fs', '-rm', '-r', '-f', old],
    [hadoop, 'fs', '-test', '-e', output],
    [hadoop, 'fs', '-mv', output, old],
    [hadoop, 'fs', '-mv', tmp, output],
    [hadoop, 'fs', '-rm', '-r', '-f', old],
  ];
}

/**
 * The counters of group `nwax` in Hadoop's final job report (`\tnwax` then `\t\tNAME=VALUE`
 * lines), as the tasks reported them with `reporter:counter:nwax,NAME,N`.
 */
export function parseCounters(report: string): Counters {
  const counters: Counters = {};
  const lines = report.split('\n');
  const start = lines.lastIndexOf('\tnwax');
  if (start < 0) return counters;
  for (const line of lines.slice(start + 1)) {
    const m = /^\t\t([^=]+)=(\d+)$/.exec(line);
    if (!m) break;
    counters[m[1]] = Number(m[2]);
  }
  return counters;
}

/** The hadoop command could not be started. */
function notStarted(hadoop: string, err: Error): UsageError {
  return new UsageError(`${hadoop}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not on the PATH (property nwax.hadoop.command)' : err.message}`);
}

function hadoopFs(hadoop: string, args: string[]): number {
  const r = spawnSync(hadoop, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.error) throw notStarted(hadoop, r.error);
  return r.status ?? 1;
}

/** Runs the streaming job, its stderr shown as it comes and its tail kept for the counters. */
function streamingJob(cmd: string[]): Promise<{ status: number; report: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'inherit', 'pipe'] });
    let tail = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      process.stderr.write(d);
      tail = (tail + d).slice(-256 * 1024);
    });
    child.on('error', (err) => reject(notStarted(cmd[0], err)));
    child.on('close', (code) => resolve({ status: code ?? 1, report: tail }));
  });
}

export async function runOnHadoop(job: Job, opts: HadoopRunOptions): Promise<number> {
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const tmp = `${opts.output}.tmp-${stamp}`;
  const cmd = hadoopCommand(job, {
    inputs: opts.inputs,
    output: tmp,
    numReduces: opts.numReduces,
    files: opts.files,
    properties: opts.properties,
    hadoop: opts.hadoop,
  });
  const install = installCommands(opts.hadoop, tmp, opts.output);
  const [rmOld, test, moveOld, moveNew, rmAgain] = install.map(shellLine);
  process.stdout.write(`${shellLine(cmd)} \\\n  && ${rmOld} && { ! ${test} || ${moveOld}; } && ${moveNew} && ${rmAgain}\n`);
  if (!opts.run) return 0;
  // No installation says where the jar is: the name alone (a launcher that finds its own jar,
  // as the local-mode one does, takes any; a real Hadoop says it is not a valid JAR).
  if (cmd[2].startsWith('$HADOOP_HOME/')) cmd[2] = 'hadoop-streaming.jar';
  for (const path of opts.required ?? []) {
    if (hadoopFs(opts.hadoop, ['fs', '-test', '-d', path]) !== 0) throw new NwaxError('NWAX_INPUT', `${path}: no such directory on the cluster's file system`);
  }
  const started = Date.now();
  const { status, report } = await streamingJob(cmd);
  if (status !== 0) {
    hadoopFs(opts.hadoop, ['fs', '-rm', '-r', '-f', tmp]);
    // On a cluster the task's own words are on its node, not in Hadoop's report.
    const said = await failedTaskReport(report);
    throw new NwaxError('NWAX_HADOOP', `nwax-${job.name} failed on Hadoop (exit status ${status}); ${opts.output} is unchanged${said}`, status);
  }
  const run = (args: string[]) => hadoopFs(opts.hadoop, args.slice(1));
  if (run(install[0]) !== 0 || (run(install[1]) === 0 && run(install[2]) !== 0) || run(install[3]) !== 0) {
    throw new NwaxError('NWAX_HADOOP', `${job.name}: could not move ${tmp} to ${opts.output} (hadoop fs -mv failed; the job's output is in ${tmp})`);
  }
  run(install[4]);
  const counters = parseCounters(report);
  opts.say(
    `${job.name}: on Hadoop, ${opts.numReduces} reduce${opts.numReduces === 1 ? '' : 's'}, output in ${opts.output} in ${((Date.now() - started) / 1000).toFixed(1)} s; ${formatCounts(counters)}`,
  );
  return opts.exitCode?.(counters) ?? 0;
}
