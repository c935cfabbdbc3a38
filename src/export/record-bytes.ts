/**
 * Records of local archives read whole by offset through file handles kept open: an export
 * copies thousands of records out of a few archives, and an open, a read and a close each
 * (and again to read the page's HTML) left the thread waiting more than working.
 */
import { promises as fsp, type promises } from 'node:fs';
import { isClusterPath, isRemote } from '../archive/byte-source.js';
import type { ByteSource } from '../archive/byte-source.js';

/** Records larger than this are streamed, never held. */
const WHOLE_MAX = 8 << 20;
const HANDLES = 32;

export class RecordBytes {
  private readonly handles = new Map<string, Promise<promises.FileHandle>>();

  /** The record's bytes, when it is in a local file (not a package) and at most 8 MB; else undefined. */
  async read(location: string, offset: number, length: number): Promise<Buffer | undefined> {
    if (length <= 0 || length > WHOLE_MAX || isRemote(location) || isClusterPath(location) || /\.wacz#/i.test(location)) return undefined;
    let fh = this.handles.get(location);
    if (!fh) {
      fh = fsp.open(location, 'r');
      this.handles.set(location, fh);
      if (this.handles.size > HANDLES) {
        const [oldest, h] = this.handles.entries().next().value!;
        this.handles.delete(oldest);
        void h.then((x) => x.close(), () => {});
      }
    }
    let handle: promises.FileHandle;
    try {
      handle = await fh;
    } catch {
      this.handles.delete(location);
      return undefined;
    }
    const buf = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(buf, 0, length, offset);
    return bytesRead === length ? buf : undefined;
  }

  async close(): Promise<void> {
    for (const h of this.handles.values()) await h.then((x) => x.close(), () => {});
    this.handles.clear();
  }
}

/** Bytes in memory as a ByteSource (a record read whole, read again for its payload). */
export function memorySource(name: string, bytes: Buffer): ByteSource {
  return {
    name,
    fileName: name,
    size: bytes.length,
    chunks: () => [bytes][Symbol.iterator]() as unknown as AsyncIterator<Buffer>,
    reopen: (offset) => [bytes.subarray(offset)][Symbol.iterator]() as unknown as AsyncIterator<Buffer>,
    close: () => {},
  };
}
