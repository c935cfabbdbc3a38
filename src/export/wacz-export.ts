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
import { createWriteStream, mkdtempSync, renameSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createGzip, gzipSync } from 'node:zlib';
import yazl from 'yazl';
import { openByteRange } from '../archive/byte-source.js';
import { ArchiveReader } from '../archive/reader.js';
import { cdxEntries } from '../cdx/indexer.js';
import { formatEntry } from '../cdx/cdx-format.js';
import { externalSort } from '../mapreduce/external-sort.js';
import { resourceUrls } from '../replay/page-resources.js';
import { CaptureIndex } from '../replay/captures.js';
import { Searcher } from '../search/searcher.js';
import { InputError, NwaxError, describeFsError } from '../util/errors.js';
import { RecordBytes, memorySource } from './record-bytes.js';

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
    if (!ref) continue;
    const ts = d.dates.split(' ').filter(Boolean).sort()[0] ?? '';
    yield { url: d.url, ts, title: d.title, text: searcher.text(d.setName, d.id), mime: d.mime, collection: d.collection, location: ref.location, offset: ref.offset, clen: ref.clen };
  }
}

/** A record's bytes copied to `out` at its end; a plain (uncompressed) record gzipped as one member. */
async function copyRecord(bytes: RecordBytes, location: string, offset: number, length: number, out: WriteStream, hash: ReturnType<typeof createHash>): Promise<{ written: number; whole?: Buffer }> {
  let written = 0;
  const write = async (b: Buffer) => {
    hash.update(b);
    written += b.length;
    if (!out.write(b)) await once(out, 'drain');
  };
  const whole = await bytes.read(location, offset, length);
  if (whole) {
    await write(whole[0] === 0x1f && whole[1] === 0x8b ? whole : gzipSync(whole));
    return { written, whole };
  }
  const source = await openByteRange(location, { offset, length: length > 0 ? length : undefined });
  try {
    const it = source.chunks();
    const first = await it.next();
    if (first.done) throw new NwaxError('NWAX_INPUT', `${location}: nothing at offset ${offset}`);
    const gz = first.value[0] === 0x1f && first.value[1] === 0x8b;
    const rest = async function* () {
      yield first.value;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    };
    if (gz) for await (const c of rest()) await write(c);
    else for await (const c of Readable.from(rest()).pipe(createGzip())) await write(c as Buffer);
  } finally {
    source.close();
  }
  return { written };
}

/** The page's HTML (its content encoding undone), up to `limit` bytes, for what it embeds; from `whole` when the record was read whole. */
async function pageHtml(p: Page, limit: number, whole?: Buffer): Promise<string> {
  const source = whole ? memorySource(p.location, whole) : await openByteRange(p.location, { offset: p.offset, length: p.clen > 0 ? p.clen : undefined });
  try {
    for await (const r of new ArchiveReader(source, { strict: false })) {
      const enc = (r.http?.headers.get('Content-Encoding') ?? '').toLowerCase();
      let stream: Readable = Readable.from(r.payload());
      if (/gzip/.test(enc)) stream = stream.pipe(createGunzip());
      else if (enc === 'br') stream = stream.pipe(createBrotliDecompress());
      const parts: Buffer[] = [];
      let n = 0;
      for await (const c of stream) {
        parts.push(c as Buffer);
        n += (c as Buffer).length;
        if (n >= limit) break;
      }
      stream.destroy();
      return Buffer.concat(parts).toString('latin1');
    }
    return '';
  } finally {
    source.close();
  }
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
  const searcher = new Searcher(o.dir);
  const captures = new CaptureIndex(o.dir, [], []);
  const work = mkdtempSync(join(dirname(out), '.nwax-export-'));
  const summary: ExportSummary = { pages: 0, resources: 0, records: 0, missing: 0, bytes: 0 };
  const bytes = new RecordBytes();
  try {
    const warcPath = join(work, 'data.warc.gz');
    const warc = createWriteStream(warcPath);
    const warcHash = createHash('sha256');
    const pagesPath = join(work, 'pages.jsonl');
    const pages = createWriteStream(pagesPath);
    const pagesHash = createHash('sha256');
    const writePage = async (line: string) => {
      pagesHash.update(line);
      if (!pages.write(line)) await once(pages, 'drain');
    };
    await writePage(`${JSON.stringify(PAGES_HEADER)}\n`);
    // A record copied once, however many pages embed it.
    const copied = new Set<string>();
    /** The record copied (false: it was already); `whole`: its bytes when read whole. */
    const copy = async (location: string, offset: number, length: number): Promise<{ fresh: boolean; whole?: Buffer }> => {
      // (The index and the capture index may name one file by two paths: ../ and all.)
      const key = `${/^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? location : resolve(location)}\u0000${offset}`;
      if (copied.has(key)) return { fresh: false };
      copied.add(key);
      const r = await copyRecord(bytes, location, offset, length, warc, warcHash);
      summary.bytes += r.written;
      summary.records++;
      return { fresh: true, whole: r.whole };
    };
    const nearest = new Map<string, { location: string; offset: number; length: number } | null>();
    for (const p of selectPages(searcher, o.query)) {
      const { whole } = await copy(p.location, p.offset, p.clen);
      summary.pages++;
      await writePage(`${JSON.stringify({ id: createHash('sha1').update(`${p.url} ${p.ts}`).digest('hex').slice(0, 20), url: p.url, ts: iso(p.ts), ...(p.title ? { title: p.title } : {}), ...(p.text ? { text: p.text } : {}) })}\n`);
      if (o.resources === false || !/html/i.test(p.mime)) continue;
      for (const u of resourceUrls(await pageHtml(p, o.htmlLimit ?? 4 << 20, whole), p.url)) {
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
        const location = near?.location;
        if (!near || !location) {
          summary.missing++;
          continue;
        }
        if ((await copy(location, near.offset, near.length)).fresh) summary.resources++;
      }
    }
    warc.end();
    pages.end();
    await Promise.all([once(warc, 'close'), once(pages, 'close')]);
    if (summary.pages === 0) throw new NwaxError('NWAX_INPUT', o.query === undefined ? `${o.dir}: no document to export` : `${o.query}: no version found to export`);

    // The index: nwax cdx of the WARC just written, sorted (CDXJ, the file named as in the package).
    const indexPath = join(work, 'index.cdx');
    const index = createWriteStream(indexPath);
    const indexHash = createHash('sha256');
    const run = await cdxEntries(warcPath, {});
    async function* lines(): AsyncGenerator<string[]> {
      let batch: string[] = [];
      for await (const e of run.entries) {
        batch.push(formatEntry(e, 'cdxj'));
        if (batch.length >= 4096) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    }
    for await (const b of externalSort(lines(), { memory: 64 << 20, tmpDir: work })) {
      const text = b.map((l) => `${l}\n`).join('');
      indexHash.update(text);
      if (!index.write(text)) await once(index, 'drain');
    }
    index.end();
    await once(index, 'close');

    const resource = (name: string, path: string, file: string, hash: ReturnType<typeof createHash>) => ({ name, path, hash: `sha256:${hash.digest('hex')}`, bytes: statSync(file).size });
    const datapackage = Buffer.from(`${JSON.stringify({
      profile: 'data-package',
      resources: [
        resource('data.warc.gz', 'archive/data.warc.gz', warcPath, warcHash),
        resource('index.cdx', 'indexes/index.cdx', indexPath, indexHash),
        resource('pages.jsonl', 'pages/pages.jsonl', pagesPath, pagesHash),
      ],
      wacz_version: '1.1.1',
      title: o.query === undefined ? `nwax export of ${o.dir}` : `nwax export of "${o.query}" in ${o.dir}`,
      created: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      software: o.software,
    }, null, 2)}\n`);
    const digest = Buffer.from(`${JSON.stringify({ path: 'datapackage.json', hash: `sha256:${createHash('sha256').update(datapackage).digest('hex')}` }, null, 2)}\n`);

    // The WARC stored (WACZ readers read its records by offset), the rest deflated.
    const zip = new yazl.ZipFile();
    zip.addFile(warcPath, 'archive/data.warc.gz', { compress: false });
    zip.addFile(indexPath, 'indexes/index.cdx', { compress: true });
    zip.addFile(pagesPath, 'pages/pages.jsonl', { compress: true });
    zip.addBuffer(datapackage, 'datapackage.json', { compress: true });
    zip.addBuffer(digest, 'datapackage-digest.json', { compress: true });
    zip.end();
    const aside = join(work, 'out.wacz');
    await once(zip.outputStream.pipe(createWriteStream(aside)), 'close');
    renameSync(aside, out);
    return summary;
  } finally {
    await bytes.close();
    searcher.close();
    rmSync(work, { recursive: true, force: true });
  }
}
