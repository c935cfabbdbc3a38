/**
 * Where replay finds captures: the capture index of every segment under the crawl directory
 * (`segments/* /captures.cdx`, written by import, with `captures.archives` saying where each
 * archive is and its collection) and the CDX sources of nwax.serve.cdx (ZipNum clusters,
 * sorted CDX files; archives found through nwax.archive.locations, else beside the CDX file).
 * A URL's captures are the lines of its SURT key in all of them, merged; "closest" orders them
 * by distance in time, as pywb's `sort=closest`; a URL never captured is looked up once more
 * without its cache-busting and tracking parameters (fuzzy.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ALL_KEYS, openCdxSources, mergedLines, type CdxSource } from '../cdx/cdx-source.js';
import { keyRange, type MatchType } from '../cdx/cdx-query.js';
import { ArchiveLocator } from '../segment/archive-locator.js';
import { CAPTURES_ARCHIVES, CAPTURES_CDX, missingCaptureIndex } from '../segment/segment.js';
import { withoutNoiseParams } from './fuzzy.js';
import { recover } from '../mapreduce/dataset.js';

export interface Capture {
  urlkey: string;
  /** 14 digits. */
  ts: string;
  url: string;
  mime: string;
  status: string;
  digest: string;
  length: number;
  offset: number;
  filename: string;
  collection: string;
  /** Where the archive is (path or URL), undefined when no configured place has it. */
  locate(): Promise<string | undefined>;
}

interface Origin {
  source: CdxSource;
  locator: ArchiveLocator;
  /** Collection of each archive the source names (segments' captures.archives). */
  collections: Map<string, string>;
}

const ts14 = (t: string) => (t.length >= 14 ? t.slice(0, 14) : t.padEnd(14, '0'));

/** Seconds between two 14-digit timestamps. */
export function secondsBetween(a: string, b: string): number {
  return Math.abs(tsToMs(a) - tsToMs(b)) / 1000;
}

export function tsToMs(t: string): number {
  return Date.UTC(+t.slice(0, 4), +t.slice(4, 6) - 1, +t.slice(6, 8), +t.slice(8, 10), +t.slice(10, 12), +t.slice(12, 14));
}

export class CaptureIndex {
  private origins: Origin[] = [];
  /** What this view shows of each capture (scoped()); every capture where unset. */
  private verdict?: (c: Capture) => 'allow' | 'block' | 'exclude';
  /** Captures this view left out because they are blocked (not excluded). */
  private blockedSeen = 0;

  /**
   * The same index for one request under the access rules: a capture they withhold is in no
   * answer of the view (range, captures, closest and all built on them); sawBlocked() says
   * whether one left out was blocked, not excluded (a 451 with a notice, not a 404). The view
   * reads the index's sources as they are now and after a reload (its prototype is the index).
   */
  scoped(verdict: (c: Capture) => 'allow' | 'block' | 'exclude'): CaptureIndex {
    const view = Object.create(this) as CaptureIndex;
    view.verdict = verdict;
    view.blockedSeen = 0;
    return view;
  }

  /** Whether this view has left out a blocked capture so far. */
  sawBlocked(): boolean {
    return this.blockedSeen > 0;
  }
  private stamp = '';
  private collectionNames = new Set<string>();

  /** Segments already named for having no capture index (each said once). */
  private readonly named = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly cdxPaths: string[],
    private readonly archiveLocations: string[],
    private readonly log?: (line: string) => void,
  ) {
    this.reload();
  }

  /** Whether any capture index is open. */
  get empty(): boolean {
    return this.origins.length === 0;
  }

  /** The collections named in the segments' archive lists. */
  collections(): ReadonlySet<string> {
    return this.collectionNames;
  }

  /** Opens what is there now (new segments, rebuilt clusters); false when nothing changed. */
  reload(): boolean {
    const segments = this.segmentIndexes();
    const stamp = [...segments, ...this.cdxPaths]
      .map((p) => {
        try {
          const st = statSync(p);
          return `${p}:${st.ino}:${st.mtimeMs}:${st.size}`;
        } catch {
          return `${p}:gone`;
        }
      })
      .join('\n');
    if (stamp === this.stamp) return false;
    const origins: Origin[] = [];
    const names = new Set<string>();
    for (const cdx of segments) {
      const listPath = join(dirname(cdx), CAPTURES_ARCHIVES);
      const collections = new Map<string, string>();
      if (existsSync(listPath)) {
        for (const line of readFileSync(listPath, 'utf8').split('\n')) {
          const [name, location, coll = ''] = line.split('\t');
          if (!name || !location) continue;
          collections.set(name, coll);
          if (coll) names.add(coll);
        }
      }
      for (const source of openCdxSources(cdx)) origins.push({ source, locator: new ArchiveLocator([listPath].filter(existsSync)), collections });
    }
    for (const path of this.cdxPaths) {
      const places = this.archiveLocations.length ? this.archiveLocations : [statSync(path).isDirectory() ? path : dirname(path)];
      const locator = new ArchiveLocator(places);
      for (const source of openCdxSources(path)) origins.push({ source, locator, collections: new Map() });
    }
    this.origins = origins;
    this.collectionNames = names;
    this.stamp = stamp;
    return true;
  }

  private segmentIndexes(): string[] {
    const segs = join(this.dir, 'segments');
    let names: string[];
    try {
      names = readdirSync(segs).sort();
      // A segment an import killed between its two renames left aside is put back.
      if (names.some((n) => n.endsWith('.old'))) {
        for (const n of names) if (n.endsWith('.old')) recover(join(segs, n.slice(0, -'.old'.length)));
        names = readdirSync(segs).sort();
      }
    } catch {
      return [];
    }
    for (const n of names) {
      const why = this.named.has(n) ? undefined : missingCaptureIndex(join(segs, n));
      if (why) {
        this.named.add(n);
        this.log?.(`replay: ${why}`);
      }
    }
    return names.map((n) => join(segs, n, CAPTURES_CDX)).filter((p) => existsSync(p));
  }

  /** Every capture in a key range, in key then time order; at most `limit`. */
  async range(url: string, matchType: MatchType, coll: string, limit = 100_000): Promise<Capture[]> {
    let range;
    try {
      range = keyRange(url, matchType);
    } catch {
      return [];
    }
    const out: Capture[] = [];
    for await (const capture of this.between(range.startKey, range.endKey, coll)) {
      out.push(capture);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Every capture of the index, in key then time order (an export of the whole collection). */
  every(coll: string): AsyncGenerator<Capture> {
    return this.between(ALL_KEYS.startKey, ALL_KEYS.endKey, coll);
  }

  /** The captures with keys in [startKey, endKey) this view shows, in key then time order. */
  private async *between(startKey: string, endKey: string, coll: string): AsyncGenerator<Capture> {
    const byOrigin = new Map(this.origins.map((o) => [o.source, o]));
    for await (const { line, source } of mergedLines(
      this.origins.map((o) => o.source),
      startKey,
      endKey,
    )) {
      const f = source.reader.parse(line);
      if (!f || f.timestamp === '-' || f.url === '-') continue;
      const origin = byOrigin.get(source)!;
      const collection = origin.collections.get(f.filename) ?? '';
      if (coll !== '*' && collection !== coll) continue;
      const length = Number(f.length);
      const offset = Number(f.offset);
      if (!Number.isFinite(length) || !Number.isFinite(offset)) continue;
      const capture: Capture = {
        urlkey: f.urlkey,
        ts: ts14(f.timestamp),
        url: f.url,
        mime: f.mime,
        status: f.status,
        digest: f.digest.replace(/^sha1:/i, ''),
        length,
        offset,
        filename: f.filename,
        collection,
        locate: () => origin.locator.locate(f.filename),
      };
      const v = this.verdict?.(capture) ?? 'allow';
      if (v !== 'allow') {
        if (v === 'block') this.blockedSeen++;
        continue;
      }
      yield capture;
    }
  }

  /** The captures of one URL, oldest first. */
  async captures(url: string, coll: string): Promise<Capture[]> {
    return (await this.range(url, 'exact', coll)).sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
  }

  /**
   * The captures of a URL nearest to `ts` first (ties: the earlier), with the fuzzy fallback
   * when it has none: the URL without noise parameters, then other query strings of its path.
   */
  async closest(url: string, ts: string, coll: string): Promise<{ captures: Capture[]; fuzzy: boolean }> {
    const near = (list: Capture[]) =>
      list
        .map((c) => [Math.abs(tsToMs(c.ts) - tsToMs(ts)), c] as const)
        .sort((a, b) => a[0] - b[0] || (a[1].ts < b[1].ts ? -1 : 1))
        .map(([, c]) => c);
    const exact = await this.captures(url, coll);
    if (exact.length) return { captures: near(exact), fuzzy: false };
    const quiet = withoutNoiseParams(url);
    if (quiet !== url) {
      const q = await this.captures(quiet, coll);
      if (q.length) return { captures: near(q), fuzzy: true };
    }
    const q = url.indexOf('?');
    if (q > 0) {
      // The same path with another query (pywb's fuzzy match up to the '?'), at most 100 lines.
      const wanted = withoutNoiseParams(url);
      const others = (await this.range(url.slice(0, q + 1), 'prefix', coll, 100)).filter(
        (c) => c.url.split('?')[0].replace(/^https?:\/\/(www\.)?/, '') === url.slice(0, q).replace(/^https?:\/\/(www\.)?/, ''),
      );
      if (others.length) {
        // Captures whose remaining parameters agree come first.
        const same = others.filter((c) => withoutNoiseParams(c.url) === wanted);
        return { captures: near(same.length ? same : others), fuzzy: true };
      }
    }
    return { captures: [], fuzzy: false };
  }
}
