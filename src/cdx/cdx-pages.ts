/**
 * Pages of a CDX answer, as pywb's CDX server API gives them (pywb/warcserver/index/zipnum.py,
 * compute_page_range): a page is `pageSize` blocks of a ZipNum cluster (10 by default, pywb's
 * max_blocks), counted from the block before the first summary line at or after the range's
 * start to the block before the first at or after its end. `showNumPages=true` answers
 * `{"pages": N, "pageSize": P, "blocks": B}` from the summary alone; page N reads its own blocks,
 * found in the summary, so its cost does not grow with N; a page past the last is an error
 * naming the first and last pages, which is how clients know to stop.
 *
 * A flat sorted CDX file is paged by the same rules over fixed byte blocks
 * (`nwax.cdx.flat.block.size`), each page found by the binary search that finds a range. Over
 * several sources (a directory), the pages are the first source's, then the next one's, and so
 * on: each page is one source's, in key order, and the pages together hold every line once.
 * A gzipped flat file cannot be read from the middle and is not paged.
 */
import { CdxQueryError, type CdxQuery } from './cdx-query.js';
import type { CdxSource, SourcedLine } from './cdx-source.js';

/** What `showNumPages=true` answers (pywb's AlwaysJsonResponse). */
export interface PageCount {
  pages: number;
  pageSize: number;
  blocks: number;
}

/** One source's share of a range: its blocks [first, last] and the pages they make. */
interface Share {
  source: CdxSource;
  first: number;
  last: number;
  pages: number;
}

function pagedBlocks(source: CdxSource) {
  if (!source.blocks) {
    throw new CdxQueryError(
      `${source.name}: a gzipped CDX file cannot be paged (it cannot be read from the middle); build a ZipNum cluster of it (nwax zipnum build)`,
    );
  }
  return source.blocks;
}

/** Each source's blocks in the range and its number of pages, in the sources' order. */
async function shares(sources: CdxSource[], q: Pick<CdxQuery, 'startKey' | 'endKey'>, pageSize: number): Promise<Share[]> {
  const out: Share[] = [];
  for (const source of sources) {
    const blocks = pagedBlocks(source);
    const span = blocks.span(q.startKey, q.endKey);
    if (!span) continue;
    const spanned = span.last - span.first;
    // One block may hold nothing of the range (it ends before the range starts): no page, as pywb counts it.
    if (spanned === 0) {
      const lines = blocks.lines(span.first, span.first + 1, q.startKey, q.endKey)[Symbol.asyncIterator]();
      const first = await lines.next();
      await lines.return?.();
      if (first.done) continue;
    }
    out.push({ source, first: span.first, last: span.last, pages: Math.floor(spanned / pageSize) + 1 });
  }
  return out;
}

/** `showNumPages=true`: the pages and blocks of the range, read from the summaries alone. */
export async function countPages(sources: CdxSource[], q: Pick<CdxQuery, 'startKey' | 'endKey'>, pageSize: number): Promise<PageCount> {
  const all = await shares(sources, q, pageSize);
  return {
    pages: all.reduce((n, s) => n + s.pages, 0),
    pageSize,
    blocks: all.reduce((n, s) => n + s.last - s.first + 1, 0),
  };
}

/**
 * The lines of page `page` (its blocks' lines within the range, before the query's filters),
 * or an error naming the first and last pages where there is no such page. A range of no page
 * at all answers no line, as pywb's does.
 */
export async function pageLines(
  sources: CdxSource[],
  q: Pick<CdxQuery, 'startKey' | 'endKey'>,
  page: number,
  pageSize: number,
): Promise<AsyncGenerator<SourcedLine>> {
  const all = await shares(sources, q, pageSize);
  const total = all.reduce((n, s) => n + s.pages, 0);
  if (total > 0 && (page < 0 || page >= total)) throw new CdxQueryError(`Page ${page} invalid: First Page is 0, Last Page is ${total - 1}`);
  let local = page;
  const share = all.find((s) => {
    if (local < s.pages) return true;
    local -= s.pages;
    return false;
  });
  return (async function* () {
    if (!share) return;
    const from = share.first + local * pageSize;
    const to = Math.min(from + pageSize, share.last + 1);
    for await (const line of pagedBlocks(share.source).lines(from, to, q.startKey, q.endKey)) yield { line, source: share.source };
  })();
}
