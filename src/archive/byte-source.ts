/**
 * Opens an archive input as a stream of byte chunks: a local path, an http(s) URL (streamed,
 * resumed after a lost connection: remote-source.ts), a cluster's file system URL (hdfs://...,
 * through `hadoop fs -cat`: hadoop-source.ts), a WARC inside a WACZ package (wacz.ts), or `-`
 * for stdin. Errors name the input and say what is wrong, without a stack.
 */
import { openFileRange, openFileSource } from './file-source.js';
import { isClusterPath, isPackageLocation, isRemote, type ByteRange, type ByteSource, type RemoteOptions } from './locations.js';

export { archiveName, isClusterPath, isRemote, localFileOf, type ByteRange, type ByteSource, type RemoteOptions } from './locations.js';

export async function openByteSource(path: string, remote: RemoteOptions = { timeout: 10_000, retries: 3 }): Promise<ByteSource> {
  if (isPackageLocation(path)) return (await import('./wacz.js')).openEntrySource(path, undefined, remote);
  if (isClusterPath(path)) return (await import('./hadoop-source.js')).openClusterSource(path, remote.hadoop);
  if (isRemote(path)) {
    // undici loads only when an archive is remote.
    const { openRemoteSource } = await import('./remote-source.js');
    return openRemoteSource(path, remote);
  }
  return openFileSource(path);
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
  return openFileRange(path, range);
}
