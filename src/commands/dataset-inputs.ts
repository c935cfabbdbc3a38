/**
 * The inputs of a job over datasets: a database's own parts and the named parts of each
 * segment, on this machine; on a cluster, one pattern that Hadoop expands (below).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export async function datasetInputs(db: string | undefined, segments: string[], segmentParts: string[]): Promise<string[]> {
  const { parts } = await import('../mapreduce/dataset.js');
  const { InputError } = await import('../util/errors.js');
  const inputs: string[] = [];
  // The database being updated is read if it exists (the first run creates it).
  if (db && existsSync(db)) inputs.push(...parts(db));
  for (const seg of segments) {
    if (!existsSync(seg)) throw new InputError(`${seg}: no such segment`);
    const found = segmentParts.filter((p) => existsSync(join(seg, p)));
    if (found.length === 0) throw new InputError(`${seg}: not a segment (no ${segmentParts.join(' or ')} in it)`);
    for (const p of found) inputs.push(...parts(join(seg, p)));
  }
  return inputs;
}

/** Characters with a meaning in a Hadoop glob, escaped where a path holds them. */
function globEscape(path: string): string {
  return path.replace(/[\\{}[\]*?,]/g, (c) => `\\${c}`);
}

/**
 * The same inputs on the cluster's file system, never looked at from this machine: one Hadoop
 * glob `{DB,SEG/crawl_fetch,SEG/crawl_parse,...}` of the directories, which FileInputFormat
 * expands to their part files (hidden and `_` files left out). An alternative that matches
 * nothing is left out, as a CrawlDb before its first update or a segment not yet parsed; the
 * segments themselves are `required` (checked with `hadoop fs -test -d` before a run).
 */
export function clusterInputs(dbs: string[], segments: string[], segmentParts: string[]): { inputs: string[]; required: string[] } {
  const dirs = [...dbs, ...segments.flatMap((seg) => segmentParts.map((p) => `${seg.replace(/\/+$/, '')}/${p}`))];
  if (dirs.length === 1) return { inputs: [globEscape(dirs[0])], required: segments };
  // Hadoop reads a pattern that starts with `{` as relative: the braces go after the directories all share.
  let common = dirs[0].slice(0, dirs[0].lastIndexOf('/') + 1);
  while (common && !dirs.every((d) => d.startsWith(common))) common = common.slice(0, common.lastIndexOf('/', common.length - 2) + 1);
  return { inputs: [`${globEscape(common)}{${dirs.map((d) => globEscape(d.slice(common.length))).join(',')}}`], required: segments };
}
