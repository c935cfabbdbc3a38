/** Flags and run body shared by the commands that read CDX lines and sort them (dedup-cdx, revisits, sort-cdx). */
import { Flags } from '@oclif/core';
import type { NwaxCommand } from './base.js';

export const sortFlags = {
  memory: Flags.string({ description: 'Memory budget of the sort, e.g. 512M (default: property nwax.sort.memory, 256M).' }),
  output: Flags.string({ char: 'o', description: 'Write to this file (written aside, renamed when complete) instead of stdout.' }),
};

export async function runSortCommand(
  cmd: NwaxCommand & { configurationFor(d: string[] | undefined): ReturnType<NwaxCommand['configurationFor']> },
  job: 'dedup-cdx' | 'revisits' | 'sort-cdx',
  files: string[],
  flags: { memory?: string; output?: string; define?: string[]; merge?: boolean; unique?: boolean },
): Promise<void> {
  const conf = await cmd.configurationFor(flags.define);
  const { runDedupJob } = await import('../cdx/dedup-job.js');
  process.exitCode = await runDedupJob(job, files, {
    memory: flags.memory ?? conf.getString('nwax.sort.memory'),
    tmpDir: conf.getString('nwax.sort.tmpdir') || undefined,
    output: flags.output,
    merge: flags.merge ?? false,
    unique: flags.unique ?? false,
    say: (m) => cmd.sayLine(m),
  });
}
