/**
 * `/cdx` on nwax serve: pywb's CDX server API (url, matchType, from, to, filter, collapse,
 * limit, sort, closest, output, fl, page, pageSize, showNumPages) over the ZipNum clusters and
 * sorted CDX files configured in nwax.serve.cdx. Answers are streamed as their lines are read
 * (memory per request is a batch of lines, never the answer), capped at nwax.cdx.max.results
 * lines (more come by pages: pywb's pages of blocks, cdx-pages.ts), and at most
 * nwax.cdx.max.concurrent stream at once (a 503 for more); a query that works past nwax.cdx.timeout is stopped; bad parameters get a 400 naming
 * the parameter. Errors found before the first line get their status; one after it ends the
 * response unfinished (a client sees a cut answer, never a short one that looks whole).
 */
import { openCdxSources, type CdxSource } from '../cdx/cdx-source.js';
import { CdxQueryError, parseCdxQuery } from '../cdx/cdx-query.js';
import { answerLines, searchCdx } from '../cdx/cdx-search.js';
import { countPages, pageLines } from '../cdx/cdx-pages.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CdxFields } from '../cdx/cdx-reader.js';
import type { AccessPolicy } from '../access/policy.js';

export interface CdxAnswer {
  status: number;
  type: string;
  /** The whole body of an error or a page count. */
  body?: string;
  /** The lines of an answer, streamed (the first already read, so errors before it have their status). */
  lines?: AsyncGenerator<string>;
}

export interface CdxServerOptions {
  sources: string[];
  /** Most lines of one answer or page (nwax.cdx.max.results). */
  maxResults: number;
  timeoutMs: number;
  /** Blocks of a page when `page=` comes without `pageSize=` (nwax.cdx.page.size; pywb's default is 10). */
  pageSize: number;
  /** Bytes of a flat CDX file's block, for its pages (nwax.cdx.flat.block.size). */
  flatBlockBytes?: number;
  /** The access rules: a capture they withhold (blocked or excluded) is on no line. */
  access?: AccessPolicy;
  log?: (m: string) => void;
}

/** `page=N`, `pageSize=K` (ZipNum blocks, as pywb counts them) and `showNumPages`, checked. */
function paging(p: URLSearchParams, o: CdxServerOptions): { page?: number; size: number; count: boolean } {
  const whole = (name: string, min: number): number | undefined => {
    const v = p.get(name);
    if (v === null || v === '') return undefined;
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < min) throw new CdxQueryError(`${name}=${v}: expected a whole number, at least ${min}`);
    return n;
  };
  // A negative page is pywb's "Page -1 invalid" (cdx-pages.ts), not a malformed parameter.
  return { page: whole('page', Number.MIN_SAFE_INTEGER), size: whole('pageSize', 1) ?? o.pageSize, count: p.get('showNumPages') === 'true' };
}

/** The generator with its first value read now (so its errors come before any byte is sent), or undefined when empty. */
async function started(lines: AsyncGenerator<string>): Promise<AsyncGenerator<string> | undefined> {
  const first = await lines.next();
  if (first.done) return undefined;
  return (async function* () {
    yield first.value;
    yield* lines;
  })();
}

/** The identity of the files under the source paths (names, inodes, mtimes): changes when one is added, swapped or removed. */
function stampOf(paths: string[]): string {
  const parts: string[] = [];
  const visit = (p: string, depth: number) => {
    let st;
    try {
      st = statSync(p);
    } catch {
      parts.push(`${p}:gone`);
      return;
    }
    parts.push(`${p}:${st.ino}:${st.mtimeMs}:${st.size}`);
    if (st.isDirectory() && depth < 2)
      for (const n of readdirSync(p)
        .filter((x) => !x.startsWith('.'))
        .sort())
        visit(join(p, n), depth + 1);
  };
  for (const p of paths) visit(p, 0);
  return parts.join('\n');
}

export async function cdxServer(o: CdxServerOptions): Promise<{ answer(p: URLSearchParams, user?: string): Promise<CdxAnswer>; reload(): boolean }> {
  // Opened once (a cluster's summary is read into memory here, not per request), and again when
  // the files under the source paths change: a new CDX file, a rebuilt cluster.
  const open = () => o.sources.flatMap((s) => openCdxSources(s, { flatBlockBytes: o.flatBlockBytes }));
  let sources: CdxSource[] = open();
  let stamp = stampOf(o.sources);
  return {
    reload() {
      const now = stampOf(o.sources);
      if (now === stamp) return false;
      try {
        sources = open();
        stamp = now;
        o.log?.(`reload: CDX sources reopened (${sources.length})`);
        return true;
      } catch (err) {
        o.log?.(`reload: CDX sources: ${(err as Error).message}; the open ones serve on`);
        return false;
      }
    },
    async answer(p, user) {
      const one = (n: string) => p.get(n) ?? undefined;
      let q;
      let pages;
      try {
        pages = paging(p, o);
        // Paged, the pages cover the whole answer (no cap on it); a page is pageSize blocks, and limit= cuts it.
        const paged = pages.page !== undefined || pages.count;
        q = parseCdxQuery(
          {
            url: one('url'),
            matchType: one('matchType'),
            from: one('from') ?? one('from_ts'),
            to: one('to'),
            filter: p.getAll('filter'),
            collapse: one('collapse'),
            collapseTime: one('collapseTime'),
            limit: one('limit'),
            sort: one('sort'),
            closest: one('closest'),
            reverse: one('reverse'),
            output: one('output'),
            fl: one('fl') ?? one('fields'),
          },
          paged ? Number.MAX_SAFE_INTEGER : o.maxResults,
        );
      } catch (err) {
        return { status: 400, type: 'text/plain', body: `${(err as Error).message}\n` };
      }
      const type = q.output === 'json' ? 'application/x-ndjson' : q.output === 'cdxj' ? 'text/x-cdxj' : 'text/plain';
      const failed = (err: unknown): CdxAnswer => {
        const e = err as Error & { code?: string };
        if (e.code === 'NWAX_QUERY') return { status: 400, type: 'text/plain', body: `${e.message}\n` };
        return { status: 502, type: 'text/plain', body: `the CDX index could not be read: ${e.message}\n` };
      };
      const access = o.access?.active ? o.access : undefined;
      const limits = {
        maxCollect: o.maxResults,
        timeoutMs: o.timeoutMs,
        ...(access
          ? {
              shows: (f: CdxFields) =>
                (f.url && f.url !== '-' ? access.decide(f.url, f.timestamp, user) : access.rules.decideKey(f.urlkey, f.timestamp, user)).access === 'allow',
            }
          : {}),
      };
      try {
        if (pages.count) {
          // As pywb: always JSON, whatever output= asks, from the summaries alone (no line is read but one block's of a one-block range).
          return { status: 200, type: 'application/json', body: `${JSON.stringify(await countPages(sources, q, pages.size))}\n` };
        }
        const lines = pages.page === undefined ? searchCdx(sources, q, limits) : answerLines(await pageLines(sources, q, pages.page, pages.size), q, limits);
        return { status: 200, type, lines: await started(lines) };
      } catch (err) {
        return failed(err);
      }
    },
  };
}
