/**
 * OpenSearch RSS 2.0 as NutchWAX's OpenSearchServlet wrote it: channel with opensearch:
 * totalResults, startIndex, itemsPerPage, nutch:query, nutch:responseTime, nutch:urlParams;
 * per item title, link, description (the snippet), nutch:site, nutch:score, and one nutch:FIELD
 * per stored value (dates repeated, one element each).
 */
import type { SearchResult } from '../search/types.js';
import type { SearchParams } from './params.js';
import { markSnippet } from '../search/snippet.js';
import { replayUrl } from './render-text.js';

export function xmlEscape(s: string): string {
  // Characters XML 1.0 cannot hold at all are dropped; the rest escaped.
  return s
    .replace(/[^\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/[<>&"']/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[c]};`);
}

export function renderRss(r: SearchResult, p: SearchParams, base: string, template: string): string {
  const el = (name: string, value: string | number) => `<${name}>${xmlEscape(String(value))}</${name}>`;
  const params = new URLSearchParams({ query: p.query, start: String(p.start), hitsPerPage: String(p.hitsPerPage), hitsPerSite: String(p.hitsPerSite) });
  const items = r.hits
    .map((h) => {
      const fields: [string, string | number][] = [
        ['url', h.url],
        ['digest', h.digest],
        ['date', h.dates[0]],
        ...h.dates.map((d): [string, string] => ['capture', d]),
        ['type', h.mime],
        ['length', h.length],
        ['collection', h.collection],
        ['segment', h.segment],
        ['arcname', h.file],
        ['arcoffset', h.offset],
      ];
      return (
        `<item>${el('title', h.title || h.url)}${el('link', replayUrl(template, h, h.dates[0]))}${el('description', markSnippet(h.snippet, '', ''))}${h.lang ? el('dc:language', h.lang) : ''}` +
        `${el('nutch:site', h.host)}${el('nutch:score', h.score.toFixed(6))}${fields.map(([k, v]) => el(`nutch:${k}`, v)).join('')}` +
        `${el('guid', `${h.url} ${h.digest}`)}</item>`
      );
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:nutch="http://www.nutch.org/opensearchrss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>${el('title', `nwax: ${p.query}`)}${el('description', `nwax search results for ${p.query}`)}${el('link', `${base}/search?${params}`)}
${el('opensearch:totalResults', r.total)}${el('opensearch:startIndex', p.start)}${el('opensearch:itemsPerPage', p.hitsPerPage)}
${el('nutch:query', p.query)}${el('nutch:responseTime', (r.elapsedMs / 1000).toFixed(3))}${el('nutch:urlParams', params.toString())}
<atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="search" type="application/opensearchdescription+xml" href="${xmlEscape(`${base}/opensearch.xml`)}"/>
${items}
</channel>
</rss>
`;
}

/** The OpenSearch description document (so browsers and clients find the service). */
export function openSearchDescription(base: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
<ShortName>nwax</ShortName>
<Description>Search the web archive: every version of a page, with every date it was captured.</Description>
<InputEncoding>UTF-8</InputEncoding>
<Url type="text/html" template="${xmlEscape(`${base}/search?query={searchTerms}&start={startIndex?}&hitsPerPage={count?}`)}"/>
<Url type="application/rss+xml" template="${xmlEscape(`${base}/opensearch?query={searchTerms}&start={startIndex?}&hitsPerPage={count?}`)}"/>
<Url type="application/json" template="${xmlEscape(`${base}/api/search?query={searchTerms}&start={startIndex?}&hitsPerPage={count?}`)}"/>
</OpenSearchDescription>
`;
}
