/**
 * The results page's chart of hits over time (timeline.ts), as SVG written on the server: it
 * shows without JavaScript, in any browser and in a page saved as it is. A bar per period from
 * the first to the last (a period with no hit is an empty bar, so gaps show), each a link that
 * narrows the query to its period (`date:`), with its figures in its title; as counts, or as a
 * share of the collection's versions of the period (`share=1`).
 */
import type { Timeline } from '../search/timeline.js';
import { htmlEscape } from './render-html.js';

const WIDTH = 640;
const HEIGHT = 120;
const AXIS = 16;

/** Every period from the first to the last, in order (`YYYY` or `YYYYMM`). */
function periods(first: string, last: string): string[] {
  const out: string[] = [];
  if (first.length === 4) {
    for (let y = Number(first); y <= Number(last); y++) out.push(String(y).padStart(4, '0'));
    return out;
  }
  // Months: counted as months since year 0, so December runs on to January.
  const month = (p: string) => Number(p.slice(0, 4)) * 12 + Number(p.slice(4)) - 1;
  for (let m = month(first); m <= month(last); m++) out.push(`${String(Math.floor(m / 12)).padStart(4, '0')}${String((m % 12) + 1).padStart(2, '0')}`);
  return out;
}

/** A period as people write it: 2007, 2007-03. */
function label(p: string): string {
  return p.length === 4 ? p : `${p.slice(0, 4)}-${p.slice(4)}`;
}

/**
 * The chart, or '' where there is nothing to chart. `narrow(p)`: the link of the query narrowed
 * to period p; `other`: the link to the chart as counts (from a share) or as a share (from counts).
 */
export function timelineSvg(t: Timeline, share: boolean, narrow: (period: string) => string, other: string): string {
  if (t.hits.length === 0) return '';
  const hits = new Map(t.hits);
  const versions = new Map(t.versions ?? []);
  const all = periods(t.hits[0][0], t.hits[t.hits.length - 1][0]);
  const value = (p: string) => (share ? (hits.get(p) ?? 0) / Math.max(1, versions.get(p) ?? 0) : (hits.get(p) ?? 0));
  const max = Math.max(...all.map(value), share ? 0 : 1) || 1;
  const w = WIDTH / all.length;
  const unit = t.period === 'year' ? 'year' : 'month';
  const what = share ? `Share of the collection's versions of each ${unit} that match` : `Matching versions per ${unit}`;
  // Labels at the first bar and then at most about twelve, spaced evenly.
  const every = Math.max(1, Math.ceil(all.length / 12));
  const bars = all
    .map((p, i) => {
      const n = hits.get(p) ?? 0;
      const h = Math.round(((HEIGHT - AXIS) * value(p)) / max);
      const of = versions.has(p) ? ` of ${versions.get(p)} (${((100 * n) / Math.max(1, versions.get(p)!)).toFixed(2)}%)` : '';
      const x = (i * w).toFixed(1);
      const bar = `<rect x="${x}" y="${HEIGHT - AXIS - h}" width="${Math.max(1, w - 2).toFixed(1)}" height="${h}"><title>${label(p)}: ${n} version${n === 1 ? '' : 's'}${of}</title></rect>`;
      const text = i % every === 0 ? `<text x="${x}" y="${HEIGHT - 3}">${label(p)}</text>` : '';
      return `<a href="${htmlEscape(narrow(p))}" aria-label="${label(p)}: ${n}">${bar}${text}</a>`;
    })
    .join('');
  return `<figure class="timeline"><svg role="img" aria-labelledby="timeline-title" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" preserveAspectRatio="none"><title id="timeline-title">${what}</title>${bars}</svg><figcaption>${what} · <a href="${htmlEscape(other)}">${share ? 'show counts' : "show as a share of each period's versions"}</a></figcaption></figure>`;
}
