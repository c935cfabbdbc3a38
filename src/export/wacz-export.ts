/**
 * A collection, or the versions a query finds, as a WACZ 1.1.1 package that ReplayWeb.page and
 * nwax itself open: each version's record copied byte for byte from its archive (a plain
 * record gzipped as a member of its own) into `archive/data.warc.gz`, with the records of
 * what its page embeds (stylesheets, images, scripts, frames: the capture of each nearest the
 * page's, from the capture index replay uses), so that the pages replay from the package; a
 * sorted CDXJ of that WARC (`indexes/index.cdx`, as nwax cdx writes it); `pages/pages.jsonl`
 * (each page's URL, capture time, title and extracted text, which ReplayWeb.page searches);
 * `datapackage.json` (every resource's SHA-256 and size) and `datapackage-digest.json`.
 * Streaming: the WARC is written to a file aside (hashed as it is written) and the package
 * put in place by a rename when it is whole.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import yazl from 'yazl';
import { externalSort } from '../mapreduce/external-sort.js';
import { lineBatches } from '../mapreduce/line-reader.js';
import { CaptureIndex } from '../replay/captures.js';
import { AccessPolicy, type AccessSettings } from '../access/policy.js';
import { Searcher } from '../search/searcher.js';
import { InputError, NwaxError, describeFsError } from '../util/errors.js';
import { RecordBytes } from './record-bytes.js';
import { ScanPool } from './scan-pool.js';
import { PackageRecords, type Prepared } from './package-records.js';
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
  memory?: string;
  /** The access rules: what they withhold from the public is not exported (nwax.access.*). */
  access?: AccessSettings;
  software: string;
  say: (m: string) => void;
}

export interface ExportSummary {
  pages: number;
  resources: number;
  records: number;
  missing: number;
  bytes: number;
}

interface Page {
  url: string;
  ts: string;
  title: string;
  text: string;
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
function* selectPages(searcher: Searcher, query: string | undefined): Generator<Page> {
  const seen = new Set<string>();
  for (const d of query === undefined ? searcher.allDocuments() : searcher.matchingDocuments(query)) {
    const key = `${d.url} ${d.digest}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const ref = searcher.stored(d.setName, d.id);
    if (!ref || ref === 'blocked') continue;
    const ts = firstDate(d.dates);
    yield {
      url: d.url,
      ts,
      title: d.title,
      text: searcher.text(d.setName, d.id),
      mime: d.mime,
      collection: d.collection,
      location: ref.location,
      offset: ref.offset,
      clen: ref.clen,
    };
  }
}

/**
 * Pages read and handed to the scan threads ahead of the one placed: enough to keep them
 * busy, and a bound on the bytes held (records up to 8 MB each are read whole).
 */
const AHEAD = 64;
const AHEAD_BYTES = 64 << 20;

/** pages.jsonl as it is written: deflated into the package on libuv's threads, hashed and counted. */
class PagesWriter {
  readonly hash = createHash('sha256');
  bytes = 0;
  private text = '';

  constructor(private readonly stream: PassThrough) {}

  /** A line; they go to the deflater in batches (a write per page cost a trip to libuv's threads each). */
  async write(line: string): Promise<void> {
    this.text += line;
    if (this.text.length >= 1 << 18) await this.flush();
  }

  async flush(): Promise<void> {
    const b = Buffer.from(this.text);
    this.text = '';
    this.hash.update(b);
    this.bytes += b.length;
    if (!this.stream.write(b)) await once(this.stream, 'drain');
  }
}

/** The page's line of pages.jsonl (its text is what ReplayWeb.page searches). */
function pageLine(p: Page): string {
  const id = createHash('sha1').update(`${p.url} ${p.ts}`).digest('hex').slice(0, 20);
  return `${JSON.stringify({ id, url: p.url, ts: iso(p.ts), ...(p.title ? { title: p.title } : {}), ...(p.text ? { text: p.text } : {}) })}\n`;
}

/** The index: the records' CDXJ lines sorted (as nwax cdx of the WARC would give them), hashed. */
async function sortIndex(unsortedPath: string, indexPath: string, work: string): Promise<ReturnType<typeof createHash>> {
  const index = createWriteStream(indexPath);
  const hash = createHash('sha256');
  for await (const b of externalSort(lineBatches(unsortedPath), { memory: 64 << 20, tmpDir: work })) {
    const text = b.map((l) => `${l}\n`).join('');
    hash.update(text);
    if (!index.write(text)) await once(index, 'drain');
  }
  index.end();
  await once(index, 'close');
  return hash;
}

/** datapackage.json and datapackage-digest.json, as WACZ 1.1.1 says. */
function datapackageFiles(
  o: ExportOptions,
  resources: { name: string; path: string; file?: string; bytes?: number; hash: ReturnType<typeof createHash> }[],
): { datapackage: Buffer; digest: Buffer } {
  const datapackage = Buffer.from(
    `${JSON.stringify(
      {
        profile: 'data-package',
        resources: resources.map((r) => ({ name: r.name, path: r.path, hash: `sha256:${r.hash.digest('hex')}`, bytes: r.bytes ?? statSync(r.file!).size })),
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

/** The pages placed in the index's order, each read and scanned ahead: the package's bytes do not depend on which thread finished first. */
async function placePages(selected: Iterable<Page>, records: PackageRecords, pages: PagesWriter): Promise<number> {
  const ahead: { page: Page; prepared: Promise<Prepared> }[] = [];
  let aheadBytes = 0;
  let n = 0;
  for (const p of selected) {
    n++;
    await pages.write(pageLine(p));
    const prepared = records.prepare(p.location, p.offset, p.clen, records.embeds(p.mime));
    prepared.catch(() => {});
    ahead.push({ page: p, prepared });
    aheadBytes += Math.max(p.clen, 0);
    while (ahead.length >= AHEAD || aheadBytes > AHEAD_BYTES) {
      const next = ahead.shift()!;
      aheadBytes -= Math.max(next.page.clen, 0);
      await records.placePage(next.page, await next.prepared);
    }
  }
  for (const next of ahead) await records.placePage(next.page, await next.prepared);
  return n;
}

export async function exportWacz(o: ExportOptions): Promise<ExportSummary> {
  const out = checkOut(o);
  // The indexes first: one that cannot be opened leaves nothing behind.
  const policy = o.access ? new AccessPolicy(o.access) : undefined;
  const searcher = new Searcher(o.dir, undefined, policy);
  const everyCapture = new CaptureIndex(o.dir, [], []);
  // Resources too: a withheld capture of an image or a script leaves with no page.
  const captures = policy?.active ? everyCapture.scoped((c) => policy.decide(c.url, c.ts).access) : everyCapture;
  const work = mkdtempSync(join(dirname(out), '.nwax-export-'));
  const bytes = new RecordBytes();
  const pool = new ScanPool();
  // The package is written as the records are: pages.jsonl is its first entry, deflated on
  // libuv's threads while the records are copied (the WARC, stored, follows it from its file).
  const zip = new yazl.ZipFile();
  const aside = join(work, 'out.wacz');
  const zipped = once(zip.outputStream.pipe(createWriteStream(aside)), 'close');
  zipped.catch(() => {});
  const pagesStream = new PassThrough({ highWaterMark: 1 << 20 });
  zip.addReadStream(pagesStream, 'pages/pages.jsonl', { compress: true });
  try {
    const warcPath = join(work, 'data.warc.gz');
    const unsortedPath = join(work, 'index.unsorted');
    const records = new PackageRecords(warcPath, createHash('sha256'), unsortedPath, bytes, pool, captures, {
      resources: o.resources !== false,
      htmlLimit: o.htmlLimit ?? 4 << 20,
    });
    const pages = new PagesWriter(pagesStream);
    await pages.write(`${JSON.stringify(PAGES_HEADER)}\n`);
    const n = await placePages(selectPages(searcher, o.query), records, pages);
    await pages.flush();
    pagesStream.end();
    records.close();
    if (n === 0) throw new NwaxError('NWAX_INPUT', o.query === undefined ? `${o.dir}: no document to export` : `${o.query}: no version found to export`);
    const indexPath = join(work, 'index.cdx');
    const indexHash = await sortIndex(unsortedPath, indexPath, work);
    const { datapackage, digest } = datapackageFiles(o, [
      { name: 'data.warc.gz', path: 'archive/data.warc.gz', file: warcPath, hash: records.warcHash },
      { name: 'index.cdx', path: 'indexes/index.cdx', file: indexPath, hash: indexHash },
      { name: 'pages.jsonl', path: 'pages/pages.jsonl', bytes: pages.bytes, hash: pages.hash },
    ]);
    // The WARC stored (WACZ readers read its records by offset), the rest deflated.
    zip.addFile(warcPath, 'archive/data.warc.gz', { compress: false });
    zip.addFile(indexPath, 'indexes/index.cdx', { compress: true });
    zip.addBuffer(datapackage, 'datapackage.json', { compress: true });
    zip.addBuffer(digest, 'datapackage-digest.json', { compress: true });
    zip.end();
    await zipped;
    renameSync(aside, out);
    return { pages: n, resources: records.resources, records: records.records, missing: records.missing, bytes: records.bytes };
  } finally {
    pagesStream.destroy();
    zip.outputStream.unpipe();
    bytes.close();
    await pool.close();
    searcher.close();
    rmSync(work, { recursive: true, force: true });
  }
}
