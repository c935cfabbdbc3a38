/**
 * The import job (NutchWAX's Importer): map over manifest lines, one archive per map task
 * (NLineInputFormat on Hadoop), emitting each capture under its document key `URL
 * sha1:DIGEST`; reduce keeps, per key, the first capture by date and records every date of
 * the version, writing the segment's datasets (content, parse_data, parse_text, crawl_fetch,
 * crawl_parse). Runs under the local runner and Hadoop Streaming alike. A map input line that
 * is a JSON object is a task of import --cdx (cdx-plan.ts): records read at their offsets.
 */
import type { Job, TaskContext } from '../mapreduce/job.js';
import { RawJson } from '../mapreduce/value-json.js';
import { existsSync } from 'node:fs';
import { parseByteSize } from '../conf/config.js';
import type { PdfLimits } from '../parse/pdf.js';
import { asCanonicalizer, loadExclusions, type Exclusions } from './exclusions.js';
import type { ImportOptions } from './importer.js';
import { parseManifestLine } from './manifest.js';
import type { ArchiveSplit } from './archive-splits.js';
import { parseStatusFilter } from './status-filter.js';
import {
  crawlParseOf,
  IMAGES_FIELD,
  imagesIn,
  outlinksIn,
  SEGMENT_PARTS,
  segmentRecordFile,
  type Capture,
  type CrawlFetch,
  type ParseData,
} from './segment.js';
import type { RecordGroup } from './cdx-plan.js';

let options: Promise<ImportOptions> | undefined;

/**
 * The archive reader and parsers, loaded by the first map: the command's own thread, which
 * plans the job and hands its map tasks to task threads, never loads them (the HTML parsers,
 * charset detection and the language tables were 40-50 ms of its start).
 */
let importer: Promise<typeof import('./importer.js')> | undefined;
const importArchive: typeof import('./importer.js')['importArchive'] = async (...args) => (await (importer ??= import('./importer.js'))).importArchive(...args);

/** The task's options from its configuration, loaded once per task (the exclusions above all). */
function importOptions(ctx: TaskContext): Promise<ImportOptions> {
  return (options ??= (async () => {
    const conf = ctx.conf;
    // A task (a Hadoop one too) reads packages as the job's configuration says.
    if (conf.getBoolean('nwax.wacz.lenient')) (await import('../archive/wacz.js')).readPackagesLeniently(true);
    const excl = conf.getString('nwax.import.exclusions');
    let exclusions: Exclusions | undefined;
    if (excl) {
      const canon = conf.getString('nwax.import.canonicalizer');
      // The import command resolves `auto` before the tasks start; a streaming task reads the keys itself.
      const { prepareExclusions } = await import('./exclusions.js');
      const c =
        canon === 'auto'
          ? (await prepareExclusions(excl, { canonicalizer: 'auto', memory: Infinity, sortedPath: '', sortMemory: 0, warn: () => {} })).canonicalizer
          : asCanonicalizer(canon);
      exclusions = await loadExclusions(excl, c);
    }
    return {
      statusFilter: parseStatusFilter(conf.getString('nwax.filter.http.status')),
      exclusions,
      textLimit: parseByteSize(conf.getString('nwax.import.content.limit'), 'nwax.import.content.limit'),
      byteLimit: parseByteSize(conf.getString('nwax.import.parse.bytes'), 'nwax.import.parse.bytes'),
      maxOutlinks: conf.getNumber('db.max.outlinks.per.page'),
      maxImages: conf.getNumber('nwax.parse.images.max'),
      pdf: pdfLimitsOf(conf),
      strict: conf.getBoolean('nwax.import.strict'),
      fetches: conf.getNumber('nwax.import.cdx.fetches'),
      captures: capturesOf(conf),
      remote: {
        timeout: conf.getNumber('http.timeout'),
        retries: conf.getNumber('nwax.http.retries'),
        userAgent: conf.getString('http.agent.name'),
        hadoop: conf.getString('nwax.hadoop.command'),
      },
    };
  })());
}

/** parser.timeout is Nutch's: seconds, -1 for none. */
function pdfLimitsOf(conf: TaskContext['conf']): PdfLimits {
  const seconds = conf.getNumber('parser.timeout');
  const heap = parseByteSize(conf.getString('nwax.import.pdf.heap'), 'nwax.import.pdf.heap');
  return { timeoutMs: seconds > 0 ? seconds * 1000 : 0, heapMb: Math.max(16, Math.round(heap / (1 << 20))) };
}

/**
 * Where the task writes its capture index lines: the folder `nwax import` made for them, on
 * this machine. A task on a cluster node, where that folder is not, writes none.
 */
function capturesOf(conf: TaskContext['conf']): ImportOptions['captures'] {
  const dir = conf.getString('nwax.import.captures.dir');
  const scope = conf.getString('nwax.import.captures');
  if (!dir || (scope !== 'local' && scope !== 'all') || !existsSync(dir)) return undefined;
  return { dir, scope };
}

export const importJob: Job = {
  name: 'import',
  description: 'Archives listed in a manifest (path or URL, collection) into a segment keyed by "URL sha1:DIGEST".',
  input: 'lines',
  linesPerSplit: 1,
  outputs: SEGMENT_PARTS,
  outputRecordFile: segmentRecordFile,
  // A map thread keeps about 8 MB live but promotes pages' texts and links: from V8's first old
  // space it ran 47 mark-compacts in an import of the bench corpus (257 ms of pauses, 78 ms of
  // marking steps), from 256 MB 10 (53 and 18 ms); the import took 0.947 of the time (median
  // of 8 alternated pairs), with 90 MB more peak RSS. (The index, given the same, took 10%
  // longer at 10 archives: docs/decisions.md.)
  taskOldSpaceMb: 256,
  async map(_key, value, emit, ctx) {
    const line = value as string;
    if (line.startsWith('{"split":')) {
      // A part of a large archive (archive-splits.ts): the records that start in it.
      const { split } = JSON.parse(line) as { split: ArchiveSplit };
      ctx.count(split.start === 0 ? 'archives' : 'archive splits past the first');
      await importArchive({ location: split.archive, collection: split.collection }, await importOptions(ctx), emit, ctx, split);
      return;
    }
    if (line.startsWith('{')) {
      // A task line of import --cdx: records of one archive at their offsets.
      const { importRecords } = await import('./record-importer.js');
      ctx.count('record groups');
      await importRecords(JSON.parse(line) as RecordGroup, await importOptions(ctx), emit, ctx);
      return;
    }
    let entry;
    try {
      entry = parseManifestLine(line);
    } catch (err) {
      // (The import command checks a local manifest before the job; on a cluster it is read here.)
      ctx.count('bad manifest lines');
      ctx.warn(`${ctx.inputFile || 'manifest'}: ${JSON.stringify(line.slice(0, 100))}: ${(err as Error).message}; line skipped`);
      return;
    }
    if (!entry) return;
    ctx.count('archives');
    if (/\.wacz$/i.test(entry.location)) {
      // A WACZ package on a line of its own (a Hadoop import, where nothing expands the
      // manifest first): its WARCs in turn, each checked against datapackage.json.
      // (One on a cluster's file system is copied to the task's machine first, and removed after.)
      const { closePackage, expandPackages } = await import('../archive/wacz.js');
      const options = await importOptions(ctx);
      try {
        const { files, problems, byRecord } = await expandPackages([entry.location], { remote: options.remote, strict: options.strict });
        for (const p of problems) {
          ctx.count(p.reason === 'unreadable' ? 'archives failed' : 'entries read record by record');
          ctx.warn(`${p.message}${p.reason === 'unreadable' ? '; archive skipped' : ''}`);
        }
        for (const location of files)
          await importArchive({ location, collection: entry.collection }, byRecord.has(location) ? { ...options, verifyDigests: true } : options, emit, ctx);
      } finally {
        await closePackage(entry.location);
      }
      return;
    }
    await importArchive(entry, await importOptions(ctx), emit, ctx);
  },
  reduce(key, values, emit, ctx) {
    // Values arrive in the byte order of their JSON (Grouper), which starts with the date: the
    // first is the version's first capture, under either engine. Its datasets are passed on as
    // the map wrote them; crawl_fetch gets every date of the version, and crawl_parse is cut
    // out of parse_data (the map does not carry the outlinks twice).
    const texts = values as string[];
    if (texts.length > 1) ctx.count('repeat captures merged', texts.length - 1);
    const first = captureFields(texts[0]);
    ctx.count('documents');
    emit(key, {
      content: new RawJson(first.content),
      parse_data: new RawJson(first.parse_data),
      parse_text: new RawJson(first.parse_text),
      crawl_fetch: new RawJson(crawlFetchText(first.crawl_fetch, [...new Set(texts.map(dateOf))].sort())),
      crawl_parse: new RawJson(crawlParseText(first.parse_data)),
    });
  },
  encoding: {
    // reduce is given each capture's fields as the map wrote them (their JSON text).
    rawValues: true,
    // reduce, over bytes, for the common version of one capture; a version captured several
    // times goes to `reduce`, which merges the dates.
    reduceBytes(_key, values, emit, ctx) {
      if (values.length !== 1) return false;
      const v = values[0] as Buffer;
      const f = fieldCuts(v);
      // (dateOf, over bytes.)
      const dateEnd = v.indexOf(0x22, 9);
      if (!f || !startsAt(v, '{"date":"', 0) || dateEnd < 0) return false;
      const [content, parseData, parseText, crawlFetch] = f.map(([s, e]) => v.subarray(s, e));
      const date = v.toString('utf8', 9, dateEnd);
      ctx.count('documents');
      emit([content, parseData, parseText, Buffer.from(crawlFetchText(crawlFetch.toString(), [date])), crawlParseBytes(parseData)]);
      return true;
    },
  },
};

/** The fields of a capture's JSON, in the order readCapture builds it (date first). */
const FIELDS = ['content', 'parse_data', 'parse_text', 'crawl_fetch'] as const;

/** JSON text as a string or as its UTF-8 bytes: what the cuts below need of either. */
type Json = string | Buffer;

const startsAt = (t: Json, s: string, at: number): boolean => (typeof t === 'string' ? t.startsWith(s, at) : t.toString('latin1', at, at + s.length) === s);

/**
 * Where each field's value lies in a capture's JSON, cut without parsing it. The cuts are the
 * top-level `,"NAME":` of each field in order: inside a JSON string every quote is escaped
 * (`\"`), so `,"` is structure, and no field nested in a capture bears these names. Undefined
 * for anything else (a capture written by another version, say).
 */
function fieldCuts(text: Json): [number, number][] | undefined {
  if (!startsAt(text, '{"date":', 0) || !startsAt(text, '}', text.length - 1)) return undefined;
  const cuts: number[] = [];
  let from = 0;
  for (const f of FIELDS) {
    const at = text.indexOf(`,"${f}":`, from);
    if (at < 0) return undefined;
    cuts.push(at);
    from = at + f.length + 4;
  }
  return FIELDS.map((f, i) => [cuts[i] + f.length + 4, i + 1 < FIELDS.length ? cuts[i + 1] : text.length - 1]);
}

/** A capture's datasets as JSON text (fieldCuts, or the capture parsed). */
function captureFields(text: string): Record<(typeof FIELDS)[number], string> {
  const cuts = fieldCuts(text);
  if (!cuts) {
    const c = JSON.parse(text) as Record<string, unknown>;
    return Object.fromEntries(FIELDS.map((f) => [f, JSON.stringify(c[f])])) as Record<(typeof FIELDS)[number], string>;
  }
  return Object.fromEntries(FIELDS.map((f, i) => [f, text.slice(...cuts[i])])) as Record<(typeof FIELDS)[number], string>;
}

/** crawl_fetch with every date of the version. */
function crawlFetchText(crawlFetch: string, dates: string[]): string {
  return JSON.stringify({ ...(JSON.parse(crawlFetch) as CrawlFetch), dates });
}

const CRAWL_PARSE_OPEN = '{"outlinks":';
const NO_OUTLINKS = `${CRAWL_PARSE_OPEN}[]}`;

/** The version's crawl_parse as JSON text, from its parse_data's. */
function crawlParseText(parseData: string): string {
  const o = outlinksIn(parseData);
  if (o === undefined) return JSON.stringify(crawlParseOf(JSON.parse(parseData) as ParseData));
  const images = imagesIn(parseData, o.end);
  const tail = images ? `${IMAGES_FIELD}${parseData.slice(images.array + 1, images.end)}}` : '}';
  return `${CRAWL_PARSE_OPEN}${o.nofollow ? '[]' : parseData.slice(o.array, o.end)}${tail}`;
}

const CRAWL_PARSE_BYTES = {
  open: Buffer.from(CRAWL_PARSE_OPEN),
  close: Buffer.from('}'),
  none: Buffer.from(NO_OUTLINKS),
  empty: Buffer.from('[]'),
  images: Buffer.from(IMAGES_FIELD.slice(0, -1)),
};

/** crawlParseText over bytes, in pieces (the outlinks are not copied out of parse_data). */
function crawlParseBytes(parseData: Buffer): Buffer | Buffer[] {
  const o = outlinksIn(parseData);
  if (o === undefined) return Buffer.from(crawlParseText(parseData.toString()));
  const images = imagesIn(parseData, o.end);
  if (!images) return o.nofollow ? CRAWL_PARSE_BYTES.none : [CRAWL_PARSE_BYTES.open, parseData.subarray(o.array, o.end), CRAWL_PARSE_BYTES.close];
  // The images array and the parse_data's closing brace, which closes crawl_parse as well.
  const links = o.nofollow ? CRAWL_PARSE_BYTES.empty : parseData.subarray(o.array, o.end);
  return [CRAWL_PARSE_BYTES.open, links, CRAWL_PARSE_BYTES.images, parseData.subarray(images.array)];
}

/** A capture's date: its first field. */
function dateOf(text: string): string {
  return text.startsWith('{"date":"') ? text.slice(9, text.indexOf('"', 9)) : (JSON.parse(text) as Capture).date;
}
