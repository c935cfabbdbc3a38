import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';

export default class Cdx extends NwaxCommand {
  static override summary = 'Index ARC/WARC files as CDX (CDX11, CDX9) or CDXJ.';
  static override description = `One line per capture: response, revisit, resource and metadata records (as cdxj-indexer), \
or every record with --all-records. Keys are SURT (as pywb and the surt library) or classic massaged URLs. \
Damaged records are reported with file and offset and skipped; exit status 0 when all was read, 3 when records \
were skipped, 1 on an unreadable input (or the first damage with --strict).`;

  static override examples = [
    '<%= config.bin %> cdx crawl/*.warc.gz old/*.arc.gz > all.cdx',
    '<%= config.bin %> cdx --format cdxj foo.warc.gz',
    '<%= config.bin %> cdx --sort --jobs 2 -o all.cdx a.warc.gz b.warc.gz',
    'cat foo.warc.gz | <%= config.bin %> cdx -',
  ];

  static override strict = false;
  static override args = {
    files: Args.string({ description: 'ARC/WARC files (gzipped per record or plain); - for stdin', required: true }),
  };

  static override flags = {
    format: Flags.string({
      char: 'f',
      options: ['cdx11', 'cdx9', 'cdxj'],
      description: 'Output format (default: property nwax.cdx.format, cdx11).',
    }),
    'all-records': Flags.boolean({ description: 'Index every record (warcinfo, request, ...), not only captures.', default: false }),
    canonicalizer: Flags.string({
      options: ['surt', 'massaged'],
      description: 'URL key: SURT or the classic Wayback massaged URL (default: property nwax.cdx.canonicalizer, surt).',
    }),
    sort: Flags.boolean({ description: 'Sort the output in byte order (as LC_ALL=C sort), with the external sort.', default: false }),
    memory: Flags.string({ description: 'Memory budget of --sort, e.g. 512M (default: property nwax.sort.memory).' }),
    output: Flags.string({ char: 'o', description: 'Write to this file (written aside, renamed when complete) instead of stdout.' }),
    'no-header': Flags.boolean({ description: 'Leave out the ` CDX ...` legend line.', default: false }),
    strict: Flags.boolean({ description: 'Stop at the first damaged record (exit 1) instead of skipping it.', default: false }),
    jobs: Flags.integer({ char: 'j', description: 'Files indexed at once on worker threads; 0 = one per core (default: property nwax.jobs, 1).', min: 0 }),
    quiet: Flags.boolean({ char: 'q', description: 'No per-record messages; the summary line only.', default: false }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Cdx);
    const conf = await this.configurationFor(flags.define);
    const { runCdx } = await import('../cdx/cdx-job.js');
    const code = await runCdx(argv as string[], {
      format: (flags.format ?? conf.getString('nwax.cdx.format')) as 'cdx11' | 'cdx9' | 'cdxj',
      allRecords: flags['all-records'],
      recordTypes: conf
        .getString('nwax.cdx.records')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      canonicalizer: (flags.canonicalizer ?? conf.getString('nwax.cdx.canonicalizer')) as 'surt' | 'massaged',
      sort: flags.sort,
      memory: flags.memory ?? conf.getString('nwax.sort.memory'),
      tmpDir: conf.getString('nwax.sort.tmpdir') || undefined,
      output: flags.output,
      header: !flags['no-header'],
      strict: flags.strict,
      jobs: flags.jobs ?? conf.getNumber('nwax.jobs'),
      quiet: flags.quiet,
      robotsScanBytes: conf.getNumber('nwax.cdx.robots.scan.bytes'),
      inflateWindow: conf.getNumber('nwax.archive.inflate.window'),
      inflateMaxBuffer: conf.getNumber('nwax.archive.inflate.max.buffer'),
      httpHeaderMax: conf.getNumber('nwax.archive.http.header.max'),
      say: (m) => this.sayLine(m),
    });
    if (code !== 0) process.exitCode = code;
  }
}
