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
import { mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
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
import { ZipWriter } from './zip-writer.js';
import { LINES_PER_BLOCK, type PackageFile, writePackageIndex } from './package-index.js';
import { PagesList } from './pages-list.js';
import { datesOf, firstDate } from '../index/document.js';
import { digestWithAlgorithm } from '../segment/segment.js';

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
  /** Bytes of pages.jsonl up to which it holds the pages' text (nwax.export.pages.text.max). */
  pagesTextMax?: number;
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
  /** Pages listed in pages.jsonl (HTML and PDF versions). */
  pages: number;
  /** Versions placed (pages, and the images, stylesheets, ... a query found or a collection holds). */
  versions: number;
  /** Whether pages.jsonl holds the pages' text (it fit within nwax.export.pages.text.max). */
  pagesText: boolean;
  resources: number;
  /** Captures placed besides the pages' own: the collection's others (a whole collection), the versions' other dates (a query's). */
  captures: number;
  records: number;
  missing: number;
  bytes: number;
  /** Records left out (reported as they were met), by reason. */
  skipped: { [reason: string]: number };
}

interface Page {
  url: string;
  /** Its content digest, and every date the class may see it captured (14 digits). */
  digest: string;
  dates: string[];
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
      digest: d.digest,
      dates: datesOf(d.dates),
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
 * pages.jsonl's deflate level by default: the fastest. (When it held every page's whole text,
 * 155 MB for the bench corpus's 18,250 pages, level 6 took 3.8 s of CPU and level 1 0.8 s for a
 * fifth more bytes; it now holds text only up to what ReplayWeb.page reads, pages-list.ts.)
 */
const PAGES_LEVEL = 1;

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
async function placePages(selected: Iterable<Page>, records: PackageRecords, pages: PagesList, embeds: boolean, dates?: CaptureIndex): Promise<number> {
  let n = 0;
  await inOrder(
    dates ? withOtherDates(selected, dates, records) : selected,
    (p) =>
      'page' in p
        ? { length: p.length, prepared: records.prepare(p.location, p.offset, p.length, false) }
        : { length: p.clen, prepared: records.prepare(p.location, p.offset, p.clen, embeds && records.embeds(p.mime)) },
    async (p, prepared) => {
      if ('page' in p) {
        await records.placeCapture(p.location, p.offset, p.length, prepared);
        return;
      }
      if (!(await records.placePage(p, prepared, embeds))) return;
      n++;
      pages.add(p);
    },
  );
  return n;
}

/** A capture of a page's version at another of its dates. */
interface OtherDate {
  page: string;
  location: string;
  offset: number;
  length: number;
}

/**
 * Each page, then its version's captures at its other dates (the same URL and digest, on a
 * date the class may see: `captures` is the access rules' view), from the capture index: a
 * query's package then holds every date of each version it found, as its CSV lists them, and
 * imported again each version keeps them. (Its record at its first date is the page's own.)
 */
async function* withOtherDates(selected: Iterable<Page>, captures: CaptureIndex, records: PackageRecords): AsyncGenerator<Page | OtherDate> {
  for (const p of selected) {
    yield p;
    if (p.dates.length < 2) continue;
    const dates = new Set(p.dates);
    // (The index keeps a digest with its algorithm, CDX without: sha1 by default.)
    const digest = digestWithAlgorithm(p.digest);
    for (const c of await captures.captures(p.url, '*')) {
      if (digestWithAlgorithm(c.digest) !== digest || c.ts === p.ts || !dates.has(c.ts)) continue;
      const location = await c.locate();
      if (location === undefined) records.unlocated(c.filename, c.offset);
      else yield { page: p.url, location, offset: c.offset, length: c.length };
    }
  }
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
  // record is placed; pages.jsonl's lines meanwhile kept aside, then written in; the index,
  // then datapackage.json.
  const aside = join(work, 'out.wacz');
  const zip = new ZipWriter(aside);
  const pages = new PagesList(work, o.pagesTextMax);
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
        const n = await placePages(selectPages(searcher.view(o.user), o.query), records, pages, !whole, whole ? undefined : captures);
        if (whole && o.resources !== false) await placeCaptures(captures, records);
        return { records, n };
      } finally {
        records.close();
      }
    });
    if (n === 0) {
      const what = o.query === undefined ? `${o.dir}: no document to export` : `${o.query}: no version found to export`;
      throw new NwaxError('NWAX_INPUT', Object.keys(records.skipped).length ? `${what}: every record was left out (above)` : what);
    }
    const pagesFile = await pages.write(zip, o.pagesLevel ?? PAGES_LEVEL);
    const sorted = externalSort(lineBatches(unsortedPath), { memory: 64 << 20, tmpDir: work });
    const index = await writePackageIndex(zip, sorted, o.indexPlainMax ?? LINES_PER_BLOCK);
    const { datapackage, digest } = datapackageFiles(o, [
      { name: 'data.warc.gz', path: 'archive/data.warc.gz', bytes: records.bytes, hash: warcHash },
      ...index,
      pagesFile,
    ]);
    zip.buffer('datapackage.json', datapackage);
    zip.buffer('datapackage-digest.json', digest);
    zip.finish();
    renameSync(aside, out);
    return {
      pages: pages.pages,
      versions: n,
      pagesText: pages.hasText,
      resources: records.resources,
      captures: records.otherCaptures,
      records: records.records,
      missing: records.missing,
      bytes: records.bytes,
      skipped: records.skipped,
    };
  } finally {
    zip.close();
    bytes.close();
    await pool.close();
    searcher.close();
    rmSync(work, { recursive: true, force: true });
  }
}
