/**
 * add-dates: a parallel `dates` index for a key index, built without touching it. For every
 * document number of the key index (in order, a row for each, so numbers stay aligned): the
 * union of that document's dates in the source indexes (a main index's own dates, or an
 * earlier dates index) and every date the dates file gives (dedup-cdx or revisits lines,
 * `URLKEY sha1:DIGEST DATE [FILE]`, or the dataset the dates job makes of them on a cluster)
 * for canonical(url) + digest. Building a second dates index
 * from the first plus a new file, then swapping it in, is the incremental path.
 */
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, basename, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { createIndex, finishIndex, openIndex } from './schema.js';
import { detectCanonicalizer, urlKey, type Canonicalizer } from '../cdx/surt.js';
import { lineBatches } from '../mapreduce/line-reader.js';
import { NwaxError } from '../util/errors.js';
import { sweepDead } from '../util/litter.js';

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

export async function addDates(keyIndex: string, sources: string[], dest: string, datesFile: string | undefined, opts: AddDatesOptions): Promise<AddDatesResult> {
  const key = openIndex(keyIndex, 'main');
  const n = key.info.docCount;
  const dates: Set<string>[] = Array.from({ length: n + 1 }, () => new Set());
  // The key index's own dates, read once: a source when it is one, and what the extra years
  // below are told from. (Each scan of its rows reads every page of them, texts and all.)
  const own: string[] = new Array<string>(n + 1).fill('');
  for (const r of key.db.prepare('SELECT id, dates FROM docs').iterate() as Iterable<{ id: number; dates: string }>) if (r.id <= n) own[r.id] = r.dates;
  // The sources: each must hold the key index's documents, number for number.
  for (const src of sources) {
    const s = src === keyIndex ? key : openIndex(src);
    if (s.info.docCount !== n) {
      throw new NwaxError('NWAX_FORMAT', `${src} holds ${s.info.docCount} documents, ${keyIndex} ${n}: not parallel indexes of one another`);
    }
    const table = s.info.kind === 'main' ? 'docs' : 'dates';
    const rows = s === key ? own.map((dates, id) => ({ id, dates })) : (s.db.prepare(`SELECT id, dates FROM ${table}`).iterate() as Iterable<{ id: number; dates: string }>);
    for (const r of rows) for (const d of r.dates.split(' ')) if (d) dates[r.id].add(d);
    if (s !== key) s.db.close();
  }
  const result: AddDatesResult = { documents: n, datesAdded: 0, linesRead: 0, badLines: 0, unmatched: 0 };
  if (datesFile) {
    const { canon, keyless } = await canonicalizerOf(datesFile, opts.canonicalizer);
    // Every version's key, unless the file has none to look up (a dup list that came out empty).
    const byKey = new Map<string, number>();
    const versions = keyless ? [] : key.db.prepare('SELECT id, url, digest FROM docs').iterate() as Iterable<{ id: number; url: string; digest: string }>;
    for (const r of versions) byKey.set(`${urlKey(r.url, canon)} ${r.digest}`, r.id);
    for await (const v of versionDates(datesFile)) {
      if ('bad' in v) {
        result.badLines++;
        if (result.badLines <= 20) opts.warn(`${datesFile === '-' ? 'stdin' : datesFile}: line ${v.bad}: not "URLKEY sha1:DIGEST DATE [FILE]"; line skipped`);
        continue;
      }
      result.linesRead += v.lines;
      const id = byKey.get(v.key);
      if (id === undefined) {
        result.unmatched++;
        continue;
      }
      for (const d of v.dates) {
        if (!dates[id].has(d)) {
          dates[id].add(d);
          result.datesAdded++;
        }
      }
    }
  }
  // Years some document was captured in that its main index's dates do not hold: a date filter
  // on those years cannot be answered from the main index's `years` column alone (open-set.ts).
  const extraYears = new Set<string>();
  for (let id = 1; id <= n; id++) {
    const years = new Set(own[id].split(' ').map((d) => d.slice(0, 4)));
    for (const d of dates[id]) if (!years.has(d.slice(0, 4))) extraYears.add(d.slice(0, 4));
  }
  key.db.close();
  // Written aside, then renamed: a good dates index is never replaced by a half-written one.
  mkdirSync(dirname(dest), { recursive: true });
  sweepDead(dirname(resolve(dest)), `.${basename(dest)}.tmp-`);
  const tmp = join(dirname(dest), `.${basename(dest)}.tmp-${process.pid}`);
  rmSync(tmp, { force: true });
  try {
    const db = createIndex(tmp, 'dates');
    const insert = db.prepare('INSERT INTO dates(id, dates) VALUES (?, ?)');
    db.transaction(() => {
      for (let id = 1; id <= n; id++) insert.run(id, [...dates[id]].sort().join(' '));
    })();
    finishIndex(db, n, { extra_years: [...extraYears].sort().join(' ') });
    renameSync(tmp, dest);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  return result;
}
