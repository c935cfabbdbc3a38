/**
 * Answers a CDX query over sources: the key range read in order, then dates, filters and
 * collapse applied line by line, then sort (reverse, closest) and the limit, then each line
 * written as CDX, CDXJ or JSON (pywb's output forms), with only the `fl` fields when asked.
 */
import type { CdxFields } from './cdx-reader.js';
import { passesAll } from './cdx-filter.js';
import { CdxQueryError, type CdxQuery } from './cdx-query.js';
import { mergedLines, type CdxSource, type SourcedLine } from './cdx-source.js';

const ALL_FIELDS: (keyof CdxFields)[] = ['urlkey', 'timestamp', 'url', 'mime', 'status', 'digest', 'length', 'offset', 'filename'];

export interface SearchLimits {
  /** Lines held for sort=reverse/closest at most. */
  maxCollect: number;
  /** Time the query may take, ms (0: no limit). */
  timeoutMs: number;
  /** Whether a line may be shown (the access rules); every line where absent. */
  shows?: (f: CdxFields) => boolean;
}

function isCdxj(line: string): boolean {
  const a = line.indexOf(' ');
  const b = a < 0 ? -1 : line.indexOf(' ', a + 1);
  return b > 0 && line.charCodeAt(b + 1) === 123;
}

/** One result line in the query's output form. */
export function formatCdxLine(line: string, f: CdxFields, q: Pick<CdxQuery, 'output' | 'fields'>): string {
  const names = q.fields ?? ALL_FIELDS;
  if (q.output === 'json') {
    const o: Record<string, string> = {};
    for (const n of names) o[n] = f[n];
    return JSON.stringify(o);
  }
  if (q.output === 'cdxj') {
    if (!q.fields && isCdxj(line)) return line;
    const o: Record<string, string> = {};
    for (const n of names) if (n !== 'urlkey' && n !== 'timestamp' && f[n] !== '-') o[n] = f[n];
    return `${f.urlkey} ${f.timestamp} ${JSON.stringify(o)}`;
  }
  if (q.fields) return q.fields.map((n) => f[n]).join(' ');
  if (!isCdxj(line)) return line;
  return `${f.urlkey} ${f.timestamp} ${f.url} ${f.mime} ${f.status} ${f.digest} - - ${f.length} ${f.offset} ${f.filename}`;
}

const ts14 = (t: string) => (t.length >= 14 ? t : t.padEnd(14, '0'));

/** The output lines of a query, in order; stops at the limit. */
export function searchCdx(sources: CdxSource[], q: CdxQuery, limits: SearchLimits): AsyncGenerator<string> {
  return answerLines(mergedLines(sources, q.startKey, q.endKey), q, limits);
}

/** The output lines of a query over lines already found (a range's, or one page's): dates, access, filters, collapse, sort, limit. */
export async function* answerLines(found: AsyncIterable<SourcedLine>, q: CdxQuery, limits: SearchLimits): AsyncGenerator<string> {
  // The budget counts the query's own work: the time its reader holds a streamed answer (a
  // slow client, a full socket) is not the query's.
  const budget = limits.timeoutMs > 0 ? limits.timeoutMs : Infinity;
  let worked = 0;
  let resumed = Date.now();
  const pause = () => (worked += Date.now() - resumed);
  const resume = () => (resumed = Date.now());
  const held: [number, string][] = [];
  let lastCollapse: string | undefined;
  let n = 0;
  let seen = 0;
  for await (const { line, source } of found) {
    if ((++seen & 1023) === 0) {
      if (worked + Date.now() - resumed > budget) {
        throw new CdxQueryError(`the query read ${seen} lines in ${limits.timeoutMs} ms and was stopped; narrow it (matchType, from/to, limit)`);
      }
      // Let other requests in (a service's /healthz, a second query) between slices of work.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const f = source.reader.parse(line);
    if (!f) continue;
    const t = ts14(f.timestamp);
    if ((q.from && t < q.from) || (q.to && t > q.to)) continue;
    if (limits.shows && !limits.shows(f)) continue;
    if (q.filters.length && !passesAll(q.filters, f, line)) continue;
    if (q.collapse) {
      const v = q.collapse.chars ? f[q.collapse.field].slice(0, q.collapse.chars) : f[q.collapse.field];
      if (v === lastCollapse) continue;
      lastCollapse = v;
    }
    const out = formatCdxLine(line, f, q);
    if (q.sort === 'default') {
      pause();
      yield out;
      resume();
      if (++n >= q.limit) return;
      continue;
    }
    if (held.length >= limits.maxCollect)
      throw new CdxQueryError(`sort=${q.sort} would hold more than ${limits.maxCollect} lines; narrow the query (from/to, filter)`);
    held.push([q.sort === 'closest' ? Math.abs(Number(t) - Number(q.closest)) : held.length, out]);
  }
  if (q.sort === 'reverse') held.reverse();
  else if (q.sort === 'closest') held.sort((a, b) => a[0] - b[0]);
  for (let i = 0; i < held.length && i < q.limit; i++) yield held[i][1];
}
