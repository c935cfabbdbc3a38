/**
 * A collection, or the versions a query finds, as a WACZ 1.1.1 package that ReplayWeb.page and
 * nwax itself open: each version's record copied byte for byte from its archive (a plain
 * record gzipped as a member of its own) into `archive/data.warc.gz`, with the records of
 * what its page embeds (stylesheets, images, scripts, frames: the capture of each nearest the
 * page's, from the capture index replay uses), so that the pages replay from the package; a
 * sorted CDXJ of that WARC (as nwax cdx writes it: plain for a small package, else compressed
 * with a summary, package-index.ts); `pages/pages.jsonl`
 * (each page's URL, capture time, title and extracted text, which ReplayWeb.page searches);
 * `datapackage.json` (every resource's SHA-256 and size) and `datapackage-digest.json`.
 * Streaming, in one pass (zip-writer.ts): the WARC is the package's first entry, written
 * through (and hashed) as its records are placed; the package is written aside and put in
 * place by a rename when it is whole.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { externalSort } from '../mapreduce/external-sort.js';
import { lineBatches } from '../mapreduce/line-reader.js';
import { CaptureIndex } from '../replay/captures.js';
import { AccessPolicy, type AccessSettings } from '../access/policy.js';
import { Searcher } from '../search/searcher.js';
import type { CollectionView } from '../search/collection-view.js';
import { InputError, NwaxError, describeFsError } from '../util/errors.js';
import { RecordBytes } from './record-bytes.js';
import { ScanPool } from './scan-pool.js';
import { PackageRecords, type Prepared } from './package-records.js';
import { Deflated, ZipWriter, type EntrySink } from './zip-writer.js';
import { LINES_PER_BLOCK, type PackageFile, writePackageIndex } from './package-index.js';
import { firstDate } from '../index/document.js';

export interface ExportOptions {
  /** The crawl directory: its indexes (the versions) and segments (the capture index). */
  dir: string;
  out: string;
  /** The versions this query finds; all of the collection's when undefined. */
  query?: string;
  /** Pages' embedded resources too (default true). */
  resources?: boolean;
  /** Bytes of a page's HTML read for what it embeds. */
  htmlLimit?: number;
  /** pages.jsonl's deflate level, 0-9 (nwax.export.pages.level; default 1). */
  pagesLevel?: number;
  /** Index lines up to which the index is one plain CDXJ; above, gzip members and a summary (nwax.export.index.plain.max). */
  indexPlainMax?: number;
  memory?: string;
  /** The access rules: what they withhold from `user` is not exported (nwax.access.*). */
  access?: AccessSettings;
  /** The user class the package is for (undefined: the public). */
  user?: string;
  software: string;
  say: (m: string) => void;
}

export interface ExportSummary {
  pages: number;
  resources: number;
  /** The collection's captures placed besides its pages' (an export of the whole collection). */
  captures: number;
  records: number;
  missing: number;
  bytes: number;
  /** Records left out (reported as they were met), by reason. */
  skipped: { [reason: string]: number };
}

interface Page {
  url: string;
  ts: string;
  title: string;
  /** The page's text as a JSON string (its segment's bytes, copied into pages.jsonl as they are); undefined: none. */
  text: () => Buffer | undefined;
  mime: string;
  collection: string;
  location: string;
  offset: number;
  clen: number;
}

const PAGES_HEADER = { format: 'json-pages-1.0', id: 'pages', title: 'All Pages', hasText: true };

/** 14 digits as ISO 8601 (pages.jsonl's `ts`). */
function iso(ts: string): string {
  return `${ts.slice(0, 4)}-${ts.slice(4, 6)}-${ts.slice(6, 8)}T${ts.slice(8, 10)}:${ts.slice(10, 12)}:${ts.slice(12, 14)}Z`;
}

/**
 * The versions to export: every document of the collection, or every match of the query (not
 * ranked, not capped), each version once where several index sets hold it.
 */
function* selectPages(view: CollectionView, query: string | undefined): Generator<Page> {
  const seen = new Set<string>();
  for (const d of query === undefined ? view.allDocuments() : view.matchingDocuments(query)) {
    const key = `${d.url} ${d.digest}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // A version whose own capture the rules withhold (others of its dates shown): its row names
    // no record (open-set.ts), and its page is left out, as withheld captures are (not a skip:
    // nothing is wrong with it); a whole collection's package still holds the captures shown,
    // from the capture index.
    if (d.location == null) continue;
    // The rows are the documents the view serves (not deleted, not withheld: the filters its
    // stored() applies), and hold where each record is.
    const ts = firstDate(d.dates);
    yield {
      url: d.url,
      ts,
      title: d.title,
      text: () => view.textJson(d.setName, d),
      mime: d.mime,
      collection: d.collection,
      location: d.location,
      offset: d.offset,
      clen: d.clen,
    };
  }
}

/**
 * Pages read and handed to the scan threads ahead of the one placed: enough to keep them
 * busy, and a bound on the bytes held (records up to 8 MB each are read whole).
 */
const AHEAD = 64;
const AHEAD_BYTES = 64 << 20;

/**
 * pages.jsonl's deflate level by default: its text is most of an export's output that is not
 * WARC (155 MB for the bench corpus's 18,250 pages); level 6 took 3.8 s of CPU (beside an
 * export of 7 s on 2 cores), level 1 takes 0.8 s for a fifth more bytes (39 MB, not 32 MB).
 */
const PAGES_LEVEL = 1;

/** pages.jsonl as it is written: deflated on libuv's threads into a file of its own, hashed and counted. */
class PagesWriter {
  readonly hash = createHash('sha256');
  readonly deflated: Deflated;
  private parts: Buffer[] = [];
  private held = 0;
  private closed = false;

  constructor(
    private readonly fd: number,
    level: number,
  ) {
    this.deflated = new Deflated(level, (b) => {
      for (let at = 0; at < b.length; ) at += writeSync(fd, b, at);
    });
  }

  /** A line's parts; they go to the deflater in batches (a write per page cost a trip to libuv's threads each). */
  async write(parts: Buffer[]): Promise<void> {
    for (const b of parts) {
      this.parts.push(b);
      this.held += b.length;
    }
    if (this.held >= 1 << 20) await this.flush();
  }

  async flush(): Promise<void> {
    const b = Buffer.concat(this.parts, this.held);
    this.parts = [];
    this.held = 0;
    this.hash.update(b);
    await this.deflated.write(b);
  }

  /** All deflated and written; the file closed. */
  async end(): Promise<void> {
    await this.flush();
    await this.deflated.end();
    this.close();
  }

  /** The file closed (when done, or given up). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

const TEXT_FIELD = Buffer.from(',"text":');
const LINE_END = Buffer.from('}\n');

/**
 * The page's line of pages.jsonl (its text is what ReplayWeb.page searches): the text goes in
 * as the JSON string its segment stores (JSON.stringify's, as it would be written here).
 */
function pageLine(p: Page): Buffer[] {
  const id = createHash('sha1').update(`${p.url} ${p.ts}`).digest('hex').slice(0, 20);
  const head = JSON.stringify({ id, url: p.url, ts: iso(p.ts), ...(p.title ? { title: p.title } : {}) });
  const text = p.text();
  // An empty text ("") is left out, as JSON.stringify's page was written without it.
  if (text === undefined || text.length <= 2) return [Buffer.from(`${head}\n`)];
  return [Buffer.from(head.slice(0, -1)), TEXT_FIELD, text, LINE_END];
}

/** The index: the records' CDXJ lines sorted (as nwax cdx of the WARC would give them) into `sink`, hashed. */
/** datapackage.json and datapackage-digest.json, as WACZ 1.1.1 says. */
function datapackageFiles(o: ExportOptions, resources: PackageFile[]): { datapackage: Buffer; digest: Buffer } {
  const datapackage = Buffer.from(
    `${JSON.stringify(
      {
        profile: 'data-package',
        resources: resources.map((r) => ({ name: r.name, path: r.path, hash: `sha256:${r.hash.digest('hex')}`, bytes: r.bytes })),
        wacz_version: '1.1.1',
        title: o.query === undefined ? `nwax export of ${o.dir}` : `nwax export of "${o.query}" in ${o.dir}`,
        created: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        software: o.software,
      },
      null,
      2,
    )}\n`,
  );
  const digest = Buffer.from(
    `${JSON.stringify({ path: 'datapackage.json', hash: `sha256:${createHash('sha256').update(datapackage).digest('hex')}` }, null, 2)}\n`,
  );
  return { datapackage, digest };
}

/** The directory the package goes in, checked before any work. */
function checkOut(o: ExportOptions): string {
  const out = resolve(o.out);
  try {
    if (!statSync(dirname(out)).isDirectory()) throw new InputError(`${o.out}: ${dirname(o.out)} is not a directory`);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`${o.out}: ${describeFsError(dirname(o.out), err as NodeJS.ErrnoException)}`);
  }
  return out;
}

/**
 * Each item's record read and handed to the scan threads up to AHEAD items (AHEAD_BYTES)
 * before it is placed; items placed in their order, so the package's bytes do not depend on
 * which thread finished first.
 */
async function inOrder<T>(
  items: Iterable<T> | AsyncIterable<T>,
  prepare: (item: T) => { length: number; prepared: Promise<Prepared> },
  place: (item: T, prepared: Prepared) => Promise<void>,
): Promise<void> {
  const ahead: { item: T; length: number; prepared: Promise<Prepared> }[] = [];
  let aheadBytes = 0;
  for await (const item of items) {
    const started = prepare(item);
    started.prepared.catch(() => {});
    ahead.push({ item, ...started });
    aheadBytes += Math.max(started.length, 0);
    while (ahead.length >= AHEAD || aheadBytes > AHEAD_BYTES) {
      const next = ahead.shift()!;
      aheadBytes -= Math.max(next.length, 0);
      await place(next.item, await next.prepared);
    }
  }
  for (const next of ahead) await place(next.item, await next.prepared);
}

/**
 * The pages placed in the index's order, with what they embed where `embeds` (a query's
 * versions). A page is listed in pages.jsonl once its record is in the package. The pages
 * listed.
 */
async function placePages(selected: Iterable<Page>, records: PackageRecords, pages: PagesWriter, embeds: boolean): Promise<number> {
  await pages.write([Buffer.from(`${JSON.stringify(PAGES_HEADER)}\n`)]);
  let n = 0;
  await inOrder(
    selected,
    (p) => ({ length: p.clen, prepared: records.prepare(p.location, p.offset, p.clen, embeds && records.embeds(p.mime)) }),
    async (p, prepared) => {
      if (!(await records.placePage(p, prepared, embeds))) return;
      n++;
      await pages.write(pageLine(p));
    },
  );
  return n;
}

/**
 * Every other capture of the collection (the capture index replay reads, under the access
 * rules): what its pages embed, their other dates, redirects, revisits. A collection's package
 * holds all of it, so it needs no page read for what it embeds.
 */
async function placeCaptures(captures: CaptureIndex, records: PackageRecords): Promise<void> {
  const located = async function* () {
    for await (const c of captures.every('*')) {
      const location = await c.locate();
      if (location === undefined) records.unlocated(c.filename, c.offset);
      else if (!records.has(location, c.offset)) yield { location, offset: c.offset, length: c.length };
    }
  };
  await inOrder(
    located(),
    (c) => ({ length: c.length, prepared: records.prepare(c.location, c.offset, c.length, false) }),
    async (c, prepared) => void (await records.placeCapture(c.location, c.offset, c.length, prepared)),
  );
}

export async function exportWacz(o: ExportOptions): Promise<ExportSummary> {
  const out = checkOut(o);
  // The indexes first: one that cannot be opened leaves nothing behind.
  const policy = o.access ? new AccessPolicy(o.access) : undefined;
  const searcher = new Searcher(o.dir, undefined, policy);
  const everyCapture = new CaptureIndex(o.dir, [], []);
  // Resources too: a withheld capture of an image or a script leaves with no page.
  const captures = policy?.active ? everyCapture.scoped((c) => policy.decide(c.url, c.ts, o.user).access) : everyCapture;
  const work = mkdtempSync(join(dirname(out), '.nwax-export-'));
  const bytes = new RecordBytes();
  const pool = new ScanPool();
  // The package is written as the records are: the WARC first, stored, written through as each
  // record is placed; pages.jsonl meanwhile deflated on libuv's threads into a file aside, then
  // copied in; the index, then datapackage.json.
  const aside = join(work, 'out.wacz');
  const zip = new ZipWriter(aside);
  const pagesPath = join(work, 'pages.jsonl.deflated');
  const pages = new PagesWriter(openSync(pagesPath, 'w'), o.pagesLevel ?? PAGES_LEVEL);
  try {
    const unsortedPath = join(work, 'index.unsorted');
    const warcHash = createHash('sha256');
    const { records, n } = await zip.stored('archive/data.warc.gz', async (warc) => {
      const records = new PackageRecords(warc, warcHash, unsortedPath, bytes, pool, captures, {
        resources: o.resources !== false,
        htmlLimit: o.htmlLimit ?? 4 << 20,
        say: o.say,
      });
      try {
        // A query's versions bring what their pages embed; a collection brings every capture.
        const whole = o.query === undefined;
        const n = await placePages(selectPages(searcher.view(o.user), o.query), records, pages, !whole);
        if (whole && o.resources !== false) await placeCaptures(captures, records);
        return { records, n };
      } finally {
        records.close();
      }
    });
    await pages.end();
    if (n === 0) {
      const what = o.query === undefined ? `${o.dir}: no document to export` : `${o.query}: no version found to export`;
      throw new NwaxError('NWAX_INPUT', Object.keys(records.skipped).length ? `${what}: every record was left out (above)` : what);
    }
    zip.copyEntry('pages/pages.jsonl', pagesPath, pages.deflated);
    const sorted = externalSort(lineBatches(unsortedPath), { memory: 64 << 20, tmpDir: work });
    const index = await writePackageIndex(zip, sorted, o.indexPlainMax ?? LINES_PER_BLOCK);
    const { datapackage, digest } = datapackageFiles(o, [
      { name: 'data.warc.gz', path: 'archive/data.warc.gz', bytes: records.bytes, hash: warcHash },
      ...index,
      { name: 'pages.jsonl', path: 'pages/pages.jsonl', bytes: pages.deflated.size, hash: pages.hash },
    ]);
    zip.buffer('datapackage.json', datapackage);
    zip.buffer('datapackage-digest.json', digest);
    zip.finish();
    renameSync(aside, out);
    return {
      pages: n,
      resources: records.resources,
      captures: records.otherCaptures,
      records: records.records,
      missing: records.missing,
      bytes: records.bytes,
      skipped: records.skipped,
    };
  } finally {
    pages.deflated.destroy();
    pages.close();
    zip.close();
    bytes.close();
    await pool.close();
    searcher.close();
    rmSync(work, { recursive: true, force: true });
  }
}
