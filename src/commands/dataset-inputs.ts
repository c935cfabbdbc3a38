/** The part files a job over datasets reads: a database's own parts and the named parts of each segment. */
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
