/**
 * The comparison of two versions of a page (/compare), server-rendered: which two (their first
 * capture dates, every date linked to replay), a form to choose any two of the URL's versions,
 * links to the changes before and after, then the title and links that changed and the text
 * with its deleted words in <del> and inserted ones in <ins>. Long runs of unchanged words are
 * folded into a <details> (opened without JavaScript).
 */
import type { Hit } from '../search/types.js';
import type { VersionComparison } from '../search/version-compare.js';
import { htmlEscape, page, showDate } from './render-html.js';
import { replayUrl } from './render-text.js';

/** Unchanged words shown on either side of a change; a run longer than twice this (and some) is folded. */
const CONTEXT = 25;

/** A version's name in the page: its set and document, as /compare takes it. */
export function versionId(h: Pick<Hit, 'set' | 'doc'>): string {
  return `${h.set}/${h.doc}`;
}

function compareHref(url: string, a: Hit, b: Hit): string {
  return `/compare?${new URLSearchParams({ url, a: versionId(a), b: versionId(b) })}`;
}

function versionLabel(h: Hit): string {
  return `${showDate(h.dates[0])} (${h.dates.length === 1 ? 'captured once' : `captured ${h.dates.length} times`})`;
}

function versionHtml(role: string, h: Hit, template: string): string {
  const dates = h.dates.map((d) => `<a href="${htmlEscape(replayUrl(template, h, d))}">${showDate(d)}</a>`).join(' ');
  return `<section class="version"><h3>${role}: the version first captured ${showDate(h.dates[0])}</h3><p class="dates">${dates}</p></section>`;
}

function textHtml(c: VersionComparison): string {
  const parts = c.text.changes.map((part, i) => {
    const text = htmlEscape(part.text);
    if (part.op === 'insert') return `<ins>${text}</ins>`;
    if (part.op === 'delete') return `<del>${text}</del>`;
    const words = part.text.split(' ');
    const head = i === 0 ? 0 : CONTEXT;
    const tail = i === c.text.changes.length - 1 ? 0 : CONTEXT;
    if (words.length <= head + tail + CONTEXT) return text;
    const folded = words.slice(head, words.length - tail);
    return `${htmlEscape(words.slice(0, head).join(' '))} <details><summary>${folded.length} unchanged words</summary>${htmlEscape(folded.join(' '))}</details> ${htmlEscape(words.slice(words.length - tail).join(' '))}`;
  });
  return `<div class="diff">${parts.join(' ')}</div>`;
}

function linkList(title: string, urls: string[]): string {
  return urls.length
    ? `<section><h3>${title} (${urls.length})</h3><ul>${urls.map((u) => `<li class="url">${htmlEscape(u)}</li>`).join('')}</ul></section>`
    : '';
}

/** The page comparing versions[from] with versions[to] (versions: the URL's, oldest first). */
export function renderCompare(url: string, versions: Hit[], from: number, to: number, c: VersionComparison, template: string, more: boolean): string {
  const a = versions[from];
  const b = versions[to];
  const nav: string[] = [];
  if (from > 0) nav.push(`<a rel="prev" href="${htmlEscape(compareHref(url, versions[from - 1], a))}">Earlier change</a>`);
  if (to < versions.length - 1) nav.push(`<a rel="next" href="${htmlEscape(compareHref(url, b, versions[to + 1]))}">Later change</a>`);
  const options = (chosen: number) =>
    versions.map((h, i) => `<option value="${htmlEscape(versionId(h))}"${i === chosen ? ' selected' : ''}>${htmlEscape(versionLabel(h))}</option>`).join('');
  const form = `<form action="/compare" method="get" class="pick"><input type="hidden" name="url" value="${htmlEscape(url)}">
<label>From <select name="a">${options(from)}</select></label> <label>to <select name="b">${options(to)}</select></label> <button type="submit">Compare</button></form>`;
  const title = c.title
    ? `<p class="title-change">Title: <del>${htmlEscape(c.title.from || '(none)')}</del> <ins>${htmlEscape(c.title.to || '(none)')}</ins></p>`
    : `<p class="title-change">Title unchanged: ${htmlEscape(b.title || '(none)')}</p>`;
  const links = c.links
    ? linkList('Links added', c.links.added) + linkList('Links removed', c.links.removed) || '<p>Links unchanged.</p>'
    : '<p>The links of one of these versions could not be read.</p>';
  const summary = `<p class="summary" role="status">${c.inserted} word${c.inserted === 1 ? '' : 's'} inserted, ${c.deleted} deleted${
    c.text.cut ? '; compared in part (the texts are long and far apart): some runs are shown replaced whole' : ''
  }.</p>`;
  const body = `<h2>Changes to <span class="url">${htmlEscape(url)}</span></h2>
<p>${versions.length} versions${more ? ' (the first listed)' : ''}. <a href="${htmlEscape(`/search?${new URLSearchParams({ query: `url:${url}`, hitsPerSite: '0' })}`)}">All versions of this URL</a></p>
${form}${nav.length ? `<nav aria-label="Other changes">${nav.join('')}</nav>` : ''}
${versionHtml('From', a, template)}${versionHtml('To', b, template)}
${summary}${title}${links}<h3>Text</h3>${textHtml(c)}`;
  return page(`Changes to ${url} - nwax`, '', body);
}
