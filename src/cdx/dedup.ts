/**
 * dedup-cdx and revisits, as NutchWAX's scripts made them (`sort -u | awk`), on the external
 * sort so a CDX of any size fits a memory budget.
 *
 * dedup-cdx: for each URLKEY + digest, every capture after the first in byte order, as
 *   `URLKEY sha1:DIGEST DATE FILE` (the first capture is the one that is imported).
 * revisits: every revisit capture (mime `warc/revisit`, or file `-` as 2008 Wayback CDX wrote
 *   them) as `URLKEY sha1:DIGEST DATE`.
 */
import { CdxLineReader, bareDigest } from './cdx-reader.js';
import { ExternalSorter, type SortOptions } from '../mapreduce/external-sort.js';
import { lineChunks } from '../mapreduce/line-reader.js';
import { copyBytes } from '../mapreduce/line-arena.js';
import { nativeSort } from '../native/sort.js';
import {
  CDX_DUPS_FIELDS,
  CDX_DUPS_GROUP_LEN,
  CDX_DUPS_LINES,
  CDX_DUPS_USED,
  CDX_KEYS_CAPTURES,
  CDX_KEYS_FIELDS,
  CDX_KEYS_LINES,
  CDX_KEYS_NO_DIGEST,
} from '../native/shared.js';
import { addCdxKeys } from './cdx-keys-native.js';

export interface DedupStats {
  /** Told about lines that are not CDX: the file, the line number and what is wrong. */
  onBadLine?: (file: string, line: number, problem: string) => void;
  lines: number;
  /** Capture lines without a digest, which cannot be deduplicated. */
  noDigest: number;
  /** Lines that are not CDX (bad JSON, too few fields). */
  malformed: number;
  output: number;
}

/** Field positions of a classic CDX11 line (fields 0, 1, 5, 10), without splitting all of it. */
function cdx11Fields(line: string): [string, string, string, string] | undefined {
  const s1 = line.indexOf(' ');
  const s2 = line.indexOf(' ', s1 + 1);
  let p = s2;
  for (let i = 2; i < 5 && p >= 0; i++) p = line.indexOf(' ', p + 1);
  const s6 = p < 0 ? -1 : line.indexOf(' ', p + 1);
  const last = line.lastIndexOf(' ');
  if (s1 <= 0 || s6 < 0 || last <= s6) return undefined;
  return [line.slice(0, s1), line.slice(s1 + 1, s2), line.slice(p + 1, s6), line.slice(last + 1)];
}

const STANDARD = ' CDX N b a m s k r M S V g';

type Kind = 'dedup' | 'revisits';

interface Capture {
  urlkey: string;
  timestamp: string;
  digest: string;
  mime: string;
  filename: string;
}

/** The sort key of a capture, as text: `URLKEY sha1:DIGEST DATE[ FILE]`; undefined to leave it out. */
function pickKey(kind: Kind, f: Capture, stats: DedupStats): string | undefined {
  if (kind === 'revisits' && f.mime !== 'warc/revisit' && f.filename !== '-') return undefined;
  const d = bareDigest(f.digest);
  if (d === '-') {
    stats.noDigest++;
    return undefined;
  }
  return kind === 'dedup' ? `${f.urlkey} sha1:${d} ${f.timestamp} ${f.filename}` : `${f.urlkey} sha1:${d} ${f.timestamp}`;
}

const SPACE = 0x20;
const SHA1 = Buffer.from(' sha1:');
const REVISIT = Buffer.from('warc/revisit');
// bareDigest's prefixes.
const SHA1_LOWER = Buffer.from('sha1:');
const SHA1_UPPER = Buffer.from('SHA1:');

/** Whether buf[from, to) holds the bytes of `word`. */
function bytesAre(buf: Buffer, from: number, to: number, word: Buffer): boolean {
  return to - from === word.length && buf.compare(word, 0, word.length, from, to) === 0;
}

/**
 * One file's captures into the sorter. A classic CDX11 line is read from its bytes: the four
 * fields found by their spaces, the key assembled as bytes, never a string (the bulk of CDX,
 * and where a string per field was most of dedup-cdx's time); by the addon a chunk of lines
 * at a time where it is built (native/cdx-keys.c), else by addLine below, which does the
 * same. Anything else (legends, CDXJ, lines the fast path cannot place) is decoded and read by
 * the general reader.
 */
async function addCaptures(path: string, kind: Kind, stats: DedupStats, sorter: ExternalSorter): Promise<void> {
  const reader = new CdxLineReader();
  // Standard CDX11 (the legend or none): fields by position; else the general reader.
  let standard = true;
  let lineNo = 0;
  let reported = 0;
  const bad = (f: Capture | undefined, line: string) => {
    stats.malformed++;
    // The first few per file are named; the rest are counted in the summary.
    if (reported++ < 10) {
      const what = !f ? 'not a CDX or CDXJ line' : f.urlkey === '-' ? 'no URL key' : `"${f.timestamp.slice(0, 20)}" is not a 14-digit date`;
      stats.onBadLine?.(path, lineNo, `${what}: ${JSON.stringify(line.slice(0, 60))}`);
    }
  };
  /** The general reader, on a decoded line; the key or undefined. */
  const slow = (line: string): string | undefined => {
    if (line === '' || line.startsWith(' CDX') || line[0] === '!') {
      if (line.startsWith(' CDX')) standard = line.trim() === STANDARD.trim();
      reader.parse(line);
      return undefined;
    }
    stats.lines++;
    let f: Capture | undefined;
    const fast = standard && line.charCodeAt(line.indexOf(' ', line.indexOf(' ') + 1) + 1) !== 123 ? cdx11Fields(line) : undefined;
    if (fast) {
      const m1 = line.indexOf(' ', line.indexOf(' ', line.indexOf(' ') + 1) + 1);
      const mime = line.slice(m1 + 1, line.indexOf(' ', m1 + 1));
      f = { urlkey: fast[0], timestamp: fast[1], digest: fast[2], mime, filename: fast[3] };
    } else f = reader.parse(line);
    if (!f || f.urlkey === '-' || !/^\d{4,14}$/.test(f.timestamp)) {
      bad(f, line);
      return undefined;
    }
    return pickKey(kind, f, stats);
  };
  const addon = nativeSort;
  const st = new Int32Array(CDX_KEYS_FIELDS);
  for await (const chunk of lineChunks(path, () => lineNo)) {
    let s = 0;
    while (s < chunk.length) {
      if (addon && standard) {
        // The addon takes plain CDX11 lines in bulk, as addLine's fast path would; the lines it
        // leaves (a legend, CDXJ, anything to report) are taken one at a time below.
        st[CDX_KEYS_LINES] = st[CDX_KEYS_CAPTURES] = st[CDX_KEYS_NO_DIGEST] = 0;
        const at = await addCdxKeys(sorter, addon, chunk, s, chunk.length, kind === 'revisits', st);
        lineNo += st[CDX_KEYS_LINES];
        stats.lines += st[CDX_KEYS_CAPTURES];
        stats.noDigest += st[CDX_KEYS_NO_DIGEST];
        s = at;
        if (s >= chunk.length) break;
      }
      const e = chunk.indexOf(0x0a, s);
      lineNo++;
      const pending = addLine(chunk, s, e);
      if (pending) await pending;
      s = e + 1;
    }
  }

  /** Line buf[s, e): the fast path where it applies, else the general one. */
  function addLine(buf: Buffer, s: number, e: number): Promise<void> | undefined {
    const first = buf[s];
    if (!standard || e === s || first === 0x21 /* ! */ || first === SPACE) return addSlow(buf, s, e);
    // Spaces 1-6 and the last: urlkey, date, url, mime, status, digest ... filename.
    const s1 = buf.indexOf(SPACE, s);
    const s2 = s1 < 0 || s1 >= e ? -1 : buf.indexOf(SPACE, s1 + 1);
    if (s1 <= s || s2 < 0 || s2 >= e || buf[s2 + 1] === 0x7b /* { : CDXJ */) return addSlow(buf, s, e);
    const m1 = buf.indexOf(SPACE, s2 + 1);
    const m2 = m1 < 0 || m1 >= e ? -1 : buf.indexOf(SPACE, m1 + 1);
    const p = m2 < 0 || m2 >= e ? -1 : buf.indexOf(SPACE, m2 + 1);
    const s6 = p < 0 || p >= e ? -1 : buf.indexOf(SPACE, p + 1);
    const last = buf.lastIndexOf(SPACE, e - 1);
    if (s6 < 0 || s6 >= e || last <= s6) return addSlow(buf, s, e);
    // Anything to report goes the general way, which names it.
    const dateLen = s2 - s1 - 1;
    if (dateLen < 4 || dateLen > 14 || (s1 - s === 1 && buf[s] === 0x2d) /* - */) return addSlow(buf, s, e);
    for (let i = s1 + 1; i < s2; i++) if (buf[i] < 0x30 || buf[i] > 0x39) return addSlow(buf, s, e);
    stats.lines++;
    if (kind === 'revisits' && !bytesAre(buf, m1 + 1, m2, REVISIT) && !(e - last === 2 && buf[last + 1] === 0x2d)) return undefined;
    let d = p + 1;
    if (bytesAre(buf, d, Math.min(d + 5, s6), SHA1_LOWER) || bytesAre(buf, d, Math.min(d + 5, s6), SHA1_UPPER)) d += 5;
    if (s6 - d === 1 && buf[d] === 0x2d) {
      stats.noDigest++;
      return undefined;
    }
    // URLKEY sha1:DIGEST DATE[ FILE], assembled where the sort holds it (not copied twice).
    const need = s1 - s + SHA1.length + (s6 - d) + 1 + dateLen + 1 + (e - last);
    const at = sorter.reserve(need);
    const key = sorter.room;
    // (copyBytes: Buffer#copy costs more than the copy itself on fields this short.)
    let n = at;
    copyBytes(buf, s, s1, key, n);
    n += s1 - s;
    copyBytes(SHA1, 0, SHA1.length, key, n);
    n += SHA1.length;
    copyBytes(buf, d, s6, key, n);
    n += s6 - d;
    key[n++] = SPACE;
    copyBytes(buf, s1 + 1, s2, key, n);
    n += dateLen;
    if (kind === 'dedup') {
      key[n++] = SPACE;
      copyBytes(buf, last + 1, e, key, n);
      n += e - last - 1;
    }
    return sorter.commit(at, n - at);
  }

  function addSlow(buf: Buffer, s: number, e: number): Promise<void> | undefined {
    const k = slow(buf.toString('utf8', s, e));
    return k === undefined ? undefined : sorter.add(k);
  }
}

/** The captures' keys of all files, sorted and unique. */
async function sortedCaptures(paths: string[], kind: Kind, opts: SortOptions, stats: DedupStats): Promise<ExternalSorter> {
  const sorter = new ExternalSorter({ ...opts, unique: true });
  try {
    for (const path of paths) await addCaptures(path, kind, stats, sorter);
  } catch (err) {
    sorter.dispose();
    throw err;
  }
  return sorter;
}

/**
 * Whether a[from, from + n) holds b[0, n): one memcmp (a group's lines agree to the end of
 * the key, the full length compared for most lines), a loop below where a call costs more.
 */
function sameBytes(a: Buffer, from: number, b: Buffer, n: number): boolean {
  if (n >= 48) return a.compare(b, 0, n, from, from + n) === 0;
  for (let i = 0; i < n; i++) if (a[from + i] !== b[i]) return false;
  return true;
}

/** Lines in a chunk of whole lines. */
function countLines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) n++;
  return n;
}

export function newDedupStats(): DedupStats {
  return { lines: 0, noDigest: 0, malformed: 0, output: 0 };
}

/**
 * The dedup-cdx lines, sorted, as chunks of whole lines (bytes, valid until the next chunk):
 * of each URLKEY + digest group, every line but the first.
 */
export async function* dedupCdx(paths: string[], opts: SortOptions = {}, stats = newDedupStats()): AsyncGenerator<Buffer> {
  const sorter = await sortedCaptures(paths, 'dedup', opts, stats);
  // The current group (URLKEY sha1:DIGEST: up to the second space), as bytes.
  let group = Buffer.allocUnsafe(4096);
  let groupLen = -1;
  let out = Buffer.allocUnsafe(1 << 20);
  const addon = nativeSort;
  const st = new Int32Array(CDX_DUPS_FIELDS);
  for await (const chunk of sorter.chunks()) {
    if (out.length < chunk.length) out = Buffer.allocUnsafe(chunk.length);
    if (addon) {
      // The same loop in the addon (native/cdx-keys.c): a line's group is no string either.
      if (group.length < chunk.length) {
        const wider = Buffer.allocUnsafe(chunk.length);
        group.copy(wider, 0, 0, Math.max(groupLen, 0));
        group = wider;
      }
      st[CDX_DUPS_GROUP_LEN] = groupLen;
      st[CDX_DUPS_USED] = 0;
      st[CDX_DUPS_LINES] = 0;
      addon.cdxDups(chunk, 0, chunk.length, group, out, st);
      groupLen = st[CDX_DUPS_GROUP_LEN];
      stats.output += st[CDX_DUPS_LINES];
      if (st[CDX_DUPS_USED] > 0) yield out.subarray(0, st[CDX_DUPS_USED]);
      continue;
    }
    let used = 0;
    let lines = 0;
    let s = 0;
    while (s < chunk.length) {
      const e = chunk.indexOf(0x0a, s);
      const g = chunk.indexOf(SPACE, chunk.indexOf(SPACE, s) + 1);
      const gl = g - s;
      if (gl === groupLen && sameBytes(chunk, s, group, gl)) {
        copyBytes(chunk, s, e + 1, out, used);
        used += e + 1 - s;
        lines++;
      } else {
        if (gl > group.length) group = Buffer.allocUnsafe(gl * 2);
        chunk.copy(group, 0, s, g);
        groupLen = gl;
      }
      s = e + 1;
    }
    stats.output += lines;
    if (used > 0) yield out.subarray(0, used);
  }
}

/** The revisits lines, sorted and unique, as chunks of whole lines (bytes, valid until the next chunk). */
export async function* revisits(paths: string[], opts: SortOptions = {}, stats = newDedupStats()): AsyncGenerator<Buffer> {
  const sorter = await sortedCaptures(paths, 'revisits', opts, stats);
  for await (const chunk of sorter.chunks()) {
    stats.output += countLines(chunk);
    yield chunk;
  }
}
