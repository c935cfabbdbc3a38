import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class JobCommand extends NwaxCommand {
  static override summary = 'Run a MapReduce job locally, as a Hadoop Streaming task, or on Hadoop.';
  static override description = `\`nwax job --list\` names the jobs. \`nwax job NAME map\`, \`combine\` and \`reduce\` are the Hadoop \
Streaming entry points: lines on stdin, \`key TAB value-json\` lines on stdout (reduce reads them sorted, as streaming \
delivers them). \`nwax job NAME run -o DIR INPUT...\` runs the job on this machine into a dataset; with \
\`--engine hadoop\` it prints the \`hadoop jar hadoop-streaming.jar\` command instead (and runs it with --run).`;

  static override examples = [
    '<%= config.bin %> job --list',
    '<%= config.bin %> job cdx-url-count run -o counts --reduces 2 all.cdx',
    'cat all.cdx | <%= config.bin %> job cdx-url-count map | LC_ALL=C sort | <%= config.bin %> job cdx-url-count reduce',
    '<%= config.bin %> job cdx-url-count run --engine hadoop -o /user/me/counts /user/me/cdx',
  ];

  static override strict = false;
  static override args = {
    name: Args.string({ description: 'The job (see --list)' }),
    action: Args.string({ description: 'map, combine, reduce (streaming tasks) or run', options: ['map', 'combine', 'reduce', 'run'] }),
  };

  static override flags = {
    list: Flags.boolean({ description: 'List the jobs.', default: false }),
    output: Flags.string({ char: 'o', description: 'run: the output dataset (a directory of part-NNNNN files).' }),
    reduces: Flags.integer({ description: 'run: number of reduce partitions (default: the job\'s, or 1).', min: 1 }),
    memory: Flags.string({ description: 'run: map output buffered before a spill (default: property mapreduce.task.io.sort.mb).' }),
    engine: Flags.string({ description: 'run: where to run.', options: ['local', 'hadoop'], default: 'local' }),
    run: Flags.boolean({ description: 'With --engine hadoop: run the command (hadoop must be on the PATH), not just print it.', default: false }),
    force: Flags.boolean({ description: 'run: take over a stale lock on the output dataset.', default: false }),
    threads: Flags.integer({ description: 'run: map tasks at once on worker threads (default: property mapreduce.local.threads; 0 = one per core).', min: 0 }),
  };

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(JobCommand);
    const conf = await this.configurationFor(flags.define);
    const { JOBS, findJob } = await import('../jobs/index.js');
    if (flags.list || !args.name) {
      for (const j of Object.values(JOBS)) process.stdout.write(`${j.name.padEnd(20)} ${j.description}\n`);
      return;
    }
    const job = findJob(args.name);
    if (!job) throw Object.assign(new Error(`no job named ${args.name} (nwax job --list)`), { name: 'UsageError', code: 'NWAX_USAGE', exitCode: 2 });
    const inputs = (argv as string[]).slice(2);
    const { runJobAction } = await import('../mapreduce/job-cli.js');
    process.exitCode = await runJobAction(job, args.action ?? 'run', inputs, {
      output: flags.output,
      reduces: flags.reduces ?? job.numReduces ?? conf.getNumber('mapreduce.job.reduces'),
      memory: flags.memory ?? conf.getString('mapreduce.task.io.sort.mb'),
      engine: flags.engine as 'local' | 'hadoop',
      runHadoop: flags.run,
      force: flags.force,
      threads: flags.threads ?? (conf.getNumber('mapreduce.local.threads') || (await import('node:os')).availableParallelism()),
      taskWorker: new URL('../jobs/task-worker.js', import.meta.url),
      splitMin: conf.getBytes('mapreduce.input.fileinputformat.split.minsize'),
      mergeFactor: conf.getNumber('mapreduce.task.io.sort.factor'),
      splitMax: conf.getBytes('mapreduce.input.fileinputformat.split.maxsize'),
      blockSize: conf.getBytes('nwax.recordfile.block.size'),
      gzipLevel: conf.getNumber('nwax.recordfile.gzip.level'),
      say: (m) => this.sayLine(m),
    });
  }
}
