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
import { closeSync, createWriteStream, mkdtempSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import yazl from 'yazl';
import { openByteRange } from '../archive/byte-source.js';
import { formatEntry } from '../cdx/cdx-format.js';
import { externalSort } from '../mapreduce/external-sort.js';
import { lineBatches } from '../mapreduce/line-reader.js';
import { CaptureIndex } from '../replay/captures.js';
import { AccessPolicy, type AccessSettings } from '../access/policy.js';
import { Searcher } from '../search/searcher.js';
import { InputError, NwaxError, describeFsError } from '../util/errors.js';
import { RecordBytes } from './record-bytes.js';
import { scanRecord, type RecordScan } from './record-scan.js';
import { ScanPool } from './scan-pool.js';

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
    const ts = d.dates.split(' ').filter(Boolean).sort()[0] ?? '';
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

/** `b` written at the file's end (and hashed); its length. */
function writeAll(fd: number, b: Buffer, hash?: ReturnType<typeof createHash>): number {
  hash?.update(b);
  for (let at = 0; at < b.length; ) at += writeSync(fd, b, at);
  return b.length;
}

/** `text` appended to the file; the empty string (what is left to hold). */
function flushText(fd: number, text: string): string {
  if (text) writeAll(fd, Buffer.from(text));
  return '';
}

/** A record too large to hold (or remote, or in a package) copied as it is read; a plain one gzipped as one member. */
async function streamRecord(location: string, offset: number, length: number, fd: number, hash: ReturnType<typeof createHash>): Promise<number> {
  const source = await openByteRange(location, { offset, length: length > 0 ? length : undefined });
  let written = 0;
  try {
    const it = source.chunks();
    const first = await it.next();
    if (first.done) throw new NwaxError('NWAX_INPUT', `${location}: nothing at offset ${offset}`);
    const rest = async function* () {
      yield first.value;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    };
    const gz = first.value[0] === 0x1f && first.value[1] === 0x8b;
    for await (const c of gz ? rest() : Readable.from(rest()).pipe(createGzip())) written += writeAll(fd, c as Buffer, hash);
  } finally {
    source.close();
  }
  return written;
}

/**
 * Pages read and handed to the scan threads ahead of the one placed: enough to keep them
 * busy, and a bound on the bytes held (records up to 8 MB each are read whole).
 */
const AHEAD = 64;
const AHEAD_BYTES = 64 << 20;

/** A record read for the package: its bytes (a gzip member) and what the scan found; bytes undefined: streamed when placed. */
interface Prepared {
  bytes?: Buffer;
  scan?: RecordScan;
}

export async function exportWacz(o: ExportOptions): Promise<ExportSummary> {
  const out = resolve(o.out);
  try {
    if (!statSync(dirname(out)).isDirectory()) throw new InputError(`${o.out}: ${dirname(o.out)} is not a directory`);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`${o.out}: ${describeFsError(dirname(o.out), err as NodeJS.ErrnoException)}`);
  }
  // The indexes first: one that cannot be opened leaves nothing behind.
  const policy = o.access ? new AccessPolicy(o.access) : undefined;
  const searcher = new Searcher(o.dir, undefined, policy);
  const everyCapture = new CaptureIndex(o.dir, [], []);
  // Resources too: a withheld capture of an image or a script leaves with no page.
  const captures = policy?.active ? everyCapture.scoped((c) => policy.decide(c.url, c.ts).access) : everyCapture;
  const work = mkdtempSync(join(dirname(out), '.nwax-export-'));
  const summary: ExportSummary = { pages: 0, resources: 0, records: 0, missing: 0, bytes: 0 };
  const bytes = new RecordBytes();
  const pool = new ScanPool();
  const htmlLimit = o.htmlLimit ?? 4 << 20;
  // The package is written as the records are: pages.jsonl is its first entry, deflated on
  // libuv's threads while the records are copied (the WARC, stored, follows it from its file).
  const zip = new yazl.ZipFile();
  const aside = join(work, 'out.wacz');
  const zipped = once(zip.outputStream.pipe(createWriteStream(aside)), 'close');
  zipped.catch(() => {});
  const pages = new PassThrough({ highWaterMark: 1 << 20 });
  zip.addReadStream(pages, 'pages/pages.jsonl', { compress: true });
  try {
    const warcPath = join(work, 'data.warc.gz');
    const warc = openSync(warcPath, 'w');
    const warcHash = createHash('sha256');
    const unsortedPath = join(work, 'index.unsorted');
    const unsorted = openSync(unsortedPath, 'w');
    let indexText = '';
    const pagesHash = createHash('sha256');
    let pagesBytes = 0;
    // Lines go to the deflater in batches: a write per page cost a trip to libuv's threads each.
    let pagesText = '';
    const flushPages = async () => {
      const b = Buffer.from(pagesText);
      pagesText = '';
      pagesHash.update(b);
      pagesBytes += b.length;
      if (!pages.write(b)) await once(pages, 'drain');
    };
    const writePage = async (line: string) => {
      pagesText += line;
      if (pagesText.length >= 1 << 18) await flushPages();
    };
    await writePage(`${JSON.stringify(PAGES_HEADER)}\n`);

    /** The record at `location` read (and scanned on the pool), or left to be streamed when placed. */
    const prepare = (location: string, offset: number, length: number, html: boolean): Promise<Prepared> => {
      const whole = bytes.read(location, offset, length);
      if (!whole) return Promise.resolve({});
      // A plain (uncompressed) record goes into the package as a gzip member of its own.
      return pool.scan(whole[0] === 0x1f && whole[1] === 0x8b ? whole : gzipSync(whole), { html, htmlLimit });
    };
    // A record copied once, however many pages embed it.
    const copied = new Set<string>();
    // (The index and the capture index may name one file by two paths: ../ and all.)
    const recordKey = (location: string, offset: number) => `${/^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? location : resolve(location)}\u0000${offset}`;
    /** The record written at the WARC's end, and its index line; its scan's URLs. */
    const place = async (location: string, offset: number, length: number, html: boolean, r: Prepared): Promise<{ fresh: boolean; urls: string[] }> => {
      const key = recordKey(location, offset);
      const fresh = !copied.has(key);
      let scan = r.scan;
      if (fresh) {
        copied.add(key);
        const at = summary.bytes;
        const written = r.bytes ? writeAll(warc, r.bytes, warcHash) : await streamRecord(location, offset, length, warc, warcHash);
        if (!scan) {
          const range = { offset, length: length > 0 ? length : undefined };
          scan = await scanRecord(() => openByteRange(location, range), { html, htmlLimit });
        }
        summary.bytes += written;
        summary.records++;
        if (scan.entry) {
          indexText += `${formatEntry({ ...scan.entry, offset: at, length: written }, 'cdxj')}\n`;
          if (indexText.length >= 1 << 20) indexText = flushText(unsorted, indexText);
        }
      } else if (!scan && html) {
        scan = await scanRecord(() => openByteRange(location, { offset, length: length > 0 ? length : undefined }), { html, htmlLimit });
      }
      return { fresh, urls: scan?.urls ?? [] };
    };

    const nearest = new Map<string, { location: string; offset: number; length: number } | null>();
    /** The page's record placed, then the records of what it embeds. */
    const placePage = async (p: Page, prepared: Prepared) => {
      const html = o.resources !== false && /html/i.test(p.mime);
      const { urls } = await place(p.location, p.offset, p.clen, html, prepared);
      for (const u of urls) {
        // The nearest capture that holds the resource itself (a revisit would need its original);
        // a resource many pages embed (a site's stylesheet, its logo) looked up once a day.
        const key = `${p.collection}\u0000${p.ts.slice(0, 8)}\u0000${u}`;
        let near = nearest.get(key);
        if (near === undefined) {
          const c = (await captures.closest(u, p.ts, p.collection || '*')).captures.find((x) => x.mime !== 'warc/revisit');
          const location = c && (await c.locate());
          near = c && location ? { location, offset: c.offset, length: c.length } : null;
          nearest.set(key, near);
          if (nearest.size > 100_000) nearest.delete(nearest.keys().next().value!);
        }
        if (!near) {
          summary.missing++;
          continue;
        }
        if (copied.has(recordKey(near.location, near.offset))) continue;
        await place(near.location, near.offset, near.length, false, await prepare(near.location, near.offset, near.length, false));
        summary.resources++;
      }
    };

    // Pages read and scanned ahead, placed in the index's order: the package's bytes do not
    // depend on which thread finished first.
    const ahead: { page: Page; prepared: Promise<Prepared> }[] = [];
    let aheadBytes = 0;
    for (const p of selectPages(searcher, o.query)) {
      summary.pages++;
      await writePage(
        `${JSON.stringify({ id: createHash('sha1').update(`${p.url} ${p.ts}`).digest('hex').slice(0, 20), url: p.url, ts: iso(p.ts), ...(p.title ? { title: p.title } : {}), ...(p.text ? { text: p.text } : {}) })}\n`,
      );
      const prepared = prepare(p.location, p.offset, p.clen, o.resources !== false && /html/i.test(p.mime));
      prepared.catch(() => {});
      ahead.push({ page: p, prepared });
      aheadBytes += Math.max(p.clen, 0);
      while (ahead.length >= AHEAD || aheadBytes > AHEAD_BYTES) {
        const next = ahead.shift()!;
        aheadBytes -= Math.max(next.page.clen, 0);
        await placePage(next.page, await next.prepared);
      }
    }
    for (const next of ahead) await placePage(next.page, await next.prepared);
    await flushPages();
    pages.end();
    closeSync(warc);
    flushText(unsorted, indexText);
    closeSync(unsorted);
    if (summary.pages === 0)
      throw new NwaxError('NWAX_INPUT', o.query === undefined ? `${o.dir}: no document to export` : `${o.query}: no version found to export`);

    // The index: the records' CDXJ lines, sorted (as nwax cdx of the WARC would give them).
    const indexPath = join(work, 'index.cdx');
    const index = createWriteStream(indexPath);
    const indexHash = createHash('sha256');
    for await (const b of externalSort(lineBatches(unsortedPath), { memory: 64 << 20, tmpDir: work })) {
      const text = b.map((l) => `${l}\n`).join('');
      indexHash.update(text);
      if (!index.write(text)) await once(index, 'drain');
    }
    index.end();
    await once(index, 'close');

    const resource = (name: string, path: string, file: string, hash: ReturnType<typeof createHash>) => ({
      name,
      path,
      hash: `sha256:${hash.digest('hex')}`,
      bytes: statSync(file).size,
    });
    const datapackage = Buffer.from(
      `${JSON.stringify(
        {
          profile: 'data-package',
          resources: [
            resource('data.warc.gz', 'archive/data.warc.gz', warcPath, warcHash),
            resource('index.cdx', 'indexes/index.cdx', indexPath, indexHash),
            { name: 'pages.jsonl', path: 'pages/pages.jsonl', hash: `sha256:${pagesHash.digest('hex')}`, bytes: pagesBytes },
          ],
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

    // The WARC stored (WACZ readers read its records by offset), the rest deflated.
    zip.addFile(warcPath, 'archive/data.warc.gz', { compress: false });
    zip.addFile(indexPath, 'indexes/index.cdx', { compress: true });
    zip.addBuffer(datapackage, 'datapackage.json', { compress: true });
    zip.addBuffer(digest, 'datapackage-digest.json', { compress: true });
    zip.end();
    await zipped;
    renameSync(aside, out);
    return summary;
  } finally {
    pages.destroy();
    zip.outputStream.unpipe();
    bytes.close();
    await pool.close();
    searcher.close();
    rmSync(work, { recursive: true, force: true });
  }
}
