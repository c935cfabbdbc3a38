/**
 * The pages a WACZ package lists (`pages/pages.jsonl`, and `pages/extraPages.jsonl`): the
 * title and the text a browser saw when the page was captured (Browsertrix and ArchiveWeb.page
 * write the rendered page's text, which holds what scripts built and the HTML does not). An
 * import uses them beside its own parse: the title where the parse found none, and the lines of
 * the page's text that the parsed text does not hold, added after it.
 */
import type { RemoteOptions } from '../archive/byte-source.js';

export interface PackagePage {
  /** Capture time, 14 digits. */
  ts: string;
  title?: string;
  text?: string;
}

/** Page text kept for an archive's import at most (a crawl's pages.jsonl may hold gigabytes of it). */
const TEXT_BUDGET = 64 << 20;

export interface PackagePages {
  byUrl: Map<string, PackagePage[]>;
  /** Text left out past the budget (titles are all kept). */
  textDropped: number;
}

/** The pages of the package a location (PACKAGE.wacz#ENTRY) is in, or undefined for any other location. */
export async function packagePages(location: string, remote?: RemoteOptions): Promise<PackagePages | undefined> {
  if (!/\.wacz#/i.test(location)) return undefined;
  // The ZIP reader loads only for a package.
  const { entryLines, splitLocation } = await import('../archive/wacz.js');
  const at = splitLocation(location);
  if (!at) return undefined;
  const byUrl = new Map<string, PackagePage[]>();
  let kept = 0;
  let textDropped = 0;
  for (const name of ['pages/pages.jsonl', 'pages/extraPages.jsonl']) {
    for await (const line of entryLines(at.pkg, name, remote)) {
      let p: { url?: unknown; ts?: unknown; title?: unknown; text?: unknown };
      try {
        p = JSON.parse(line);
      } catch {
        continue;
      }
      // The first line is the list's header (format, id, title), not a page.
      if (typeof p.url !== 'string' || typeof p.ts !== 'string') continue;
      const page: PackagePage = { ts: p.ts.replace(/\D/g, '').slice(0, 14) };
      if (typeof p.title === 'string' && p.title.trim()) page.title = p.title.trim();
      if (typeof p.text === 'string' && p.text.trim()) {
        if (kept + p.text.length <= TEXT_BUDGET) {
          page.text = p.text;
          kept += p.text.length;
        } else textDropped++;
      }
      const list = byUrl.get(p.url) ?? [];
      list.push(page);
      byUrl.set(p.url, list);
    }
  }
  return { byUrl, textDropped };
}

/** The listed page of `url` captured nearest `date` (14 digits): a browser's page load and its WARC record differ by moments. */
export function pageOf(pages: PackagePages, url: string, date: string): PackagePage | undefined {
  const list = pages.byUrl.get(url);
  if (!list) return undefined;
  const t = Number(date);
  return list.reduce((best, p) => (Math.abs(Number(p.ts) - t) < Math.abs(Number(best.ts) - t) ? p : best));
}

/** The parsed text, then the page text's lines that it does not hold (within `limit` characters). */
export function withPageText(parsed: string, pageText: string, limit: number): string {
  const extra = [...new Set(pageText.split('\n').map((l) => l.replace(/\s+/g, ' ').trim()))].filter((l) => l && !parsed.includes(l));
  if (extra.length === 0) return parsed;
  const joined = parsed ? `${parsed} ${extra.join(' ')}` : extra.join(' ');
  return joined.length > limit ? joined.slice(0, limit) : joined;
}
