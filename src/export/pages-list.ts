/**
 * A package's `pages/pages.jsonl`: the versions a person opens as pages (HTML, and PDF), not
 * the images, stylesheets and scripts the collection also holds; the collection's entry points
 * (each site's home page) first, the other pages after them. ReplayWeb.page loads the list
 * whole when it opens a package, and its search reads the list's text only as far as the first
 * MiB of its entry as the package stores it (wabac.js's getTextIndex: 1048576 bytes of the
 * deflated entry, in 2.5.3): a text past that is never searched, and a list whose text fills it
 * hides every later page from the search, titles included. So the pages keep their text while
 * the list, deflated, stays within `textMax` bytes (by default that MiB); past it, the list is
 * written without text (`hasText: false`), and ReplayWeb.page then searches the titles and URLs
 * of every page. Lines are kept aside (uncompressed, in files of their own) until the list is
 * written into the package at the end.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { createDeflateRaw } from 'node:zlib';
import { join } from 'node:path';
import type { ZipWriter } from './zip-writer.js';
import { date14ToIso } from '../archive/dates.js';
import type { PackageFile } from './package-index.js';

/** What pages.jsonl lists of a version. */
export interface ListedPage {
  url: string;
  /** The capture time, 14 digits. */
  ts: string;
  title: string;
  mime: string;
  /** The page's text as a JSON string's bytes; undefined: none. */
  text: () => Buffer | undefined;
}

/** What ReplayWeb.page 2.5.3 reads of a text index: the first MiB of its entry. */
export const TEXT_READ = 1 << 20;

/** Text past this many times the budget is not kept aside: no page text deflates that far. */
const RAW_PER_DEFLATED = 16;

/** The types a person opens as a page. */
const PAGE_TYPES = /^(text\/html|application\/xhtml\+xml|application\/pdf)\b/i;

/** Whether a version of this type is a page (listed), rather than a part of one. */
export function isPage(mime: string): boolean {
  return PAGE_TYPES.test(mime);
}

/** A site's home page: the entry point a visitor starts from. */
export function isEntryPoint(url: string): boolean {
  try {
    return /^\/(index\.[a-z]+)?$/i.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

/** Lines appended to a file of their own. */
class LineFile {
  readonly path: string;
  private readonly fd: number;
  bytes = 0;
  constructor(dir: string, name: string) {
    this.path = join(dir, name);
    this.fd = openSync(this.path, 'w');
  }
  write(parts: Buffer[]): void {
    for (const b of parts) {
      for (let at = 0; at < b.length; ) at += writeSync(this.fd, b, at);
      this.bytes += b.length;
    }
  }
  close(): void {
    closeSync(this.fd);
  }
}

const TEXT_FIELD = Buffer.from(',"text":');
const LINE_END = Buffer.from('}\n');

export class PagesList {
  /** Pages listed. */
  pages = 0;
  /** Whether the pages' text fit (else the list is written without it). */
  private textFits = true;
  private readonly files: Record<'titledEntry' | 'titledOther' | 'textEntry' | 'textOther', LineFile>;

  constructor(
    dir: string,
    private readonly textMax = TEXT_READ,
  ) {
    this.files = {
      titledEntry: new LineFile(dir, 'pages-titled-entry'),
      titledOther: new LineFile(dir, 'pages-titled-other'),
      textEntry: new LineFile(dir, 'pages-text-entry'),
      textOther: new LineFile(dir, 'pages-text-other'),
    };
  }

  /** A version placed in the package: listed when it is a page. */
  add(p: ListedPage): void {
    if (!isPage(p.mime)) return;
    this.pages++;
    const id = createHash('sha1').update(`${p.url} ${p.ts}`).digest('hex').slice(0, 20);
    const head = JSON.stringify({ id, url: p.url, ts: date14ToIso(p.ts), ...(p.title ? { title: p.title } : {}) });
    const entry = isEntryPoint(p.url);
    (entry ? this.files.titledEntry : this.files.titledOther).write([Buffer.from(`${head}\n`)]);
    if (!this.textFits) return;
    const text = p.text();
    // An empty text ("") is left out, as JSON.stringify's page was written without it.
    const line = text === undefined || text.length <= 2 ? [Buffer.from(`${head}\n`)] : [Buffer.from(head.slice(0, -1)), TEXT_FIELD, text, LINE_END];
    (entry ? this.files.textEntry : this.files.textOther).write(line);
    if (this.files.textEntry.bytes + this.files.textOther.bytes > RAW_PER_DEFLATED * this.textMax) this.textFits = false;
  }

  /** Whether the list holds the pages' text. */
  get hasText(): boolean {
    return this.textFits;
  }

  /** Whether the list with its text, deflated at `level`, is at most `max` bytes (deflated until it is past them). */
  private async deflatesWithin(header: Buffer, level: number, max: number): Promise<boolean> {
    const d = createDeflateRaw({ level });
    let out = 0;
    d.on('data', (c: Buffer) => {
      out += c.length;
    });
    const ended = new Promise<void>((ok, fail) => d.once('end', ok).once('error', fail));
    const put = (b: Buffer) => (d.write(b) ? Promise.resolve() : new Promise<void>((ok) => d.once('drain', ok)));
    await put(header);
    for (const f of [this.files.textEntry, this.files.textOther])
      for await (const chunk of createReadStream(f.path)) {
        if (out > max) break;
        await put(chunk as Buffer);
      }
    d.end();
    await ended;
    return out <= max;
  }

  /** pages/pages.jsonl into the package, deflated at `level`; the file as datapackage.json lists it. */
  async write(zip: ZipWriter, level: number): Promise<PackageFile> {
    for (const f of Object.values(this.files)) f.close();
    const withText = Buffer.from(`${JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages', hasText: true })}\n`);
    // As the package will hold it: deflated at `level`, or stored (level 0) as it is.
    const raw = withText.length + this.files.textEntry.bytes + this.files.textOther.bytes;
    if (this.textFits) this.textFits = level > 0 ? await this.deflatesWithin(withText, level, this.textMax) : raw <= this.textMax;
    const hash = createHash('sha256');
    let bytes = 0;
    const header = Buffer.from(`${JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages', hasText: this.textFits })}\n`);
    const parts = this.textFits ? [this.files.textEntry, this.files.textOther] : [this.files.titledEntry, this.files.titledOther];
    await zip.deflated('pages/pages.jsonl', level, async (sink) => {
      const put = async (b: Buffer) => {
        hash.update(b);
        bytes += b.length;
        await sink.write(b);
      };
      await put(header);
      for (const f of parts) for await (const chunk of createReadStream(f.path)) await put(chunk as Buffer);
    });
    return { name: 'pages.jsonl', path: 'pages/pages.jsonl', bytes, hash };
  }
}
