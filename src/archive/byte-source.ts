/**
 * Opens an archive input as a stream of byte chunks: a local path, an http(s) URL (streamed,
 * resumed after a lost connection: remote-source.ts), a cluster's file system URL (hdfs://...,
 * through `hadoop fs -cat`: hadoop-source.ts), a WARC inside a WACZ package (wacz.ts), or `-`
 * for stdin. Errors name the input and say what is wrong, without a stack.
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
  /** The command that reads archives on a cluster's file system (hdfs://...): nwax.hadoop.command. */
  hadoop?: string;
}

/** Part of an archive: one record at the offset and length a CDX line gives. */
export interface ByteRange {
  offset: number;
  /** Bytes from the offset; undefined: to the end (CDX9 gives no length; the reader stops after one record). */
  length?: number;
}

export function isRemote(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

/** A URL of a cluster's file system (hdfs://, s3a://, ...: any scheme but http(s) and file), read with `hadoop fs`. */
export function isClusterPath(path: string): boolean {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(path);
  return m !== null && !/^(https?|file)$/i.test(m[1]);
}

/** A WARC inside a WACZ package (local, on a web server or on a cluster's file system), named PACKAGE.wacz#ENTRY (wacz.ts). */
function isPackageLocation(path: string): boolean {
  return /\.wacz#./i.test(path);
}

/**
 * The name CDX lines give an archive: its file name (without a URL's query or fragment), or
 * PACKAGE.wacz#ENTRY for a WARC inside a local package.
 */
export function archiveName(location: string): string {
  if (isPackageLocation(location)) {
    const at = location.search(/\.wacz#/i) + 5;
    return `${basename(location.slice(0, at))}${location.slice(at)}`;
  }
  return basename(location.replace(/[?#].*$/, ''));
}

/** The file on this machine that holds a local location: the package of PACKAGE.wacz#ENTRY, else the path. */
export function localFileOf(location: string): string {
  return isPackageLocation(location) && !isRemote(location) && !isClusterPath(location) ? location.slice(0, location.search(/\.wacz#/i) + 5) : location;
}

export interface ByteSource {
  /** What error messages call the input: the path as given, or `stdin`. */
  readonly name: string;
  /** The file name written into CDX lines. */
  readonly fileName: string;
  /** Size in bytes where known (files), else undefined. */
  readonly size: number | undefined;
  chunks(): AsyncIterator<Buffer>;
  /**
   * The bytes again from `offset` (relative to where chunks() starts), for sources that can be
   * read twice (local files). After damage the reader goes back to the first place a good
   * record may start; a source without it (stdin, http) resumes where reading has got to.
   */
  reopen?(offset: number): AsyncIterator<Buffer>;
  close(): void;
}

const CHUNK = 1 << 20;

export async function openByteSource(path: string, remote: RemoteOptions = { timeout: 10_000, retries: 3 }): Promise<ByteSource> {
  if (isPackageLocation(path)) return (await import('./wacz.js')).openEntrySource(path, undefined, remote);
  if (isClusterPath(path)) return (await import('./hadoop-source.js')).openClusterSource(path, remote.hadoop);
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
  const chunksFrom = (start: number): AsyncIterator<Buffer> => {
    stream?.destroy();
    stream = createReadStream(path, { highWaterMark: CHUNK, start });
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
  };
  return {
    name: path,
    fileName: basename(path),
    size,
    chunks: () => chunksFrom(0),
    reopen: (offset) => chunksFrom(offset),
    close() {
      stream?.destroy();
    },
  };
}

/**
 * One byte range of an archive: a positional read of a local file, or a Range request to a
 * remote one (retried and resumed as a whole-file read is; a server that ignores Range is an
 * error). Nothing outside the range is read.
 */
export async function openByteRange(path: string, range: ByteRange, remote: RemoteOptions = { timeout: 10_000, retries: 3 }): Promise<ByteSource> {
  if (isPackageLocation(path)) return (await import('./wacz.js')).openEntrySource(path, range, remote);
  if (isClusterPath(path)) return (await import('./hadoop-source.js')).openClusterSource(path, remote.hadoop, range);
  if (isRemote(path)) {
    const { openRemoteSource } = await import('./remote-source.js');
    return openRemoteSource(path, remote, range);
  }
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(path, 'r');
  } catch (err) {
    throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
  }
  let closed = false;
  const close = () => {
    if (!closed) void fh.close().catch(() => {});
    closed = true;
  };
  return {
    name: `${path} at ${range.offset}`,
    fileName: basename(path),
    size: range.length,
    chunks: () => rangeChunks(0),
    reopen: (offset) => rangeChunks(offset),
    close,
  };

  function rangeChunks(from: number): AsyncIterator<Buffer> {
    let at = range.offset + from;
    const end = range.length === undefined ? Infinity : range.offset + range.length;
    return {
      next: async (): Promise<IteratorResult<Buffer>> => {
        if (at >= end || closed) return { done: true, value: undefined };
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, end - at));
        let n: number;
        try {
          ({ bytesRead: n } = await fh.read(buf, 0, buf.length, at));
        } catch (err) {
          throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
        }
        if (n === 0) return { done: true, value: undefined };
        at += n;
        return { done: false, value: buf.subarray(0, n) };
      },
      return: async () => {
        close();
        return { done: true, value: undefined };
      },
    };
  }
}
