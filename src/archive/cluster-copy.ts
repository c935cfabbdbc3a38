/**
 * A file on a cluster's file system (hdfs://, s3a://, ...) copied to this machine, for readers
 * that need positions: a WACZ package's directory is at its end and each entry is found by
 * offset, and `hadoop fs` reads a file only from its start (hadoop-source.ts), so reading a
 * package where it lies would read it again up to each place asked for. One copy, read once
 * from the cluster, into the system's temporary directory (a task's own on a node), removed
 * when the reader lets it go or the process ends.
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { InputError } from '../util/errors.js';
import { openClusterSource } from './hadoop-source.js';

const copies = new Set<string>();
process.once('exit', () => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** The local copy of `url` (its file name kept), made with `hadoop` (property nwax.hadoop.command). */
export async function copyFromCluster(url: string, hadoop?: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'nwax-cluster-'));
  copies.add(dir);
  const file = join(dir, basename(url.replace(/[?#].*$/, '')) || 'file');
  const source = openClusterSource(url, hadoop);
  const out = createWriteStream(file);
  try {
    const it = source.chunks();
    for (let r = await it.next(); !r.done; r = await it.next()) if (!out.write(r.value)) await once(out, 'drain');
    out.end();
    await once(out, 'close');
  } catch (err) {
    out.destroy();
    removeCopy(file);
    throw err instanceof InputError ? err : new InputError(`${url}: cannot copy from the cluster's file system (${(err as Error).message})`);
  } finally {
    source.close();
  }
  return file;
}

/** A copy made by copyFromCluster removed. */
export function removeCopy(file: string): void {
  const dir = join(file, '..');
  if (!copies.delete(dir)) return;
  rmSync(dir, { recursive: true, force: true });
}
