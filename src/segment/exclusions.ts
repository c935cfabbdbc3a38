/**
 * The exclusion list of an import (`-e FILE`): the lines `dedup-cdx` and `revisits` print,
 * `URLKEY sha1:DIGEST DATE [FILE]`. A record is skipped when canonical(url) + digest + 14-digit
 * date is listed, canonical() being the canonicalizer that made the list's keys (SURT or
 * massaged URL, detected from the keys; `nwax.import.canonicalizer` forces one).
 *
 * A list up to `nwax.import.exclusions.memory` bytes is held as a set; a larger one is sorted
 * once into a sorted record file (prepareExclusions) and looked up by key, so the list never
 * needs memory in proportion to its size.
 */
import { existsSync, statSync } from 'node:fs';
import { detectCanonicalizer, urlKey, type Canonicalizer } from '../cdx/surt.js';
import { lineBatches } from '../mapreduce/line-reader.js';
import { externalSort } from '../mapreduce/external-sort.js';
import { indexPath, RecordFileReader, RecordFileWriter } from '../mapreduce/record-file.js';
import { NwaxError } from '../util/errors.js';

/**
 * The key of a list line or a capture: `URLKEY sha1:DIGEST DATE`, and ` FILE` where the line
 * names the archive: then only the capture in that file is excluded (the same capture copied
 * into two archives is still one capture to keep).
 */
export function exclusionKey(urlkey: string, digest: string, date: string, file?: string): string {
  return `${urlkey} ${labelledDigest(digest)} ${date}${file ? ` ${file}` : ''}`;
}

/** A digest with its algorithm's label (a bare one is SHA-1, as CDX writes them). */
function labelledDigest(digest: string): string {
  return digest.includes(':') ? digest : `sha1:${digest}`;
}

/** The key of a list line, or a description of what is wrong with it. */
export function keyOfLine(line: string): { key: string } | { error: string } {
  const f = line.split(' ');
  if (f.length < 3 || f.length > 4) return { error: `expected "URLKEY sha1:DIGEST DATE [FILE]", got ${f.length} fields` };
  if (!/^[a-z0-9]+:\S+$/i.test(f[1])) return { error: `${JSON.stringify(f[1].slice(0, 40))} is not a digest (sha1:BASE32)` };
  if (!/^\d{14}$/.test(f[2])) return { error: `${JSON.stringify(f[2].slice(0, 20))} is not a 14-digit date` };
  return { key: exclusionKey(f[0], f[1], f[2], f[3] === '-' ? undefined : f[3]) };
}

export interface Exclusions {
  readonly canonicalizer: Canonicalizer;
  /** Whether the capture of `url` with `digest` on `date`, read from archive `file`, is listed. */
  has(url: string, digest: string, date: string, file: string): boolean;
}

export interface PreparedExclusions {
  /** The list as given, or the sorted record file made of it. */
  path: string;
  canonicalizer: Canonicalizer;
  lines: number;
  bad: number;
}

/**
 * Reads the list once: reports bad lines (with their numbers) through `warn`, detects the
 * canonicalizer, and sorts a list larger than `memory` into a record file at `sortedPath`.
 */
export async function prepareExclusions(
  path: string,
  opts: {
    canonicalizer: string;
    memory: number;
    sortedPath: string;
    sortMemory: number;
    tmpDir?: string;
    warn: (m: string) => void;
  },
): Promise<PreparedExclusions> {
  let lineNo = 0;
  let lines = 0;
  let bad = 0;
  const sample: string[] = [];
  const big = statSync(path).size > opts.memory;
  async function* keys(): AsyncGenerator<string[]> {
    for await (const batch of lineBatches(path)) {
      const out: string[] = [];
      for (const line of batch) {
        lineNo++;
        if (line.trim() === '') continue;
        const k = keyOfLine(line);
        if ('error' in k) {
          bad++;
          if (bad <= 20) opts.warn(`${path}: line ${lineNo}: ${k.error}; line skipped`);
          continue;
        }
        lines++;
        if (sample.length < 1000) sample.push(line.slice(0, line.indexOf(' ')));
        out.push(k.key);
      }
      yield out;
    }
  }
  if (big) {
    const w = new RecordFileWriter(opts.sortedPath);
    let prev: string | undefined;
    for await (const batch of externalSort(keys(), { memory: opts.sortMemory, tmpDir: opts.tmpDir, unique: true })) {
      for (const k of batch) if (k !== prev) w.append((prev = k), null);
    }
    w.close();
  } else {
    for await (const _ of keys());
  }
  if (bad > 20) opts.warn(`${path}: ${bad} lines skipped in all (not "URLKEY sha1:DIGEST DATE [FILE]")`);
  const canonicalizer = opts.canonicalizer === 'auto' ? detectCanonicalizer(sample) : asCanonicalizer(opts.canonicalizer);
  return { path: big ? opts.sortedPath : path, canonicalizer, lines, bad };
}

export function asCanonicalizer(name: string): Canonicalizer {
  if (name === 'surt' || name === 'massaged') return name;
  throw new NwaxError('NWAX_CONF', `nwax.import.canonicalizer: "${name}" is not auto, surt or massaged`);
}

/** The list for a map task: a set from a text list, or lookups in a sorted record file. */
export async function loadExclusions(path: string, canonicalizer: Canonicalizer): Promise<Exclusions> {
  if (existsSync(indexPath(path))) {
    const reader = new RecordFileReader(path);
    return {
      canonicalizer,
      has: (url, digest, date, file) => {
        const key = exclusionKey(urlKey(url, canonicalizer), digest, date);
        return reader.get(key).length > 0 || reader.get(`${key} ${file}`).length > 0;
      },
    };
  }
  const set = new Set<string>();
  // The digests listed: a capture of another digest is not listed, and its URL need not be
  // canonicalized to know it (4% of an import's map, a canonicalization per record, where
  // few of the archives' digests are listed).
  const digests = new Set<string>();
  for await (const batch of lineBatches(path)) {
    for (const line of batch) {
      const k = keyOfLine(line);
      if ('key' in k) {
        set.add(k.key);
        digests.add(k.key.split(' ')[1]);
      }
    }
  }
  return {
    canonicalizer,
    has: (url, digest, date, file) => {
      if (!digests.has(labelledDigest(digest))) return false;
      const key = exclusionKey(urlKey(url, canonicalizer), digest, date);
      return set.has(key) || set.has(`${key} ${file}`);
    },
  };
}
