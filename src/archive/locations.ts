/**
 * Where an archive input lies and what reading it gives: the kinds of location (a local path,
 * an http(s) URL, a cluster's file system URL, a WARC inside a WACZ package as
 * PACKAGE.wacz#ENTRY), the names CDX lines give them, and the byte source every reader
 * returns. The readers (file-source.ts, remote-source.ts, hadoop-source.ts, wacz.ts) and the
 * dispatcher between them (byte-source.ts) share these, so none imports another for them.
 */
import { basename } from 'node:path';

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
export function isPackageLocation(path: string): boolean {
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
