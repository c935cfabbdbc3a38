/**
 * What the searcher and the shard front both do after merging candidates: hits per site
 * (counted by the dedup field) applied to the merged list, "more from this site" counts, and
 * facet counts summed over partitions or shards.
 */
import { sumTimelines } from './timeline.js';
import type { DedupField, Facets, Hit, SearchResult } from './types.js';
import { mergeDates } from '../index/document.js';

interface Keyed {
  host: string;
  url: string;
  digest: string;
}

/** What hits per site counts by: the host (default), the URL (one version each), the digest. */
export function dedupKey(field: DedupField | undefined): (x: Keyed) => string {
  return field === 'url' ? (x) => x.url : field === 'digest' ? (x) => x.digest : (x) => x.host;
}

/**
 * One item per version (URL + digest), in order: a version that several index sets or shards
 * hold (a set with a copy of its main, one archive imported twice, two collections) is one hit,
 * at its best place, with the capture dates of all.
 */
export function mergeVersions<T extends Keyed & { dates: string | string[] }>(items: T[]): T[] {
  const first = new Map<string, T>();
  const out: T[] = [];
  for (const it of items) {
    const key = `${it.url} ${it.digest}`;
    const f = first.get(key);
    if (!f) {
      first.set(key, it);
      out.push(it);
    } else if (Array.isArray(f.dates)) {
      f.dates = mergeDates(f.dates, it.dates as string[]);
    } else {
      f.dates = `${f.dates} ${it.dates as string}`;
    }
  }
  return out;
}

/** How many of `items` mergeVersions would fold into an earlier one (the same URL and digest). */
export function duplicateVersions(items: readonly Keyed[]): number {
  return items.length - new Set(items.map((it) => `${it.url} ${it.digest}`)).size;
}

/**
 * Whether `items`, in order, give at least `n` hits once merged into versions and cut to
 * `perSite` per key (what mergeVersions and collapse would show), without changing them.
 */
export function showsAtLeast(items: readonly Keyed[], n: number, perSite: number, keyOf: (x: Keyed) => string): boolean {
  const versions = new Set<string>();
  const perKey = new Map<string, number>();
  let shown = 0;
  for (const it of items) {
    const version = `${it.url} ${it.digest}`;
    if (versions.has(version)) continue;
    versions.add(version);
    const key = keyOf(it);
    const k = perKey.get(key) ?? 0;
    if (perSite && k >= perSite) continue;
    perKey.set(key, k + 1);
    if (++shown >= n) return true;
  }
  return false;
}

/** At most `perSite` items per key, in order (0: all); how many of each key were left out. */
export function collapse<T extends Keyed>(items: T[], perSite: number, keyOf: (x: Keyed) => string): { shown: T[]; hidden: Map<string, number> } {
  const seen = new Map<string, number>();
  const hidden = new Map<string, number>();
  const shown: T[] = [];
  for (const item of items) {
    const key = keyOf(item);
    const n = seen.get(key) ?? 0;
    if (perSite && n >= perSite) {
      hidden.set(key, (hidden.get(key) ?? 0) + 1);
      continue;
    }
    seen.set(key, n + 1);
    shown.push(item);
  }
  return { shown, hidden };
}

/** "More from this site" goes on the last shown hit of each collapsed key. */
export function markMore<T extends Keyed & { moreFromSite: number }>(hits: T[], hidden: Map<string, number>, keyOf: (x: Keyed) => string): void {
  for (const [key, n] of hidden) {
    const last = [...hits].reverse().find((h) => keyOf(h) === key);
    if (last) last.moreFromSite = n;
  }
}

/** Facet counts of several partitions or shards, summed; the top 10 of each. */
export function sumFacets(parts: (Facets | undefined)[]): Facets {
  const sums = { site: new Map<string, number>(), type: new Map<string, number>(), year: new Map<string, number>(), lang: new Map<string, number>() };
  for (const f of parts) {
    for (const name of ['site', 'type', 'year', 'lang'] as const) for (const [v, n] of f?.[name] ?? []) sums[name].set(v, (sums[name].get(v) ?? 0) + n);
  }
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
  const timeline = sumTimelines(parts.map((f) => f?.timeline));
  return { site: top(sums.site), type: top(sums.type), year: top(sums.year), lang: top(sums.lang), ...(timeline ? { timeline } : {}) };
}

/** What a search found, counted, as searcher and shard front both answer it. */
export interface Found {
  total: number;
  totalExact: boolean;
  rankedAmong: number | undefined;
  partial: boolean;
  facets: Facets | undefined;
  /** When the query started (performance.now()). */
  t0: number;
}

/** A search's answer, its optional fields present only where they say something. */
export function searchResult(query: string, start: number, hits: Hit[], f: Found): SearchResult {
  return {
    query,
    total: f.total,
    ...(f.totalExact ? {} : { totalExact: false }),
    ...(f.rankedAmong !== undefined ? { rankedAmong: f.rankedAmong } : {}),
    ...(f.partial ? { partial: true } : {}),
    start,
    hits,
    ...(f.facets ? { facets: f.facets } : {}),
    elapsedMs: performance.now() - f.t0,
  };
}
