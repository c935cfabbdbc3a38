/**
 * An import manifest whose lines name WACZ packages, written anew with a line for each WARC of
 * each package (`PACKAGE#ENTRY COLLECTION`, the package's collection), so that every WARC is a
 * map task and a capture's location names the package and the entry (archive/wacz.ts).
 */
import { writeFileSync } from 'node:fs';
import { expandPackages } from '../archive/wacz.js';
import type { ManifestEntry } from './manifest.js';

type Line = { line: string; entry: ManifestEntry | undefined };

/** A manifest line for `location` (quoted as CSV where it holds white space or a quote). */
function manifestLine(location: string, collection: string): string {
  const loc = /[\s"]/.test(location) ? `"${location.replace(/"/g, '""')}"` : location;
  return collection ? `${loc}\t${collection}` : loc;
}

/**
 * `toTask`: a package with a problem (unreadable, or an entry whose digest is wrong) keeps its
 * own line, for the import's map task to report and count in the job's summary as it does for
 * any archive (archives failed, read-error), its good entries imported there; otherwise the
 * problems are said here and counted in `problems`.
 */
export async function expandManifest(
  lines: Line[],
  file: string,
  say: (m: string) => void,
  opts: { toTask?: boolean } = {},
): Promise<{ file: string; lines: Line[]; problems: number }> {
  const out: Line[] = [];
  let problems = 0;
  for (const l of lines) {
    if (!l.entry) continue;
    const { files, problems: p } = await expandPackages([l.entry.location]);
    // An entry to read record by record: the task opens the package again and does so.
    if (p.length && (opts.toTask || p.some((x) => x.reason === 'wacz-digest'))) {
      out.push({ line: manifestLine(l.entry.location, l.entry.collection), entry: l.entry });
      continue;
    }
    for (const x of p) say(x.message);
    problems += p.length;
    for (const location of files) {
      const entry = { location, collection: l.entry.collection };
      out.push({ line: manifestLine(location, entry.collection), entry });
    }
  }
  writeFileSync(file, out.map((l) => `${l.line}\n`).join(''));
  return { file, lines: out, problems };
}
