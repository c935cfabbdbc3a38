/**
 * The search pages, server-rendered (they work without JavaScript): a form with a label, the
 * results as a list under headings, each hit with its title, URL, snippet (query words marked),
 * type and size, every capture date linked to its Wayback replay, the stored copy, all versions
 * of the URL, more from the site; pages back and forth. Everything from the index or the query
 * is escaped.
 */
import { timelineSvg } from './render-timeline.js';
import type { SearchResult, Hit } from '../search/types.js';
import type { SearchParams } from './params.js';
import { markSnippet } from '../search/snippet.js';
import { replayUrl } from './render-text.js';
import { STYLESHEET_PATH } from './stylesheet.js';

export function htmlEscape(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": '#39' }[c]};`);
}

export function showDate(d: string): string {
  return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}${d.length > 8 ? ` ${d.slice(8, 10)}:${d.slice(10, 12)}` : ''}`;
}

export function page(title: string, query: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${htmlEscape(title)}</title><link rel="search" type="application/opensearchdescription+xml" title="nwax" href="/opensearch.xml">
<link rel="stylesheet" href="${STYLESHEET_PATH}"></head>
<body><header><h1><a href="/">nwax</a></h1>
<form action="/search" method="get" role="search"><label for="q">Search the archive</label>
<input type="search" id="q" name="query" value="${htmlEscape(query)}" autofocus><button type="submit">Search</button></form></header>
<main>${body}</main></body></html>
`;
}

export function renderHome(): string {
  return page(
    'nwax',
    '',
    `<p>Every version of a page, with every date it was captured. Try <code>site:example.org</code>, <code>type:pdf</code>, <code>date:2007-2008</code>, <code>"a phrase"</code>, <code>-word</code>.</p>`,
  );
}

function link(params: SearchParams, over: Partial<SearchParams>): string {
  const p = { ...params, ...over };
  const extra: Record<string, string> = {};
  if (p.sort !== 'score') extra.sort = p.sort;
  if (p.reverse) extra.reverse = 'true';
  if (p.dedupField !== 'site') extra.dedupField = p.dedupField;
  if (p.share) extra.share = '1';
  return `/search?${new URLSearchParams({ query: p.query, start: String(p.start), hitsPerPage: String(p.hitsPerPage), hitsPerSite: String(p.hitsPerSite), ...extra })}`;
}

function hitHtml(h: Hit, p: SearchParams, template: string, compared: readonly string[], pages?: readonly { url: string; title: string }[]): string {
  const snippet = markSnippet(h.snippet, '<mark>', '</mark>', htmlEscape);
  const dates = h.dates.map((d) => `<a href="${htmlEscape(replayUrl(template, h, d))}">${showDate(d)}</a>`).join('');
  const more = h.moreFromSite
    ? ` · <a href="${htmlEscape(link(p, { query: `${p.query} site:${h.host}`, start: 0, hitsPerSite: 0 }))}">${h.moreFromSite} more from ${htmlEscape(h.host)}</a>`
    : '';
  const image = isImage(h) ? `<a class="thumb" href="${htmlEscape(replayUrl(template, h, h.dates[0]))}">${thumbnail(h)}</a>` : '';
  return `<li>${image}<h3><a href="${htmlEscape(replayUrl(template, h, h.dates[0]))}">${htmlEscape(h.title || h.url)}</a></h3>
<div class="url">${htmlEscape(h.url)}</div>${isImage(h) ? shownOn(pages, p) : ''}
${snippet ? `<p>${snippet}</p>` : ''}
<div class="meta">${htmlEscape(h.mime)}, ${h.length} bytes${h.collection ? `, ${htmlEscape(h.collection)}` : ''}${h.offset == null ? '' : ` · <a href="/stored/${encodeURIComponent(h.set)}/${h.doc}">stored copy</a>`} · <a href="${htmlEscape(link(p, { query: `url:${h.url}`, start: 0, hitsPerSite: 0 }))}">all versions of this URL</a>${
    compared.includes(h.url)
      ? ` · <a href="/compare?${htmlEscape(new URLSearchParams({ url: h.url, b: `${h.set}/${h.doc}` }).toString())}">compare with the version before</a>`
      : ''
  }${more}</div>
<div class="dates">Captured ${h.dates.length === 1 ? 'once' : `${h.dates.length} times`}: ${dates}</div></li>`;
}

/** Whether a hit is an image, which is shown as its thumbnail. */
export function isImage(h: Pick<Hit, 'mime'>): boolean {
  return /^image\//i.test(h.mime);
}

/** A hit's thumbnail (thumbnail.ts), scaled to its box by the stylesheet; lazily loaded. */
function thumbnail(h: Hit): string {
  if (h.offset == null) return '<span class="no-thumb">no preview</span>';
  return `<img src="/thumb/${encodeURIComponent(h.set)}/${h.doc}" alt="${htmlEscape(h.title || h.url)}" loading="lazy">`;
}

/** Pages that show or link to an image, each named by its title and linked to its versions. */
function shownOn(pages: readonly { url: string; title: string }[] | undefined, p: SearchParams): string {
  if (!pages?.length) return '';
  const links = pages.map((g) => `<a href="${htmlEscape(link(p, { query: `url:${g.url}`, start: 0, hitsPerSite: 0 }))}">${htmlEscape(g.title || g.url)}</a>`);
  return `<div class="shown-on">Shown on ${links.join(', ')}</div>`;
}

/**
 * An image hit in the grid: its thumbnail linked to its capture, the pages that show it, its
 * URL, type and size, and its capture dates.
 */
function imageHtml(h: Hit, p: SearchParams, template: string, pages: readonly { url: string; title: string }[] | undefined): string {
  const dates = h.dates.map((d) => `<a href="${htmlEscape(replayUrl(template, h, d))}">${showDate(d)}</a>`).join('');
  return `<li><figure><a class="thumb" href="${htmlEscape(replayUrl(template, h, h.dates[0]))}">${thumbnail(h)}</a>
<figcaption><div class="url">${htmlEscape(h.url)}</div>${shownOn(pages, p)}
<div class="meta">${htmlEscape(h.mime)}, ${h.length} bytes${h.offset == null ? '' : ` · <a href="/stored/${encodeURIComponent(h.set)}/${h.doc}">original</a>`}</div>
<div class="dates">${dates}</div></figcaption></figure></li>`;
}

/**
 * `compared`: the URLs (a url: query's) whose versions have a link to /compare; `shown`: the
 * pages that show each image hit (by its URL), where they are known. Where every hit is an image
 * the hits are a grid of thumbnails; an image among other hits has its thumbnail beside it.
 */
export function renderResults(
  r: SearchResult & { failed?: string[] },
  p: SearchParams,
  template: string,
  compared: readonly string[] = [],
  shown: ReadonlyMap<string, { url: string; title: string }[]> = new Map(),
): string {
  const first = r.start + 1;
  const last = r.start + r.hits.length;
  const head = r.hits.length
    ? `<h2>Hits ${first}-${last} of ${r.totalExact === false ? 'more than' : 'about'} ${r.total} for <q>${htmlEscape(p.query)}</q></h2>`
    : `<h2>No hits for <q>${htmlEscape(p.query)}</q></h2>`;
  const nav: string[] = [];
  if (r.start > 0) nav.push(`<a rel="prev" href="${htmlEscape(link(p, { start: Math.max(0, r.start - p.hitsPerPage) }))}">Previous page</a>`);
  if (last < r.total && r.hits.length === p.hitsPerPage)
    nav.push(`<a rel="next" href="${htmlEscape(link(p, { start: r.start + p.hitsPerPage }))}">Next page</a>`);
  const facetList = (title: string, field: string, values: [string, number][]) =>
    values.length < 2
      ? ''
      : `<section><h3>${title}</h3><ul>${values
          .map(([v, n]) => `<li><a href="${htmlEscape(link(p, { query: `${p.query} ${field}:${v}`, start: 0 }))}">${htmlEscape(v)}</a> (${n})</li>`)
          .join('')}</ul></section>`;
  const facets = r.facets
    ? `<nav aria-label="Narrow the results" class="facets">${facetList('Site', 'site', r.facets.site)}${facetList('Type', 'type', r.facets.type)}${facetList('Year', 'date', r.facets.year)}${facetList('Language', 'lang', r.facets.lang)}</nav>`
    : '';
  // The chart's bars narrow the query to their period: its own date: filters give way.
  const undated = p.query.replace(/(^|\s)date:\S+/g, '').trim();
  const chart = r.facets?.timeline
    ? timelineSvg(r.facets.timeline, p.share, (period) => link(p, { query: `${undated} date:${period}`, start: 0 }), link(p, { share: !p.share, start: 0 }))
    : '';
  const partial =
    (r.failed?.length
      ? `<p role="status">Partial results: ${r.failed.length} shard${r.failed.length === 1 ? '' : 's'} did not answer (${htmlEscape(r.failed.join(', '))}).</p>`
      : '') + (r.partial ? '<p role="status">Partial results: the query ran out of time; these are the best of the matches it looked at.</p>' : '');
  // Every version the query finds, to take away: a table, or a package ReplayWeb.page opens.
  const q = encodeURIComponent(p.query);
  const takeAway = r.hits.length
    ? `<p class="take-away">Take these results away: <a href="/export/csv?query=${q}" download>CSV</a> · <a href="/export/wacz?query=${q}" download>WACZ package</a></p>`
    : '';
  const grid = r.hits.length > 0 && r.hits.every(isImage);
  const list = grid
    ? `<ol class="images" start="${first}">${r.hits.map((h) => imageHtml(h, p, template, shown.get(h.url))).join('\n')}</ol>`
    : `<ol start="${first}">${r.hits.map((h) => hitHtml(h, p, template, compared, shown.get(h.url))).join('\n')}</ol>`;
  const body = `${head}${partial}${takeAway}${chart}${facets}${list}${nav.length ? `<nav aria-label="Pages">${nav.join('')}</nav>` : ''}`;
  return page(`${p.query} - nwax`, p.query, body);
}

/** The notice of a capture the access rules block (451): that it is withheld, never what it holds. */
export function renderBlocked(): string {
  return page(
    'Unavailable for legal reasons - nwax',
    '',
    '<h2>Access blocked</h2><p>This capture is held in the archive but cannot be shown here (HTTP 451: unavailable for legal reasons).</p>',
  );
}

export function renderError(status: number, message: string, query = ''): string {
  return page(`Error ${status} - nwax`, query, `<h2>${status === 400 ? 'That query cannot be run' : 'Error'}</h2><pre>${htmlEscape(message)}</pre>`);
}
