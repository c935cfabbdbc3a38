/**
 * add-dates: a parallel `dates` index for a key index, built without touching it. For every
 * document number of the key index (in order, a row for each, so numbers stay aligned): the
 * union of that document's dates in the source indexes (a main index's own dates, or an
 * earlier dates index) and every date the dates file gives (dedup-cdx or revisits lines,
 * `URLKEY sha1:DIGEST DATE [FILE]`, or the dataset the dates job makes of them on a cluster)
 * for canonical(url) + digest. Building a second dates index
 * from the first plus a new file, then swapping it in, is the incremental path.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, basename, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { createIndex, finishIndex, openIndex } from './schema.js';
import { detectCanonicalizer, urlKey, type Canonicalizer } from '../cdx/surt.js';
import { lineBatches } from '../mapreduce/line-reader.js';
import { NwaxError } from '../util/errors.js';
import { sweepDead } from '../util/litter.js';
import { datesOf, mergeDates } from './document.js';

export interface AddDatesOptions {
  canonicalizer: string;
  warn: (message: string) => void;
}

export interface AddDatesResult {
  documents: number;
  datesAdded: number;
  linesRead: number;
  badLines: number;
  unmatched: number;
}

/**
 * A dates file: text lines, or the dataset the dates job made of them (a directory of
 * `"URLKEY DIGEST" -> [dates]` records): each a version's key and its dates, or a bad line.
 */
async function* versionDates(datesFile: string): AsyncGenerator<{ key: string; dates: string[]; lines: number } | { bad: number }> {
  if (datesFile !== '-' && existsSync(datesFile) && statSync(datesFile).isDirectory()) {
    const { parts } = await import('../mapreduce/dataset.js');
    const { RecordFileReader } = await import('../mapreduce/record-file.js');
    for (const p of parts(datesFile)) {
      for (const r of new RecordFileReader(p).entries()) yield { key: r.key, dates: (r.value as string[]) ?? [], lines: 1 };
    }
    return;
  }
  let lineNo = 0;
  for await (const batch of lineBatches(datesFile)) {
    for (const line of batch) {
      lineNo++;
      if (line.trim() === '') continue;
      const f = line.split(' ');
      if (f.length < 3 || f.length > 4 || !/^[a-z0-9]+:\S+$/i.test(f[1]) || !/^\d{14}$/.test(f[2])) yield { bad: lineNo };
      else yield { key: `${f[0]} ${f[1]}`, dates: [f[2]], lines: 1 };
    }
  }
}

/**
 * The canonicalizer of a dates file: `auto` looks at its first keys. `keyless`: it looked and
 * the file holds no key at all (no version to look up, only bad lines if any).
 */
async function canonicalizerOf(file: string, name: string): Promise<{ canon: Canonicalizer; keyless: boolean }> {
  if (name === 'surt' || name === 'massaged') return { canon: name, keyless: false };
  if (name !== 'auto') throw new NwaxError('NWAX_CONF', `canonicalizer "${name}" is not auto, surt or massaged`);
  const keys: string[] = [];
  for await (const v of versionDates(file)) {
    if ('key' in v) keys.push(v.key.slice(0, v.key.indexOf(' ')));
    if (keys.length >= 1000) break;
  }
  return { canon: detectCanonicalizer(keys), keyless: keys.length === 0 };
}

/** One key index's documents, their dates so far, and its own dates (for the extra years). */
interface PartDates {
  keyIndex: string;
  key: ReturnType<typeof openIndex>;
  n: number;
  own: string[];
  dates: Set<string>[];
}

/** The dates of a key index's documents in its sources (each holding its documents, number for number). */
function loadPart(keyIndex: string, sources: string[]): PartDates {
  const key = openIndex(keyIndex, 'main');
  const n = key.info.docCount;
  const dates: Set<string>[] = Array.from({ length: n + 1 }, () => new Set());
  // The key index's own dates, read once: a source when it is one, and what the extra years
  // are told from. (Each scan of its rows reads every page of them, texts and all.)
  const own: string[] = new Array<string>(n + 1).fill('');
  for (const r of key.db.prepare('SELECT id, dates FROM docs').iterate() as Iterable<{ id: number; dates: string }>) if (r.id <= n) own[r.id] = r.dates;
  for (const src of sources) {
    const s = src === keyIndex ? key : openIndex(src);
    if (s.info.docCount !== n) {
      if (s !== key) s.db.close();
      key.db.close();
      throw new NwaxError('NWAX_FORMAT', `${src} holds ${s.info.docCount} documents, ${keyIndex} ${n}: not parallel indexes of one another`);
    }
    const table = s.info.kind === 'main' ? 'docs' : 'dates';
    const rows =
      s === key
        ? own.map((dates, id) => ({ id, dates }))
        : (s.db.prepare(`SELECT id, dates FROM ${table}`).iterate() as Iterable<{ id: number; dates: string }>);
    for (const r of rows) for (const d of datesOf(r.dates)) dates[r.id].add(d);
    if (s !== key) s.db.close();
  }
  return { keyIndex, key, n, own, dates };
}

/**
 * The dates file's dates added to the documents of every part they name, in one pass; a line
 * that names no document of any part is counted once.
 */
async function applyDatesFile(datesFile: string, parts: PartDates[], opts: AddDatesOptions, result: AddDatesResult): Promise<void> {
  const { canon, keyless } = await canonicalizerOf(datesFile, opts.canonicalizer);
  // Every version's key, unless the file has none to look up (a dup list that came out empty).
  const byKey = new Map<string, [PartDates, number]>();
  for (const part of keyless ? [] : parts) {
    for (const r of part.key.db.prepare('SELECT id, url, digest FROM docs').iterate() as Iterable<{ id: number; url: string; digest: string }>) {
      byKey.set(`${urlKey(r.url, canon)} ${r.digest}`, [part, r.id]);
    }
  }
  for await (const v of versionDates(datesFile)) {
    if ('bad' in v) {
      result.badLines++;
      if (result.badLines <= 20) opts.warn(`${datesFile === '-' ? 'stdin' : datesFile}: line ${v.bad}: not "URLKEY sha1:DIGEST DATE [FILE]"; line skipped`);
      continue;
    }
    result.linesRead += v.lines;
    const at = byKey.get(v.key);
    if (at === undefined) {
      result.unmatched++;
      continue;
    }
    const [part, id] = at;
    for (const d of v.dates) {
      if (!part.dates[id].has(d)) {
        part.dates[id].add(d);
        result.datesAdded++;
      }
    }
  }
}

/** A part's dates index written aside, then renamed: a good one is never replaced by a half-written one. */
function writePart(part: PartDates, dest: string): void {
  const { n, own, dates } = part;
  // Years some document was captured in that its main index's dates do not hold: a date filter
  // on those years cannot be answered from the main index's `years` column alone (open-set.ts).
  const extraYears = new Set<string>();
  for (let id = 1; id <= n; id++) {
    const years = new Set(own[id].split(' ').map((d) => d.slice(0, 4)));
    for (const d of dates[id]) if (!years.has(d.slice(0, 4))) extraYears.add(d.slice(0, 4));
  }
  mkdirSync(dirname(dest), { recursive: true });
  sweepDead(dirname(resolve(dest)), `.${basename(dest)}.tmp-`);
  const tmp = join(dirname(dest), `.${basename(dest)}.tmp-${process.pid}`);
  rmSync(tmp, { force: true });
  try {
    const db = createIndex(tmp, 'dates');
    const insert = db.prepare('INSERT INTO dates(id, dates) VALUES (?, ?)');
    db.transaction(() => {
      for (let id = 1; id <= n; id++) insert.run(id, mergeDates(dates[id]).join(' '));
    })();
    finishIndex(db, n, { extra_years: [...extraYears].sort().join(' ') });
    renameSync(tmp, dest);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

export async function addDates(
  keyIndex: string,
  sources: string[],
  dest: string,
  datesFile: string | undefined,
  opts: AddDatesOptions,
): Promise<AddDatesResult> {
  const part = loadPart(keyIndex, sources);
  try {
    const result: AddDatesResult = { documents: part.n, datesAdded: 0, linesRead: 0, badLines: 0, unmatched: 0 };
    if (datesFile) await applyDatesFile(datesFile, [part], opts, result);
    writePart(part, dest);
    return result;
  } finally {
    part.key.db.close();
  }
}

/** The part-NNNNN index files of an index job's output directory. */
export function indexParts(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => /^part-\d{5}$/.test(n) && statSync(join(dir, n)).isFile())
    .sort();
}

/**
 * add-dates over a whole index: for every part of `keyDir` (an index job's output), its
 * parallel dates index at `destDir/part-NNNNN/dates`, from the same part of each source
 * directory (an index job's output: `DIR/part-NNNNN`; or a set of parallel indexes:
 * `DIR/part-NNNNN/dates`) and the dates file, read once for all parts. Returns the totals and
 * the dates indexes written.
 */
export async function addDatesToParts(
  keyDir: string,
  sourceDirs: string[],
  destDir: string,
  datesFile: string | undefined,
  opts: AddDatesOptions,
): Promise<AddDatesResult & { written: string[] }> {
  const names = indexParts(keyDir);
  if (names.length === 0) throw new NwaxError('NWAX_INPUT', `${keyDir}: no index parts (part-NNNNN) in this directory`);
  const sourceOf = (dir: string, name: string): string => {
    if (resolve(dir) === resolve(keyDir)) return join(keyDir, name);
    for (const p of [join(dir, name), join(dir, name, 'dates')]) if (existsSync(p) && statSync(p).isFile()) return p;
    throw new NwaxError('NWAX_INPUT', `${dir}: no ${name} (neither ${join(dir, name)} nor ${join(dir, name, 'dates')}) beside ${join(keyDir, name)}`);
  };
  const parts: PartDates[] = [];
  try {
    for (const name of names)
      parts.push(
        loadPart(
          join(keyDir, name),
          sourceDirs.map((d) => sourceOf(d, name)),
        ),
      );
    const result: AddDatesResult = { documents: parts.reduce((n, p) => n + p.n, 0), datesAdded: 0, linesRead: 0, badLines: 0, unmatched: 0 };
    if (datesFile) await applyDatesFile(datesFile, parts, opts, result);
    const written = names.map((name) => join(destDir, name, 'dates'));
    parts.forEach((part, i) => writePart(part, written[i]));
    return { ...result, written };
  } finally {
    for (const p of parts) p.key.db.close();
  }
}
