/**
 * A version's text read from its segment's parse_text, by key (`URL digest`), through the
 * part's block index: one block inflated per lookup, the same block kept for the next one
 * (Nutch's and NutchWAX's searchers made their summaries from the segments the same way). The
 * index stores no copy of the text (docs/decisions.md, "A compact index"); snippets, the
 * ranking's look at a page's head, merge and exports read it here.
 *
 * A segment is found by its name under the first root that holds `NAME/parse_text`: the roots
 * the caller gives (the searcher's `segments` folder), then those beside the index asking: its
 * folder's ancestors, each as `ANCESTOR/segments/NAME` and `ANCESTOR/NAME` (`crawl/indexes/part-0`
 * finds `crawl/segments/NAME`), from the path given and from the file it links to; last where
 * the index recorded its segments were when it was made.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ancestorsOf } from '../util/ancestors.js';
import { BlockCache } from '../mapreduce/block-cache.js';
import { parts } from '../mapreduce/dataset.js';
import { hashPartition } from '../mapreduce/partition.js';
import { RecordFileReader } from '../mapreduce/record-file.js';

/** Characters of inflated blocks kept (about 256 blocks of 64 KiB). */
const CACHE_CHARS = 16 << 20;
/** How long a segment not found stays not found before it is looked for again (one may be copied in). */
const RETRY_MS = 60_000;
/** How far up from an index its segments are looked for (`crawl/pindexes/NAME/main`: three). */
const ANCESTORS = 3;

/** The folders beside an index where its segments may lie, nearest first. */
export function rootsNear(indexPath: string): string[] {
  return ancestorsOf(indexPath, ANCESTORS).flatMap((dir) => [join(dir, 'segments'), dir]);
}

/**
 * Where an index's segments are looked for: beside it, then where they were when it was made
 * (its info). A crawl folder copied whole reads its own copy, not the one it was copied from.
 */
export function textRoots(indexPath: string, recorded: readonly string[]): string[] {
  return [...new Set([...rootsNear(indexPath), ...recorded])];
}

interface Found {
  /** The parse_text parts, in partition order; undefined: not found (since `at`). */
  readers?: RecordFileReader[];
  /** The parse_text folder's identity when opened: a segment written again is another folder (renamed into place). */
  dir?: string;
  ino?: number;
  at: number;
}

/** How often a found segment's folder is checked for having been replaced. */
const RECHECK_MS = 1000;

function inode(dir: string): number | undefined {
  try {
    return statSync(dir).ino;
  } catch {
    return undefined;
  }
}

export class SegmentTexts {
  private readonly cache = new BlockCache(CACHE_CHARS);
  /** Segments looked for, by segment name, for each list of places beside an index (an open set's, kept by it). */
  private readonly found = new WeakMap<readonly string[], Map<string, Found>>();
  private static readonly NOWHERE: readonly string[] = [];

  /**
   * `roots`: folders that hold segments, looked in before those beside an index. A block is
   * inflated only as far as the key asked (a searcher's hits, anywhere in the segment), or
   * whole and kept where lookups come back to it (merge, an export: texts in key order).
   */
  constructor(
    private readonly roots: readonly string[] = [],
    /** The segment's dataset read (parse_text; crawl_parse for a page's outlinks). */
    private readonly dataset = 'parse_text',
  ) {}

  /** The record `key` of segment `segment`'s dataset, as stored (parsed JSON); undefined where the segment or the key is not found. */
  value(segment: string, key: string, near?: readonly string[]): unknown {
    return this.ask(segment, key, near, (r, k) => r.valueOf(k));
  }

  /**
   * The text of the version `url digest` of segment `segment`, looking beside `near` (an
   * index's path) after the given roots; undefined where the segment or the key is not found.
   */
  text(segment: string, url: string, digest: string, near?: readonly string[]): string | undefined {
    const v = this.ask(segment, `${url} ${digest}`, near, (r, key) => r.valueOf(key));
    return typeof v === 'string' ? v : undefined;
  }

  /** That text as the JSON string it is stored as (its bytes; see RecordFileReader.valueJson). */
  textJson(segment: string, url: string, digest: string, near?: readonly string[]): Buffer | undefined {
    return this.ask(segment, `${url} ${digest}`, near, (r, key) => r.valueJson(key));
  }

  /**
   * At least the first `chars` characters of that text (`whole` where that is all of it), its
   * block inflated only that far: what a snippet near the top of a long page needs.
   */
  head(segment: string, url: string, digest: string, chars: number, near?: readonly string[]): { text: string; whole: boolean } | undefined {
    return this.ask(segment, `${url} ${digest}`, near, (r, key) => r.stringHead(key, chars));
  }

  private ask<T>(segment: string, key: string, near: readonly string[] | undefined, read: (r: RecordFileReader, key: string) => T | undefined): T | undefined {
    const readers = this.readers(segment, near);
    if (readers === undefined || readers.length === 0) return undefined;
    // The job's partitioner put the key in one part; the others are asked only if it is not there
    // (a segment whose parts were cut otherwise).
    const home = hashPartition(key, readers.length);
    const first = read(readers[home], key);
    if (first !== undefined) return first;
    for (let i = 0; i < readers.length; i++) {
      if (i === home) continue;
      const v = read(readers[i], key);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  /** Where a segment's text was found (its parse_text folder), for messages; undefined if not. */
  where(segment: string, near?: readonly string[]): string | undefined {
    const r = this.readers(segment, near);
    return r?.length ? dirname(r[0].path) : undefined;
  }

  private readers(segment: string, near: readonly string[] | undefined): RecordFileReader[] | undefined {
    if (segment === '' || segment.includes('/') || segment.includes('\\') || segment === '.' || segment === '..') return undefined;
    // By the list's identity, not its text: a lookup makes no key of a dozen paths.
    const places = near ?? SegmentTexts.NOWHERE;
    let bySegment = this.found.get(places);
    if (bySegment === undefined) this.found.set(places, (bySegment = new Map()));
    const known = bySegment.get(segment);
    const now = Date.now();
    if (known?.readers) {
      if (now - known.at < RECHECK_MS) return known.readers;
      known.at = now;
      if (inode(known.dir!) === known.ino) return known.readers;
    } else if (known && now - known.at < RETRY_MS) return undefined;
    const found: Found = { at: now };
    for (const root of [...this.roots, ...(near ?? [])]) {
      const dir = basename(root) === segment && existsSync(join(root, this.dataset)) ? join(root, this.dataset) : join(root, segment, this.dataset);
      if (!existsSync(dir)) continue;
      try {
        found.readers = parts(dir).map((p) => new RecordFileReader(p, this.cache));
        found.dir = dir;
        found.ino = inode(dir);
        break;
      } catch {
        // Unfinished (no _SUCCESS) or a damaged block index: look on, and again later.
      }
    }
    bySegment.set(segment, found);
    return found.readers;
  }
}
