import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { jobActionOptions, jobFlags } from './job-options.js';

export default class JobCommand extends NwaxCommand {
  static override summary = 'Run a MapReduce job locally, as a Hadoop Streaming task, or on Hadoop.';
  static override description = `\`nwax job --list\` names the jobs. \`nwax job NAME map\`, \`combine\` and \`reduce\` are the Hadoop \
Streaming entry points: lines on stdin, \`key TAB value-json\` lines on stdout (reduce reads them sorted, as streaming \
delivers them). \`nwax job NAME run -o DIR INPUT...\` runs the job on this machine into a dataset; with \
\`--engine hadoop\` it prints the \`hadoop jar hadoop-streaming.jar\` command instead (and runs it with --run). \
\`nwax job NAME write -o DIR part-*\` turns what such a job wrote (reduced lines, copied from HDFS) into the layout the \
local runner writes: a segment's datasets for import, SQLite indexes for index.`;

  static override examples = [
    '<%= config.bin %> job --list',
    '<%= config.bin %> job cdx-url-count run -o counts --reduces 2 all.cdx',
    'cat all.cdx | <%= config.bin %> job cdx-url-count map | LC_ALL=C sort | <%= config.bin %> job cdx-url-count reduce',
    '<%= config.bin %> job cdx-url-count run --engine hadoop -o /user/me/counts /user/me/cdx',
  ];

  static override strict = false;
  static override args = {
    name: Args.string({ description: 'The job (see --list)' }),
    action: Args.string({
      description: "map, combine, reduce (streaming tasks), run, or write (a streaming job's output parts into the job's own layout)",
      options: ['map', 'combine', 'reduce', 'run', 'write'],
    }),
  };

  static override flags = {
    list: Flags.boolean({ description: 'List the jobs.', default: false }),
    output: Flags.string({ char: 'o', description: 'run: the output dataset (a directory of part-NNNNN files).' }),
    ...jobFlags,
  };

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(JobCommand);
    const conf = await this.configurationFor(flags.define);
    const { JOB_NAMES, findJob } = await import('../jobs/registry.js');
    if (flags.list || !args.name) {
      for (const name of JOB_NAMES) process.stdout.write(`${name.padEnd(20)} ${(await findJob(name))!.description}\n`);
      return;
    }
    const job = await findJob(args.name);
    if (!job) throw Object.assign(new Error(`no job named ${args.name} (nwax job --list)`), { name: 'UsageError', code: 'NWAX_USAGE', exitCode: 2 });
    const inputs = (argv as string[]).slice(2);
    const { runJobAction } = await import('../mapreduce/job-cli.js');
    process.exitCode = await runJobAction(job, args.action ?? 'run', inputs, {
      ...(await jobActionOptions(conf, flags, job.numReduces, (m) => this.sayLine(m))),
      output: flags.output,
    });
  }
}
