/**
 * The pages replay shows around captures, server-rendered: the framed page (a banner with the
 * URL, the capture date, the previous and next captures, the raw capture, all versions and the
 * way back to the search, over an iframe of the capture), the timeline of every capture of a
 * URL (a bar per month, an SVG drawn here, then each version with its dates), and the page for
 * a URL that was never captured, with the captures of its host nearest in time.
 */
import { archivalPath, REPLAY_PREFIX, STATIC_PREFIX } from './archival-url.js';
import type { Capture } from './captures.js';

function esc(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": '#39' }[c]};`);
}

/** `2007-10-03 12:00:00` */
export function showTs(ts: string): string {
  return `${ts.slice(0, 4)}-${ts.slice(4, 6)}-${ts.slice(6, 8)} ${ts.slice(8, 10)}:${ts.slice(10, 12)}:${ts.slice(12, 14)}`;
}

function page(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><link rel="stylesheet" href="${STATIC_PREFIX}replay.css">${head}</head>
<body>${body}</body></html>
`;
}

export interface FrameInfo {
  coll: string;
  url: string;
  /** The capture shown. */
  capture: Capture;
  prev?: Capture;
  next?: Capture;
  /** Captures of the URL in all. */
  count: number;
  /** The search service, for the way back ('' when replay is all there is). */
  searchBase: string;
}

/** The top page: banner and the capture in an iframe (banner.js keeps them in step). */
export function framePage(f: FrameInfo): string {
  const c = f.capture;
  const link = (x: Capture | undefined, label: string, rel: string) =>
    x
      ? `<a rel="${rel}" href="${esc(archivalPath(f.coll, x.ts, '', f.url))}" title="${esc(showTs(x.ts))}">${label} <time datetime="${x.ts}">${esc(showTs(x.ts).slice(0, 10))}</time></a>`
      : `<span class="none">${label}: none</span>`;
  const back = f.searchBase ? `<a href="${esc(`${f.searchBase}/search?query=${encodeURIComponent(`url:${f.url}`)}`)}">back to the search</a>` : '';
  const body = `<header id="nwax-banner" role="banner" data-coll="${esc(f.coll)}" data-ts="${c.ts}" data-url="${esc(f.url)}">
<div class="what"><strong>Archived page</strong> <span id="nwax-url" class="url">${esc(f.url)}</span></div>
<div class="when">Captured <time id="nwax-date" datetime="${c.ts}">${esc(showTs(c.ts))}</time> UTC
<span class="nav">${link(f.prev, '&larr; previous', 'prev')} ${link(f.next, 'next &rarr;', 'next')}</span>
<a id="nwax-all" href="${esc(`${REPLAY_PREFIX}${f.coll}/*/${f.url}`)}">all ${f.count} captures</a>
<a id="nwax-raw" href="${esc(archivalPath(f.coll, c.ts, 'id_', f.url))}">raw capture</a> ${back}</div>
<div id="nwax-coherence" class="coherence" aria-live="polite"></div>
</header>
<iframe id="nwax-frame" title="The archived page" src="${esc(archivalPath(f.coll, c.ts, 'mp_', f.url))}"></iframe>`;
  return page(`Archived: ${f.url} (${showTs(c.ts).slice(0, 10)})`, body, `<script src="${STATIC_PREFIX}banner.js" defer></script>`).replace(
    '<body>',
    '<body class="framed">',
  );
}

/** Captures by month, drawn as bars: one column per month of the years the URL was captured in. */
function timelineSvg(caps: Capture[], coll: string, url: string): string {
  const byMonth = new Map<string, Capture[]>();
  for (const c of caps) {
    const k = c.ts.slice(0, 6);
    byMonth.set(k, [...(byMonth.get(k) ?? []), c]);
  }
  const years = [...new Set(caps.map((c) => Number(c.ts.slice(0, 4))))].sort((a, b) => a - b);
  const first = years[0];
  const span = years[years.length - 1] - first + 1;
  const max = Math.max(...[...byMonth.values()].map((v) => v.length));
  // Month columns as wide as 720 pixels allow, between 6 and 40.
  const w = Math.max(6, Math.min(40, Math.floor(720 / (span * 12))));
  const h = 60;
  const width = span * 12 * w + 20;
  const bars: string[] = [];
  for (const [k, list] of byMonth) {
    const x = 10 + ((Number(k.slice(0, 4)) - first) * 12 + Number(k.slice(4, 6)) - 1) * w;
    const bh = Math.max(3, Math.round((list.length / max) * h));
    bars.push(
      `<a href="${esc(archivalPath(coll, list[0].ts, '', url))}"><rect x="${x}" y="${10 + h - bh}" width="${w - 1}" height="${bh}"><title>${k.slice(0, 4)}-${k.slice(4)}: ${list.length} capture${list.length === 1 ? '' : 's'}</title></rect></a>`,
    );
  }
  const labels = Array.from(
    { length: span },
    (_, i) =>
      `<text x="${10 + i * 12 * w}" y="${h + 26}">${first + i}</text><line x1="${10 + i * 12 * w - 1}" y1="8" x2="${10 + i * 12 * w - 1}" y2="${h + 12}"/>`,
  );
  return `<svg class="timeline" role="img" aria-label="Captures per month, ${first} to ${first + span - 1}" width="${width}" height="${h + 32}" viewBox="0 0 ${width} ${h + 32}">${labels.join('')}${bars.join('')}</svg>`;
}

/** Every capture of a URL: the chart, then each version (digest) with its dates, newest version first. */
export function timelinePage(coll: string, url: string, caps: Capture[], searchBase: string): string {
  const versions = new Map<string, Capture[]>();
  for (const c of caps) versions.set(c.digest, [...(versions.get(c.digest) ?? []), c]);
  const list = [...versions.entries()]
    .sort((a, b) => (a[1][0].ts < b[1][0].ts ? 1 : -1))
    .map(([digest, cs]) => {
      const dates = cs
        .map(
          (c) =>
            `<li><a href="${esc(archivalPath(coll, c.ts, '', url))}"><time datetime="${c.ts}">${esc(showTs(c.ts))}</time></a> <span class="meta">${esc(c.status)} ${esc(c.mime)}</span></li>`,
        )
        .join('');
      return `<section class="version"><h3>Version <code>${esc(digest.slice(0, 12))}</code>: ${cs.length} capture${cs.length === 1 ? '' : 's'}</h3><ul>${dates}</ul></section>`;
    })
    .join('\n');
  const back = searchBase ? `<p><a href="${esc(`${searchBase}/search?query=${encodeURIComponent(`url:${url}`)}`)}">search for this URL</a></p>` : '';
  return page(
    `All captures of ${url}`,
    `<main><h1>All captures of <span class="url">${esc(url)}</span></h1>
<p>${caps.length} capture${caps.length === 1 ? '' : 's'}, ${versions.size} version${versions.size === 1 ? '' : 's'}, ${esc(showTs(caps[0].ts).slice(0, 10))} to ${esc(showTs(caps[caps.length - 1].ts).slice(0, 10))}.</p>
${timelineSvg(caps, coll, url)}${back}
${list}</main>`,
  );
}

/** A URL with no capture: what the host has, nearest the time asked for. */
export function notCapturedPage(coll: string, url: string, ts: string, nearby: Capture[], reasons: string[]): string {
  const items = nearby
    .map((c) => `<li><a href="${esc(archivalPath(coll, c.ts, '', c.url))}">${esc(c.url)}</a> <time datetime="${c.ts}">${esc(showTs(c.ts))}</time></li>`)
    .join('');
  const why = reasons.length
    ? `<details><summary>Captures passed over</summary><ul>${reasons
        .slice(0, 20)
        .map((r) => `<li>${esc(r)}</li>`)
        .join('')}</ul></details>`
    : '';
  return page(
    `Not in the archive: ${url}`,
    `<main><h1>Not in the archive</h1>
<p><span class="url">${esc(url)}</span> has no capture that can be replayed${coll === '*' ? '' : ` in collection ${esc(coll)}`} (asked for ${esc(showTs(ts))}).</p>${why}
${nearby.length ? `<h2>Captures of the same host nearest that time</h2><ul>${items}</ul>` : '<p>Nothing of that host is in the archive either.</p>'}</main>`,
  );
}

/** A plain message page (a bad archival URL, an unreadable archive). */
export function messagePage(title: string, message: string): string {
  return page(title, `<main><h1>${esc(title)}</h1><p>${esc(message)}</p></main>`);
}

/** The notice of a blocked capture (451): that it is withheld, and nothing of it (no URL, no date). */
export function blockedPage(): string {
  return messagePage('Access blocked', 'This capture is held in the archive but cannot be shown (HTTP 451: unavailable for legal reasons).');
}
