/**
 * Opens an archive input as a stream of byte chunks: a local path, an http(s) URL (streamed,
 * resumed after a lost connection: remote-source.ts), or `-` for stdin. Errors name the input
 * and say what is wrong, without a stack.
 */
import { createReadStream, promises as fsp } from 'node:fs';
import { basename } from 'node:path';
import { InputError, describeFsError } from '../util/errors.js';

/** How remote archives are read (see remote-source.ts). */
export interface RemoteOptions {
  /** Milliseconds without response headers or without body data before a read counts as lost (http.timeout). */
  timeout: number;
  /** Reconnections after a lost connection (nwax.http.retries). */
  retries: number;
  /** Sent as User-Agent. */
  userAgent?: string;
}

export function isRemote(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

export interface ByteSource {
  /** What error messages call the input: the path as given, or `stdin`. */
  readonly name: string;
  /** The file name written into CDX lines. */
  readonly fileName: string;
  /** Size in bytes where known (files), else undefined. */
  readonly size: number | undefined;
  chunks(): AsyncIterator<Buffer>;
  close(): void;
}

const CHUNK = 1 << 20;

export async function openByteSource(path: string, remote: RemoteOptions = { timeout: 10_000, retries: 3 }): Promise<ByteSource> {
  if (isRemote(path)) {
    // undici loads only when an archive is remote.
    const { openRemoteSource } = await import('./remote-source.js');
    return openRemoteSource(path, remote);
  }
  if (path === '-') {
    return {
      name: 'stdin',
      fileName: '-',
      size: undefined,
      chunks: () => (process.stdin as AsyncIterable<Buffer>)[Symbol.asyncIterator](),
      close: () => {},
    };
  }
  let size: number;
  try {
    const st = await fsp.stat(path);
    if (st.isDirectory()) throw new InputError(`${path}: is a directory, not an archive file`);
    if (!st.isFile()) throw new InputError(`${path}: not a regular file`);
    size = st.size;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
  }
  let stream: ReturnType<typeof createReadStream> | undefined;
  return {
    name: path,
    fileName: basename(path),
    size,
    chunks() {
      stream = createReadStream(path, { highWaterMark: CHUNK });
      const it = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      return {
        next: async () => {
          try {
            return await it.next();
          } catch (err) {
            throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
          }
        },
        return: async () => (it.return ? it.return() : { done: true, value: undefined }),
      };
    },
    close() {
      stream?.destroy();
    },
  };
}
