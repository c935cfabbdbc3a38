/**
 * A reduce under Hadoop Streaming writes the dataset the local runner writes, not text lines:
 * its partition's record file (`part-NNNNN.gz` and its hidden block index), a segment's named
 * outputs (`content/part-NNNNN.gz`, ...), or the index job's SQLite part, as task side-effect
 * files in the task attempt's work output directory (`mapreduce_task_output_dir`). Hadoop's
 * FileOutputCommitter commits that directory with the task and merges it into the job's output
 * when the job succeeds, so a failed or speculative attempt leaves nothing behind, and the job
 * runs with `-lazyOutput` so that streaming's own (empty) text part is never created.
 *
 * On the local file system (`file:`, Hadoop's local mode) the files are written in place; on
 * a cluster's file system (`hdfs:`, `s3a:`, ...) they are written to a local temporary
 * directory and copied in with `hadoop fs -put` when the partition is complete
 * (`nwax.hadoop.task.output.put`: `auto`, or `always` to copy on a local file system too).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkedKey, newContext, type Counters, type Job } from './job.js';
import { Grouper } from './grouper.js';
import { partSink } from './job-output.js';
import { NwaxError } from '../util/errors.js';

/** The task's work output directory when this process is a Hadoop reduce task, else undefined. */
export function hadoopTaskOutputDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.mapreduce_task_output_dir || env.mapred_work_output_dir || undefined;
}

/** A `file:` URI or plain path as a local path; undefined for another file system's URI. */
function localPath(dir: string): string | undefined {
  if (dir.startsWith('file:')) return fileURLToPath(new URL(dir.startsWith('file://') ? dir : `file://${dir.slice(5)}`));
  return /^[a-z][a-z0-9+.-]*:/i.test(dir) ? undefined : dir;
}

/** The reduce of a streaming task into side-effect files: push lines, then `close()`. */
export interface SideEffectReduce {
  push(line: string): void;
  close(): void;
}

export function sideEffectReducer(job: Job, counters: Counters, properties: readonly string[], env: NodeJS.ProcessEnv = process.env): SideEffectReduce {
  const workDir = hadoopTaskOutputDir(env)!;
  const partition = Number(env.mapreduce_task_partition ?? env.mapred_task_partition);
  if (!Number.isInteger(partition) || partition < 0) {
    throw new NwaxError('NWAX_HADOOP', `job ${job.name} reduce: no task partition in the environment (mapreduce_task_partition): not a Hadoop reduce task?`);
  }
  const ctx = newContext(counters, properties);
  const put = ctx.conf.getString('nwax.hadoop.task.output.put');
  if (put !== 'auto' && put !== 'always') throw new NwaxError('NWAX_CONF', `nwax.hadoop.task.output.put: "${put}" is not auto or always`);
  const direct = put === 'auto' ? localPath(workDir) : undefined;
  const dir = direct ?? mkdtempSync(join(tmpdir(), 'nwax-task-'));
  mkdirSync(dir, { recursive: true });
  const sink = partSink(job, dir, partition, ctx, {
    blockSize: ctx.conf.getBytes('nwax.recordfile.block.size'),
    level: ctx.conf.getInteger('nwax.recordfile.gzip.level', 0, 9),
  });
  const grouper = new Grouper(
    job,
    (key, value) => {
      ctx.count('reduce output records');
      sink.write(checkedKey(job, key), value);
    },
    ctx,
  );
  return {
    push: (line) => grouper.push(line),
    close() {
      grouper.flush();
      sink.close();
      if (direct) return;
      try {
        copyIn(dir, workDir, ctx.conf.getString('nwax.hadoop.command'));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Copies everything in `local` (hidden block indexes included) into `remote` with `hadoop fs`. */
function copyIn(local: string, remote: string, hadoop: string): void {
  const entries = readdirSync(local).map((n) => join(local, n));
  if (entries.length === 0) return;
  for (const args of [
    ['fs', '-mkdir', '-p', remote],
    ['fs', '-put', '-f', ...entries, remote],
  ]) {
    const r = spawnSync(hadoop, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.error || r.status !== 0) {
      throw new NwaxError('NWAX_HADOOP', `${hadoop} ${args.slice(0, 2).join(' ')} ... ${remote}: ${r.error ? r.error.message : `exit status ${r.status}`}`);
    }
  }
}
