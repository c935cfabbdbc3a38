/** Search results as text for the terminal (`nwax search`) and as JSON (`--json`). */
import type { Hit, SearchResult } from '../search/types.js';
import { markSnippet } from '../search/snippet.js';

/**
 * A replay link from the `nwax.wayback.prefix` template ({collection}, {date}, {url}). A capture
 * without a collection is `*` (every collection) on nwax's own replay, `web` on an external Wayback.
 */
export function replayUrl(template: string, hit: Pick<Hit, 'collection' | 'url'>, date: string): string {
  const none = template.includes('/replay/{collection}/') ? '*' : 'web';
  return template
    .replace('{collection}', hit.collection ? encodeURIComponent(hit.collection) : none)
    .replace('{date}', date)
    .replace('{url}', hit.url);
}

function showDate(d: string): string {
  return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)} ${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}`;
}

export function renderText(r: SearchResult, template: string, bold: boolean): string {
  const out: string[] = [];
  const last = r.start + r.hits.length;
  out.push(
    r.hits.length
      ? `Hits ${r.start + 1}-${last} (of ${r.totalExact === false ? 'more than ' : ''}${r.total}) for ${JSON.stringify(r.query)} in ${r.elapsedMs.toFixed(0)} ms`
      : `No hits (of ${r.totalExact === false ? 'more than ' : ''}${r.total}) for ${JSON.stringify(r.query)}`,
  );
  if (r.partial) out.push('(partial: the query ran out of time; these are the best of the matches it looked at)');
  r.hits.forEach((h, i) => {
    out.push('');
    out.push(`${r.start + i + 1}. ${h.title || h.url}`);
    out.push(`   ${h.url}  ${h.digest}`);
    out.push(
      `   ${h.mime}, ${h.length} bytes${h.collection ? `, collection ${h.collection}` : ''}; captured ${h.dates.length === 1 ? '' : `${h.dates.length} times: `}${h.dates.map(showDate).join(', ')}`,
    );
    const snip = markSnippet(h.snippet, bold ? '\x1b[1m' : '[', bold ? '\x1b[0m' : ']');
    if (snip) out.push(`   ${snip}`);
    out.push(`   replay: ${replayUrl(template, h, h.dates[0])}`);
    if (h.moreFromSite) out.push(`   (${h.moreFromSite} more from ${h.host})`);
  });
  return `${out.join('\n')}\n`;
}

/**
 * Search results as JSON. `paths` false (the service's answers): a hit names its archive by its
 * file name (`file`, NutchWAX's arcname) and not by where it lies on the server's disk or
 * network (`location`), which is the operator's to know, not the public's.
 */
export function renderJson(r: SearchResult & { failed?: string[] }, template: string, paths = true, access?: string): string {
  return `${JSON.stringify(
    {
      query: r.query,
      // The access rules the answer was made under (a digest; 'none'): what a shard front checks.
      ...(access !== undefined ? { access } : {}),
      total: r.total,
      totalExact: r.totalExact !== false,
      start: r.start,
      elapsedMs: Math.round(r.elapsedMs * 10) / 10,
      // partial: a shard did not answer, or the time budget ran out before every match was looked at.
      ...(r.failed || r.partial ? { partial: (r.failed?.length ?? 0) > 0 || r.partial === true } : {}),
      ...(r.failed ? { failedShards: r.failed } : {}),
      ...(r.partial ? { timeBudgetExceeded: true } : {}),
      ...(r.rankedAmong !== undefined ? { rankedAmong: r.rankedAmong } : {}),
      hits: r.hits.map((h) => ({ ...(paths ? h : withoutLocation(h)), replay: h.dates.map((d) => ({ date: d, url: replayUrl(template, h, d) })) })),
      ...(r.facets ? { facets: r.facets } : {}),
    },
    null,
    2,
  )}\n`;
}

function withoutLocation(h: Hit): Omit<Hit, 'location'> {
  const { location: _, ...rest } = h;
  return rest;
}
