/**
 * The Hadoop Streaming command line for a job: generic options (-D, -files) first, then the
 * streaming options, as hadoop-streaming.jar requires. Mapper, combiner and reducer are the
 * same entry points the local runner uses (`nwax job NAME map|combine|reduce`); the default
 * partitioner (HashPartitioner on the Text key before the first tab) is the one the local
 * runner reproduces. The reduce writes the local runner's layout itself (task-output.ts).
 */
import type { Job } from './job.js';
import { shippedPath, streamingJar } from './hadoop-install.js';

export interface HadoopOptions {
  inputs: string[];
  output: string;
  numReduces: number;
  /** The streaming jar; default $HADOOP_STREAMING_JAR or the one under $HADOOP_HOME (hadoop-install.ts). */
  jar?: string;
  /** Files shipped to the task nodes (-files), e.g. conf/nwax-site.json. */
  files?: string[];
  /** The nwax command on the task nodes. */
  nwax?: string;
  /** -D overrides the tasks run with (passed on their command lines). */
  properties?: readonly string[];
  /** The hadoop command; default `hadoop`. */
  hadoop?: string;
}

export function hadoopCommand(job: Job, opts: HadoopOptions): string[] {
  // Where no installation says, the printed command names the jar as distributions do.
  const jar = opts.jar ?? streamingJar() ?? '$HADOOP_HOME/share/hadoop/tools/lib/hadoop-streaming-*.jar';
  const nwax = opts.nwax ?? 'nwax';
  const args = [
    opts.hadoop ?? 'hadoop',
    'jar',
    jar,
    '-D',
    `mapreduce.job.name=nwax-${job.name}`,
    // Streaming's defaults (key = the text before the first tab) are what the local runner uses.
    '-D',
    `mapreduce.job.reduces=${opts.numReduces}`,
  ];
  // Shipped files land in each task's working directory, where nwax then looks for its conf.
  if (opts.files?.length) args.push('-files', opts.files.map((f) => shippedPath(f)).join(','), '-cmdenv', 'NWAX_CONF_DIR=.');
  if (job.linesPerSplit) {
    // One map per N manifest lines (NLineInputFormat); the mapper gets the line without its offset key.
    args.splice(3, 0, '-D', `mapreduce.input.lineinputformat.linespermap=${job.linesPerSplit}`, '-D', 'stream.map.input.ignoreKey=true');
  }
  for (const i of opts.inputs) args.push('-input', i);
  if (job.linesPerSplit) args.push('-inputformat', 'org.apache.hadoop.mapred.lib.NLineInputFormat');
  const task = (action: string) => shellLine([nwax, 'job', job.name, action, ...(opts.properties ?? []).flatMap((p) => ['-D', p])]);
  args.push('-output', opts.output, '-mapper', task('map'));
  if (job.combine) args.push('-combiner', task('combine'));
  // The reduce writes the job's own parts as task side-effect files (task-output.ts) and
  // nothing on stdout: -lazyOutput keeps streaming from creating empty text parts beside them.
  args.push('-reducer', task('reduce'), '-lazyOutput');
  return args;
}

/** The command as a shell line (the jar's placeholder left for the shell to expand, glob and all). */
export function shellLine(args: string[]): string {
  return args
    .map((a) => (/^[\w@%+=:,./$-]+$/.test(a) || /^\$HADOOP_HOME\/[\w./-]*\*[\w.-]*$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`).replace(/\t/g, '\\t')}'`))
    .join(' ');
}
