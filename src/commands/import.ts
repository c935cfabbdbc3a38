import { Args, Flags } from '@oclif/core';
import { NwaxCommand } from './base.js';
import { jobActionOptions, jobFlags, pipelineReduces, warmJob } from './job-options.js';
import type { Configuration } from '../conf/config.js';
import type { ManifestEntry } from '../segment/manifest.js';

/** A manifest's line, and the archive it names (none for a blank line or a comment). */
type ManifestLine = { line: string; entry: ManifestEntry | undefined };

/** A local manifest's lines, read and checked: a bad line is named, and a manifest naming no archive is a mistake (a wrong file, say), not an empty import. */
async function readManifest(manifest: string): Promise<ManifestLine[]> {
  const { readFileSync, statSync } = await import('node:fs');
  const { InputError, describeFsError } = await import('../util/errors.js');
  try {
    if (!statSync(manifest).isFile()) throw new InputError(`${manifest}: not a file; the manifest lists archives, one per line`);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(describeFsError(manifest, err as NodeJS.ErrnoException));
  }
  const { parseManifestLine } = await import('../segment/manifest.js');
  const lines = readFileSync(manifest, 'utf8').split('\n');
  const entries = lines.map((l, i) => {
    try {
      return parseManifestLine(l);
    } catch (err) {
      throw new InputError(`${manifest}: line ${i + 1}: ${(err as Error).message}`);
    }
  });
  if (!entries.some(Boolean)) throw new InputError(`${manifest}: lists no archive (one path or URL per line, then an optional collection)`);
  return lines.map((line, i) => ({ line, entry: entries[i] }));
}

export default class Import extends NwaxCommand {
  static override summary = 'Import the archives a manifest lists into a segment, one document per version (URL + digest).';
  static override description = `MANIFEST lists one archive per line: a path or an http(s) URL, then optionally a collection \
name; blank lines and # comments are skipped. A path holding spaces is quoted as in CSV ("/data/crawl 2007/a.warc.gz" \
october), or the line is TSV (path TAB collection). Each archive is one map task (both cores at work), and a local gzip \
archive larger than nwax.import.split.size is cut into several at gzip member starts; remote archives are \
streamed, and resumed after a lost connection. WARC response and resource records and ARC records are imported when \
their HTTP status passes nwax.filter.http.status (default 200-299); revisit, request, metadata and warcinfo records are \
counted, not imported. With -e, the captures the list names (dedup-cdx or revisits lines: URLKEY sha1:DIGEST DATE) are \
skipped, so that each version is imported once. The segment (default crawl/segments/<yyyyMMddHHmmss>) holds content \
(pointers into the archives), parse_data, parse_text, crawl_fetch and crawl_parse, keyed by "URL sha1:DIGEST". \
Damaged records and unreadable archives are reported with file and offset and skipped (exit status 3); --strict stops instead.

With --cdx, no manifest: the records the CDX inputs list (CDX11, CDX9, CDXJ, plain or gzipped, or ZipNum clusters), \
after --filter (pywb's syntax), are read at their offsets and lengths (positional reads of local files, Range requests to \
remote ones, never the rest of the file) and imported as a full import would. Archive names resolve through --archives \
(directories, URL prefixes, path index files of name TAB location; property nwax.archive.locations), tried in order. A \
line whose offset does not start a record of its URL is reported with its CDX file and line number and skipped.`;

  static override examples = [
    '<%= config.bin %> import -e all.dup manifest.txt',
    '<%= config.bin %> import manifest.txt crawl/segments/my-batch',
    '<%= config.bin %> import -D nwax.filter.http.status=200-299,unknown manifest.txt',
    '<%= config.bin %> import --engine hadoop /user/me/manifest.txt /user/me/segments/20071001000000',
    '<%= config.bin %> import --cdx collection.cdx --filter mime:text/html --filter status:200 --archives /data/warcs/,https://archive.example.org/warcs/',
    '<%= config.bin %> import --cdx cluster/ --filter ~url:/news/ crawl/segments/news',
  ];

  static override args = {
    manifest: Args.string({ description: 'The manifest: one archive (path or URL) and an optional collection per line (with --cdx: the segment)' }),
    segment: Args.string({ description: 'The segment to write (default DIR/segments/<timestamp>)' }),
  };

  static override flags = {
    exclude: Flags.string({
      char: 'e',
      description: 'Exclusion list: captures to skip (dedup-cdx / revisits output). Property nwax.import.exclusions.',
      helpValue: 'FILE',
    }),
    dir: Flags.string({ description: 'The crawl directory the default segment goes in.', default: 'crawl' }),
    cdx: Flags.string({
      description: 'Import the records these CDX files or ZipNum clusters list instead of a manifest; repeatable or comma-separated.',
      multiple: true,
      multipleNonGreedy: true,
      helpValue: 'FILE',
    }),
    filter: Flags.string({
      description: "With --cdx: only lines passing field:regex, !field:regex, =field:value or ~field:substring (pywb's filters); repeatable.",
      multiple: true,
      multipleNonGreedy: true,
    }),
    archives: Flags.string({
      description:
        "With --cdx: where archives are, comma-separated directories, http(s) URL prefixes and path index files, tried in order (property nwax.archive.locations; default: the CDX file's directory).",
    }),
    collection: Flags.string({ description: 'With --cdx: the collection name of the imported captures.', default: '' }),
    strict: Flags.boolean({ description: 'Stop at the first unreadable archive or damaged record.', default: false }),
    'captures-only': Flags.boolean({
      description: "Write only the capture index (replay's captures.cdx) of SEGMENT, an imported segment, from the archives MANIFEST lists.",
      default: false,
    }),
    ...jobFlags,
  };

  /** Files the Hadoop tasks need (the exclusion list). */
  private readonly shipped: string[] = [];

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Import);
    const { rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { UsageError } = await import('../util/errors.js');
    const cdx = (flags.cdx ?? []).flatMap((c) => c.split(',')).filter(Boolean);
    if (cdx.length && args.segment) throw new UsageError('with --cdx there is no manifest: give the segment alone (nwax import --cdx FILE [SEGMENT])');
    if (!cdx.length && (flags.filter?.length || flags.archives)) throw new UsageError('--filter and --archives go with --cdx');
    if (!cdx.length && !args.manifest) throw new UsageError('give a manifest (one archive per line), or --cdx FILE');
    const manifest = cdx.length ? undefined : args.manifest!;
    // (On Hadoop the manifest is a path in HDFS.)
    let manifestLines = manifest && flags.engine === 'local' ? await readManifest(manifest) : [];
    const defines = [...(flags.define ?? [])];
    if (flags.strict) defines.push('nwax.import.strict=true');
    const conf = await this.configurationFor(defines);
    const scope = conf.getString('nwax.import.captures');
    if (!['local', 'all', 'none'].includes(scope)) throw new UsageError(`nwax.import.captures must be local, all or none, got ${JSON.stringify(scope)}`);
    if (flags['captures-only']) {
      if (cdx.length || !args.segment || flags.engine !== 'local')
        throw new UsageError(
          '--captures-only takes a manifest and the segment imported from it (nwax import --captures-only MANIFEST SEGMENT), on this machine',
        );
      return this.capturesOnly(args.segment, manifestLines, conf, scope);
    }
    // On this machine the segment's datasets are written by one reduce per thread; the task
    // threads start now, while the exclusions are read and the archives planned.
    const localReduces = flags.engine === 'local' ? await pipelineReduces(conf, flags, (m) => this.sayLine(m)) : undefined;
    if (localReduces !== undefined) await warmJob('import', conf, flags, localReduces);
    const { segmentName } = await import('../segment/segment.js');
    const segment = (cdx.length ? args.manifest : args.segment) ?? join(flags.dir, 'segments', segmentName());
    const temps: string[] = [];
    await this.clearLitter(segment, flags.engine === 'local');
    try {
      const badExclusions = await this.exclusions(flags.exclude ?? conf.getString('nwax.import.exclusions'), segment, conf, flags.engine, defines, temps);
      const options = await jobActionOptions(conf, { ...flags, define: defines }, undefined, (m) => this.sayLine(m));
      if (localReduces !== undefined) options.reduces = localReduces;
      let input = manifest!;
      let skipped = badExclusions;
      let captureLines: string | undefined;
      if (cdx.length) {
        // The records to read, planned from the CDX; on Hadoop the plan is kept, to be copied to HDFS.
        input = `${segment}.records${flags.engine === 'local' ? `-${process.pid}` : ''}`;
        if (flags.engine === 'local') temps.push(input);
        skipped += await this.planCdx(cdx, input, flags, conf, options.threads);
      } else if (flags.engine === 'local') {
        const local = await this.localInput(input, manifestLines, segment, scope, conf, options.threads, temps);
        ({ input, manifestLines, captureLines } = local);
        skipped += local.skipped;
        if (captureLines) options.properties = [...(options.properties ?? []), `nwax.import.captures.dir=${(await import('node:path')).resolve(captureLines)}`];
      }
      const { findJob } = await import('../jobs/registry.js');
      const { runJobAction } = await import('../mapreduce/job-cli.js');
      const job = (await findJob('import'))!;
      const entries = manifestLines.flatMap((l) => (l.entry ? [l.entry] : []));
      process.exitCode = await runJobAction(job, 'run', [input], {
        ...options,
        files: this.shipped,
        output: segment,
        // Exit 3 when something was skipped: damaged records, unreadable archives, bad list or CDX
        // lines, records of a package's damaged entry that their digests do not vouch for.
        exitCode: (c) =>
          (c['read-error'] ?? 0) +
            (c['archives failed'] ?? 0) +
            (c['bad manifest lines'] ?? 0) +
            (c['cdx-offset-mismatch'] ?? 0) +
            (c['digest-mismatch'] ?? 0) +
            (c['no-digest'] ?? 0) +
            skipped >
          0
            ? 3
            : 0,
        commitJob: captureLines ? this.captureIndexCommit(segment, entries, captureLines, scope as 'local' | 'all', conf) : undefined,
      });
    } finally {
      for (const f of temps) rmSync(f, { force: true, recursive: true });
    }
  }

  /** What a killed import of this segment left beside it (a CDX plan, a sorted exclusion list); the segment's folder made where `local`. */
  private async clearLitter(segment: string, local: boolean): Promise<void> {
    const { sweepDead } = await import('../util/litter.js');
    const { basename, dirname, resolve } = await import('node:path');
    for (const what of ['records-', 'exclusions-', 'captures-']) sweepDead(dirname(resolve(segment)), `${basename(segment)}.${what}`);
    // The segment's folder (`crawl/segments/`) may not exist yet: the plan and the sorted
    // exclusion list are written beside the segment before the job makes it.
    if (local) (await import('node:fs')).mkdirSync(dirname(resolve(segment)), { recursive: true });
  }

  /**
   * A local import's input: the directory the map tasks write the capture index's lines to
   * (capture-lines.ts), a WACZ package's WARCs as manifest lines of their own, and large
   * archives cut into several map tasks; the problems with packages counted as skipped.
   */
  private async localInput(
    manifest: string,
    lines: ManifestLine[],
    segment: string,
    scope: string,
    conf: Configuration,
    threads: number,
    temps: string[],
  ): Promise<{ input: string; manifestLines: ManifestLine[]; captureLines: string | undefined; skipped: number }> {
    let input = manifest;
    let skipped = 0;
    let captureLines: string | undefined;
    if (scope !== 'none') {
      captureLines = `${segment}.captures-${process.pid}`;
      temps.push(captureLines);
      (await import('node:fs')).mkdirSync(captureLines);
    }
    // A WACZ package stands for its WARCs: one manifest line each (PACKAGE#ENTRY), in a
    // manifest of their own; a package that cannot be read, or an entry whose digest is
    // not datapackage.json's, is named and counted as skipped.
    if (lines.some((l) => l.entry && /\.wacz$/i.test(l.entry.location))) {
      const { expandManifest } = await import('../segment/manifest-packages.js');
      const expanded = await expandManifest(lines, `${segment}.manifest-${process.pid}`, (m) => this.sayLine(m), { toTask: true });
      temps.push(expanded.file);
      lines = expanded.lines;
      input = expanded.file;
      skipped += expanded.problems;
    }
    // Large local archives cut into several map tasks (both cores on one archive).
    const planned = await this.planSplits(lines, segment, conf.getBytes('nwax.import.split.size'), threads);
    if (planned) {
      temps.push(planned);
      input = planned;
    }
    return { input, manifestLines: lines, captureLines, skipped };
  }

  /**
   * What replay looks URLs up in (every record of these archives, redirects and revisits too),
   * written into the segment before it is renamed into place: a kill leaves the old segment or
   * the new one with its capture index, never one that replays nothing.
   */
  private captureIndexCommit(segment: string, entries: ManifestEntry[], linesDir: string, scope: 'local' | 'all', conf: Configuration) {
    return async (dir: string) => {
      const { writeCaptureIndex } = await import('../segment/capture-index.js');
      const { join } = await import('node:path');
      const started = Date.now();
      const lines = await writeCaptureIndex(dir, entries, {
        scope,
        linesDir,
        memory: conf.getString('nwax.sort.memory'),
        tmpDir: conf.getString('nwax.sort.tmpdir') || undefined,
        say: (m) => this.sayLine(m),
      });
      this.sayLine(`capture index for replay: ${lines} lines sorted into ${join(segment, 'captures.cdx')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    };
  }

  /** --captures-only: the capture index of an imported segment, rebuilt from the archives the manifest lists. */
  private async capturesOnly(segment: string, manifestLines: ManifestLine[], conf: Configuration, scope: string): Promise<void> {
    const { rebuildCaptureIndex } = await import('../segment/capture-rebuild.js');
    const { rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const started = Date.now();
    let entries = manifestLines.flatMap((l) => (l.entry ? [l.entry] : []));
    let packageProblems = 0;
    if (entries.some((e) => /\.wacz$/i.test(e.location))) {
      // A WACZ package stands for its WARCs here too.
      const { expandManifest } = await import('../segment/manifest-packages.js');
      const expanded = await expandManifest(manifestLines, `${segment}.manifest-${process.pid}`, (m) => this.sayLine(m));
      rmSync(expanded.file, { force: true });
      entries = expanded.lines.flatMap((l) => (l.entry ? [l.entry] : []));
      packageProblems = expanded.problems;
    }
    const { lines, skipped: damaged } = await rebuildCaptureIndex(segment, entries, {
      scope: scope === 'none' ? 'local' : (scope as 'local' | 'all'),
      memory: conf.getString('nwax.sort.memory'),
      tmpDir: conf.getString('nwax.sort.tmpdir') || undefined,
      say: (m) => this.sayLine(m),
    });
    const skipped = damaged + packageProblems;
    this.sayLine(
      `capture index for replay: ${lines} lines sorted into ${join(segment, 'captures.cdx')} in ${((Date.now() - started) / 1000).toFixed(1)} s${skipped ? `; ${skipped} skipped (damaged records, missing archives or package entries)` : ''}`,
    );
    if (skipped) process.exitCode = 3;
  }

  /**
   * The manifest's archives larger than the split size as task lines of byte ranges
   * (archive-splits.ts), the other lines as they are; undefined when nothing is cut.
   */
  private async planSplits(manifest: ManifestLine[], segment: string, splitSize: number, threads: number): Promise<string | undefined> {
    if (splitSize <= 0) return undefined;
    const { writeFileSync } = await import('node:fs');
    const { planSplits, splittableBytes } = await import('../segment/archive-splits.js');
    let cut = 0;
    // The ranges shrink toward the end of the job: what each archive has after it.
    const sizes = manifest.map(({ entry }) => (entry ? splittableBytes(entry) : 0));
    let after = sizes.reduce((a, b) => a + b, 0);
    // (Blank and comment lines are left out: each line is a map task.)
    const lines = manifest.flatMap(({ line, entry }, i) => {
      after -= sizes[i];
      if (!entry) return [];
      const splits = planSplits(entry, splitSize, threads, after);
      if (splits.length < 2) return [line];
      cut++;
      return splits.map((split) => JSON.stringify({ split }));
    });
    if (cut === 0) return undefined;
    const planned = `${segment}.records-${process.pid}`;
    writeFileSync(planned, `${lines.join('\n')}\n`);
    return planned;
  }

  /**
   * The exclusion list, read once here: bad lines reported once, the canonicalizer detected
   * once, and a list larger than memory sorted into a record file that the map tasks look keys
   * up in. Adds the properties the tasks read; returns the number of bad lines.
   */
  private async exclusions(list: string, segment: string, conf: Configuration, engine: string, defines: string[], temps: string[]): Promise<number> {
    if (!list) return 0;
    if (engine !== 'local') {
      // Shipped to every task node (-files, from this machine or the cluster's file system):
      // the tasks read it from their working directory.
      const { basename } = await import('node:path');
      defines.push(`nwax.import.exclusions=${basename(list)}`);
      this.shipped.push(list);
      return 0;
    }
    const { existsSync } = await import('node:fs');
    const { InputError } = await import('../util/errors.js');
    if (!existsSync(list)) throw new InputError(`${list}: no such exclusion list`);
    const { prepareExclusions } = await import('../segment/exclusions.js');
    const { indexPath } = await import('../mapreduce/record-file.js');
    const sorted = `${segment}.exclusions-${process.pid}`;
    temps.push(sorted, indexPath(sorted));
    const prep = await prepareExclusions(list, {
      canonicalizer: conf.getString('nwax.import.canonicalizer'),
      memory: conf.getBytes('nwax.import.exclusions.memory'),
      sortedPath: sorted,
      sortMemory: conf.getBytes('nwax.sort.memory'),
      tmpDir: conf.getString('nwax.sort.tmpdir') || undefined,
      warn: (m) => this.sayLine(m),
    });
    this.sayLine(
      `${list}: ${prep.lines} captures to exclude (${prep.canonicalizer} keys${prep.path === sorted ? ', sorted into a record file' : ''})${prep.bad ? `; ${prep.bad} bad lines skipped` : ''}`,
    );
    defines.push(`nwax.import.exclusions=${prep.path}`, `nwax.import.canonicalizer=${prep.canonicalizer}`);
    return prep.bad;
  }

  /** import --cdx: the records the CDX lists, planned into `out` (cdx-plan.ts); returns the lines skipped. */
  private async planCdx(
    cdx: string[],
    out: string,
    flags: { archives?: string; filter?: string[]; collection: string },
    conf: Configuration,
    threads: number,
  ): Promise<number> {
    const { mkdirSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    const { ArchiveLocator } = await import('../segment/archive-locator.js');
    const { planCdxImport } = await import('../segment/cdx-plan.js');
    const { InputError } = await import('../util/errors.js');
    const places = (flags.archives ?? conf.getString('nwax.archive.locations'))
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const locator = new ArchiveLocator(places.length ? places : [...new Set(cdx.map((c) => dirname(c)))]);
    mkdirSync(dirname(out), { recursive: true });
    const plan = await planCdxImport({
      cdx,
      filters: flags.filter ?? [],
      locator,
      collection: flags.collection,
      out,
      perTask: conf.getNumber('nwax.import.cdx.records.per.task'),
      threads,
      sortMemory: conf.getBytes('nwax.sort.memory'),
      tmpDir: conf.getString('nwax.sort.tmpdir') || undefined,
      warn: (m) => this.sayLine(m),
    });
    this.sayLine(
      `${cdx.join(', ')}: ${plan.lines} lines, ${plan.selected} records to read from ${plan.archives} archives` +
        `${plan.filteredOut ? `, ${plan.filteredOut} filtered out` : ''}${plan.badLines ? `, ${plan.badLines} bad lines` : ''}${plan.unresolved ? `, ${plan.unresolved} in archives not found` : ''}`,
    );
    if (plan.selected === 0)
      throw new InputError(
        `${cdx.join(', ')}: no record to import${plan.lines ? ' (every line was filtered out or could not be resolved)' : ' (no CDX lines)'}`,
      );
    return plan.badLines + plan.unresolved;
  }
}
