import { Args } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Conf extends NwaxCommand {
  static override summary = 'List the configuration properties: value in force, default and description.';
  static override description =
    'Defaults come from conf/nwax-default.json, overridden by conf/nwax-site.json ($NWAX_CONF_DIR) and -D name=value. Then, on stderr, which native kernels run (NWAX_NATIVE: 0 for none, or a list such as html,sort).';
  static override examples = ['<%= config.bin %> conf', '<%= config.bin %> conf nwax.sort.memory -D nwax.sort.memory=1G'];
  static override strict = false;
  static override args = { names: Args.string({ description: 'Properties to show (default all)' }) };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Conf);
    const conf = await this.configurationFor(flags.define);
    const names = (argv as string[]).length ? (argv as string[]) : Object.keys(conf.definitions).sort();
    for (const n of names) {
      const def = conf.definitions[n];
      const v = conf.get(n);
      const note = def && String(def.value) !== String(v) ? ` (default ${def.value})` : '';
      process.stdout.write(`${n} = ${v}${note}\n    ${def?.description ?? ''}\n`);
    }
    // Which twin each kernel runs here (the environment's NWAX_NATIVE, not a property).
    const { KERNELS, nativeKernels } = await import('../native/addon.js');
    const native = nativeKernels();
    const js = KERNELS.filter((k) => !native.includes(k));
    this.sayLine(
      `native kernels: ${native.join(', ') || 'none'}${js.length ? `; in JavaScript: ${js.join(', ')}` : ''}${process.env.NWAX_NATIVE ? ` (NWAX_NATIVE=${process.env.NWAX_NATIVE})` : ''}`,
    );
  }
}
