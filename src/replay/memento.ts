/**
 * Memento (RFC 7089): the headers of a memento (Memento-Datetime and Link to the original, the
 * TimeGate and the TimeMap), Accept-Datetime read as an HTTP date, and the TimeMap of a URL in
 * link format (RFC 7089 section 5) and as JSON (the form Memento aggregators give). URLs in
 * `<…>` are percent-encoded where RFC 3986 would not take them (header-uri.ts).
 */
import { archivalPath, REPLAY_PREFIX } from './archival-url.js';
import { tsToMs } from './captures.js';
import { uriForHeader as u } from './header-uri.js';

export function httpDate(ts: string): string {
  return new Date(tsToMs(ts)).toUTCString();
}

/** An HTTP date (RFC 7231: IMF-fixdate, or the obsolete forms Date.parse reads) as 14 digits; undefined when it is not one. */
export function parseHttpDate(value: string): string | undefined {
  if (
    !/^[A-Za-z]{3},? +\d{1,2}[ -][A-Za-z]{3}[ -]\d{2,4} +\d{2}:\d{2}:\d{2} +GMT$/.test(value.trim()) &&
    !/^[A-Za-z]{3} [A-Za-z]{3} +\d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/.test(value.trim())
  )
    return undefined;
  const ms = Date.parse(value.trim().endsWith('GMT') ? value : `${value} GMT`);
  if (!Number.isFinite(ms)) return undefined;
  const d = new Date(ms);
  if (d.getUTCFullYear() < 1000 || d.getUTCFullYear() > 9999) return undefined;
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export interface MementoLinks {
  /** The replay origin, for absolute URIs (RFC 7089's examples give them absolute). */
  base: string;
  coll: string;
  url: string;
}

export function timegateUri(l: MementoLinks): string {
  return `${l.base}${REPLAY_PREFIX}${l.coll}/${l.url}`;
}

export function timemapUri(l: MementoLinks, format: 'link' | 'json' = 'link'): string {
  return `${l.base}${REPLAY_PREFIX}${l.coll}/timemap/${format}/${l.url}`;
}

/** The Link header of a memento or a TimeGate answer (original, timegate, timemap). */
export function mementoLinkHeader(l: MementoLinks, self?: { ts: string; first?: string; last?: string }): string {
  const parts = [
    `<${u(l.url)}>; rel="original"`,
    `<${u(timegateUri(l))}>; rel="timegate"`,
    `<${u(timemapUri(l))}>; rel="timemap"; type="application/link-format"`,
  ];
  if (self) parts.push(`<${u(`${l.base}${archivalPath(l.coll, self.ts, 'mp_', l.url)}`)}>; rel="memento"; datetime="${httpDate(self.ts)}"`);
  return parts.join(', ');
}

/** The TimeMap in link format: original, self, timegate, then each memento (first and last marked). */
export function linkTimemap(l: MementoLinks, stamps: string[]): string {
  const lines = [
    `<${u(l.url)}>; rel="original"`,
    `<${u(timemapUri(l))}>; rel="self"; type="application/link-format"${stamps.length ? `; from="${httpDate(stamps[0])}"; until="${httpDate(stamps[stamps.length - 1])}"` : ''}`,
    `<${u(timegateUri(l))}>; rel="timegate"`,
  ];
  stamps.forEach((ts, i) => {
    const rel = stamps.length === 1 ? 'first last memento' : i === 0 ? 'first memento' : i === stamps.length - 1 ? 'last memento' : 'memento';
    lines.push(`<${u(`${l.base}${archivalPath(l.coll, ts, 'mp_', l.url)}`)}>; rel="${rel}"; datetime="${httpDate(ts)}"`);
  });
  return `${lines.join(',\n')}\n`;
}

export function jsonTimemap(l: MementoLinks, stamps: string[]): string {
  const list = stamps.map((ts) => ({
    datetime: new Date(tsToMs(ts)).toISOString().replace('.000Z', 'Z'),
    uri: `${l.base}${archivalPath(l.coll, ts, 'mp_', l.url)}`,
  }));
  return `${JSON.stringify(
    {
      original_uri: l.url,
      timegate_uri: timegateUri(l),
      timemap_uri: { link_format: timemapUri(l, 'link'), json_format: timemapUri(l, 'json') },
      mementos: { ...(list.length ? { first: list[0], last: list[list.length - 1] } : {}), list },
    },
    null,
    2,
  )}\n`;
}
