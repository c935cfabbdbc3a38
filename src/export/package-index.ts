/**
 * A package's index of its WARC, in the form its size calls for. Up to `plainMax` lines it is
 * one plain CDXJ, `indexes/index.cdx`, which ReplayWeb.page reads whole when it opens the
 * package. Above, it is written as py-wacz and ArchiveWeb.page write a large one, which
 * ReplayWeb.page opens without reading it whole: `indexes/index.cdx.gz`, gzip members of 1024
 * lines each (stored, so a member is read by its byte range), and the summary
 * `indexes/index.idx` (`!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}`, then
 * each member's first key and timestamp with its offset and length), which it loads instead and
 * searches, reading only the members a lookup needs. (A whole 6 MB plain index took
 * ReplayWeb.page 35-110 s to open; issue 71.)
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { ZipWriter } from './zip-writer.js';

/** Lines per gzip member: ArchiveWeb.page's and py-wacz's (DEFAULT_NUM_LINES). */
export const LINES_PER_BLOCK = 1024;

/** A file of the package as datapackage.json lists it. */
export interface PackageFile {
  name: string;
  path: string;
  bytes: number;
  hash: ReturnType<typeof createHash>;
}

/** The first `n` lines of the sorted batches, and the rest of them still to read. */
async function firstLines(batches: AsyncIterator<string[]>, n: number): Promise<{ head: string[]; more: boolean }> {
  const head: string[] = [];
  while (head.length <= n) {
    const next = await batches.next();
    if (next.done) return { head, more: false };
    head.push(...next.value);
  }
  return { head, more: true };
}

/** Writes the index of `sorted` (CDXJ lines in order) into the package; the files it made. */
export async function writePackageIndex(zip: ZipWriter, sorted: AsyncIterable<string[]>, plainMax: number): Promise<PackageFile[]> {
  const batches = sorted[Symbol.asyncIterator]();
  const { head, more } = await firstLines(batches, plainMax);
  if (!more) {
    const text = Buffer.from(head.map((l) => `${l}\n`).join(''));
    const hash = createHash('sha256').update(text);
    await zip.deflated('indexes/index.cdx', 6, async (sink) => sink.write(text));
    return [{ name: 'index.cdx', path: 'indexes/index.cdx', bytes: text.length, hash }];
  }
  const gzHash = createHash('sha256');
  const summary = ['!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}'];
  const gzBytes = await zip.stored('indexes/index.cdx.gz', async (sink) => {
    // Lines not yet in a member: `pending` from `at` on.
    let pending = head;
    let at = 0;
    const flush = (lines: string[]) => {
      const member = gzipSync(Buffer.from(lines.map((l) => `${l}\n`).join('')), { level: 6 });
      const [key, ts] = lines[0].split(' ', 2);
      summary.push(`${key} ${ts} ${JSON.stringify({ offset: sink.size, length: member.length })}`);
      gzHash.update(member);
      sink.write(member);
    };
    for (;;) {
      for (; pending.length - at >= LINES_PER_BLOCK; at += LINES_PER_BLOCK) flush(pending.slice(at, at + LINES_PER_BLOCK));
      const next = await batches.next();
      if (next.done) break;
      pending = pending.slice(at).concat(next.value);
      at = 0;
    }
    if (pending.length > at) flush(pending.slice(at));
    return sink.size;
  });
  const idx = Buffer.from(`${summary.join('\n')}\n`);
  await zip.deflated('indexes/index.idx', 6, async (sink) => sink.write(idx));
  return [
    { name: 'index.cdx.gz', path: 'indexes/index.cdx.gz', bytes: gzBytes, hash: gzHash },
    { name: 'index.idx', path: 'indexes/index.idx', bytes: idx.length, hash: createHash('sha256').update(idx) },
  ];
}
