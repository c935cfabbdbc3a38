/**
 * A query's hits over time (the results page's chart, `facets=1`'s `timeline`): the matching
 * versions in each period they were captured in, a version counted once a period (as `date:`
 * finds it there), every period in order; by year, or by month where the query's dates span at
 * most two years. With `share`, the collection's versions in each period beside them, so a
 * chart can show a query's share of what was captured then (the n-gram viewer's normalisation:
 * a year the archive crawled more shows more of everything).
 */
import type { DateFilter } from './query-plan.js';

export type Period = 'year' | 'month';

export interface Timeline {
  period: Period;
  /** Matching versions per period (`YYYY` or `YYYYMM`), in order. */
  hits: [string, number][];
  /** The collection's versions per period the class may see, where asked (`share`). */
  versions?: [string, number][];
}

/** The periods a query's chart counts by: months where its date ranges span two years at most. */
export function periodOf(dates: readonly DateFilter[]): Period {
  if (dates.length === 0) return 'year';
  const from = Math.min(...dates.map((d) => Number(d.from.slice(0, 4))));
  const to = Math.max(...dates.map((d) => Number(d.to.slice(0, 4))));
  return to - from < 2 ? 'month' : 'year';
}

/** Characters of a timestamp that name its period. */
export function periodLength(period: Period): number {
  return period === 'year' ? 4 : 6;
}

/**
 * Adds to `counts` the periods of one version's dates (space-separated timestamps), each once,
 * those inside the query's date ranges only (a version of 2007 and 2009 asked for in 2007 is a
 * 2007 hit).
 */
export function countPeriods(counts: Map<string, number>, dates: string, len: number, ranges: readonly DateFilter[]): void {
  const seen = new Set<string>();
  for (const d of dates.split(' ')) {
    if (d.length < len || (ranges.length && !ranges.some((r) => d >= r.from && d <= r.to))) continue;
    const p = d.slice(0, len);
    if (seen.has(p)) continue;
    seen.add(p);
    counts.set(p, (counts.get(p) ?? 0) + 1);
  }
}

/** Periods in order. */
export function inOrder(counts: Map<string, number>): [string, number][] {
  return [...counts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Timelines of several sets or backends summed (undefined where none has one). */
export function sumTimelines(parts: (Timeline | undefined)[]): Timeline | undefined {
  const some = parts.filter((t): t is Timeline => t !== undefined);
  if (some.length === 0) return undefined;
  const sum = (pick: (t: Timeline) => [string, number][] | undefined) => {
    const m = new Map<string, number>();
    for (const t of some) for (const [p, n] of pick(t) ?? []) m.set(p, (m.get(p) ?? 0) + n);
    return inOrder(m);
  };
  const shared = some.some((t) => t.versions);
  return { period: some[0].period, hits: sum((t) => t.hits), ...(shared ? { versions: sum((t) => t.versions) } : {}) };
}
