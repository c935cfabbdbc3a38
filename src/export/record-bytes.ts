/**
 * Records of local archives read whole by offset, synchronously, through descriptors kept
 * open: an export copies thousands of records out of a few archives, and an open, a read and
 * a close each (or a trip through libuv's thread pool for each read) left the thread waiting
 * more than working. Each record gets a buffer of its own, so it can be transferred to a
 * worker thread.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { isClusterPath, isRemote } from '../archive/byte-source.js';
import type { ByteSource } from '../archive/byte-source.js';

/** Records larger than this are streamed, never held. */
const WHOLE_MAX = 8 << 20;
const HANDLES = 32;

export class RecordBytes {
  private readonly fds = new Map<string, number | null>();

  /** The record's bytes, when it is in a local file (not a package) and at most 8 MB; else undefined. */
  read(location: string, offset: number, length: number): Buffer | undefined {
    if (length <= 0 || length > WHOLE_MAX || isRemote(location) || isClusterPath(location) || /\.wacz#/i.test(location)) return undefined;
    let fd = this.fds.get(location);
    if (fd === undefined) {
      try {
        fd = openSync(location, 'r');
      } catch {
        // Streamed instead, which says what is wrong with the file.
        fd = null;
      }
      this.fds.set(location, fd);
      if (this.fds.size > HANDLES) {
        const [oldest, old] = this.fds.entries().next().value!;
        this.fds.delete(oldest);
        if (old !== null) closeSync(old);
      }
    }
    if (fd === null) return undefined;
    const buf = Buffer.allocUnsafeSlow(length);
    return readSync(fd, buf, 0, length, offset) === length ? buf : undefined;
  }

  close(): void {
    for (const fd of this.fds.values()) if (fd !== null) closeSync(fd);
    this.fds.clear();
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
