/**
 * The capture index lines one import map task writes as it reads its archive (or its split of
 * one): the CDX11 line of every record `nwax cdx` would index, from the same read that makes
 * the segment, so an archive is read once. Unsorted, one file per task in the folder the
 * import command names (nwax.import.captures.dir); the command sorts them into the segment's
 * captures.cdx when the job is done (capture-index.ts).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { formatEntry } from '../cdx/cdx-format.js';
import type { CdxEntry } from '../cdx/cdx-entry.js';

/** Bytes of lines held before a write. */
const FLUSH_AT = 1 << 20;

export class CaptureLines {
  private readonly fd: number;
  private pending: string[] = [];
  private pendingChars = 0;

  /** A new file of lines in `dir` (a name no other task picks). */
  constructor(dir: string) {
    this.fd = openSync(join(dir, `${randomUUID()}.cdx`), 'w');
  }

  add(entry: CdxEntry): void {
    const line = `${formatEntry(entry, 'cdx11')}\n`;
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars >= FLUSH_AT) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}
