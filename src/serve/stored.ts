/**
 * The stored copy of a capture: its record read from the archive at the offset the index
 * holds (a byte range of a local file, or a Range request to a remote archive), its payload
 * streamed with its original content type, behind a sandbox Content-Security-Policy so that
 * archived scripts cannot run in the service's origin.
 */
import { basename } from 'node:path';
import type { ServerResponse } from 'node:http';
import { ArchiveReader } from '../archive/reader.js';
import { openByteRange } from '../archive/byte-source.js';
import { NwaxError } from '../util/errors.js';
import type { StoredRef } from '../search/types.js';

/** The header naming a stored copy's capture: its date (14 digits), a space, its URL. */
export const CAPTURE_HEADER = 'X-Archive-Capture';

/** Streams the payload of the capture to `res`; a clear error when the archive is not there. */
export async function sendStored(ref: StoredRef, res: ServerResponse): Promise<void> {
  const source = await openByteRange(ref.location, { offset: ref.offset, length: ref.clen }, { timeout: 10_000, retries: 2 });
  const reader = new ArchiveReader(source, { strict: true });
  try {
    for await (const r of reader) {
      const type = (r.format === 'warc' && r.type === 'response' ? r.http?.headers.get('Content-Type') : r.contentType) ?? ref.mime;
      const encoding = r.http?.headers.get('Content-Encoding');
      res.writeHead(200, {
        'Content-Type': type || 'application/octet-stream',
        ...(encoding && !/identity/i.test(encoding) ? { 'Content-Encoding': encoding.trim() } : {}),
        'Content-Security-Policy': "sandbox; default-src 'none'; img-src data: 'self'; style-src 'unsafe-inline'",
        'X-Content-Type-Options': 'nosniff',
        'X-Archive-Src': `${basename(ref.location)} ${ref.offset}`,
        // Which capture this is, so that a shard front applies its own rules before passing it on.
        [CAPTURE_HEADER]: `${ref.date} ${ref.url}`,
      });
      for await (const chunk of r.payload()) {
        if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
      return;
    }
    throw new NwaxError('NWAX_FORMAT', `${ref.location}: no record at offset ${ref.offset}`);
  } finally {
    source.close();
  }
}
