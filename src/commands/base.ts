/**
 * What every nwax command shares: `-D name=value` properties over conf/nwax-default.json and
 * conf/nwax-site.json, and errors printed as one line naming the command, without a stack
 * (set NWAX_DEBUG=1 for one), with the error's exit code.
 */
import { Command, Flags } from '@oclif/core';
import type { Configuration } from '../conf/config.js';

export abstract class NwaxCommand extends Command {
  static override baseFlags = {
    define: Flags.string({
      char: 'D',
      multiple: true,
      // One value per -D, so `-D a=b FILE` leaves FILE an argument.
      multipleNonGreedy: true,
      helpValue: 'name=value',
      description: 'Set a configuration property for this run (overrides conf/nwax-site.json); repeatable. See `nwax conf`.',
    }),
  };

  async configurationFor(defines: readonly string[] | undefined): Promise<Configuration> {
    const { Configuration } = await import('../conf/config.js');
    const conf = Configuration.load(defines ?? []);
    // How packages are read is the same for every reader in this process (archive/wacz.ts).
    if (conf.getBoolean('nwax.wacz.lenient')) (await import('../archive/wacz.js')).readPackagesLeniently(true);
    return conf;
  }

  /** One line on stderr: `nwax <command>: message`. */
  sayLine(message: string): void {
    process.stderr.write(`nwax ${this.id?.replace(/:/g, ' ')}: ${message}\n`);
  }

  protected override async catch(err: Error & { exitCode?: number; code?: string; oclif?: { exit?: number } }): Promise<unknown> {
    if (err.oclif) return super.catch(err);
    const known = err.name?.endsWith('Error') && typeof err.code === 'string' && err.code.startsWith('NWAX_');
    this.sayLine(known ? err.message : `internal error: ${err.message}`);
    if (process.env.NWAX_DEBUG) process.stderr.write(`${err.stack}\n`);
    process.exit(known ? (err.exitCode ?? 1) : 70);
  }
}
