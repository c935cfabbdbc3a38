/**
 * `/cdx` on nwax serve: pywb's CDX server API (url, matchType, from, to, filter, collapse,
 * limit, sort, closest, output, fl) over the ZipNum clusters and sorted CDX files configured
 * in nwax.serve.cdx. Results are capped (nwax.cdx.max.results) and a query that runs past
 * nwax.cdx.timeout is stopped; bad parameters get a 400 naming the parameter.
 */
import { openCdxSources, type CdxSource } from '../cdx/cdx-source.js';
import { parseCdxQuery } from '../cdx/cdx-query.js';
import { searchCdx } from '../cdx/cdx-search.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface CdxAnswer {
  status: number;
  type: string;
  body: string;
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
    if (st.isDirectory() && depth < 2) for (const n of readdirSync(p).filter((x) => !x.startsWith('.')).sort()) visit(join(p, n), depth + 1);
  };
  for (const p of paths) visit(p, 0);
  return parts.join('\n');
}

export async function cdxServer(o: { sources: string[]; maxResults: number; timeoutMs: number; log?: (m: string) => void }): Promise<{ answer(p: URLSearchParams): Promise<CdxAnswer>; reload(): boolean }> {
  // Opened once (a cluster's summary is read into memory here, not per request), and again when
  // the files under the source paths change: a new CDX file, a rebuilt cluster.
  let sources: CdxSource[] = o.sources.flatMap((s) => openCdxSources(s));
  let stamp = stampOf(o.sources);
  return {
    reload() {
      const now = stampOf(o.sources);
      if (now === stamp) return false;
      try {
        sources = o.sources.flatMap((s) => openCdxSources(s));
        stamp = now;
        o.log?.(`reload: CDX sources reopened (${sources.length})`);
        return true;
      } catch (err) {
        o.log?.(`reload: CDX sources: ${(err as Error).message}; the open ones serve on`);
        return false;
      }
    },
    async answer(p) {
      const one = (n: string) => p.get(n) ?? undefined;
      let q;
      try {
        q = parseCdxQuery({
          url: one('url'), matchType: one('matchType'), from: one('from') ?? one('from_ts'), to: one('to'), filter: p.getAll('filter'),
          collapse: one('collapse'), collapseTime: one('collapseTime'), limit: one('limit'), sort: one('sort'), closest: one('closest'),
          reverse: one('reverse'), output: one('output'), fl: one('fl') ?? one('fields'),
        }, o.maxResults);
      } catch (err) {
        return { status: 400, type: 'text/plain', body: `${(err as Error).message}\n` };
      }
      const lines: string[] = [];
      try {
        for await (const l of searchCdx(sources, q, { maxCollect: o.maxResults, timeoutMs: o.timeoutMs })) lines.push(l);
      } catch (err) {
        const e = err as Error & { code?: string };
        if (e.code === 'NWAX_QUERY') return { status: 400, type: 'text/plain', body: `${e.message}\n` };
        return { status: 502, type: 'text/plain', body: `the CDX index could not be read: ${e.message}\n` };
      }
      const type = q.output === 'json' ? 'application/x-ndjson' : q.output === 'cdxj' ? 'text/x-cdxj' : 'text/plain';
      return { status: 200, type, body: lines.length ? `${lines.join('\n')}\n` : '' };
    },
  };
}
