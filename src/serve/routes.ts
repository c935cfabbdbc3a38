/**
 * The search service's routes, one function each, over the parts server.ts wires together:
 * the backend (this machine's indexes or a shard front's backends), the CDX server, the access
 * policy and the replay. Bad parameters are a 400 with a message, never a 500; every response
 * says its content type and charset.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Backend, BackendView } from './backends.js';
import { NO_STATE } from './backends.js';
import type { ServeOptions } from './serve-options.js';
import type { AccessPolicy } from '../access/policy.js';
import type { Metrics } from './observe.js';
import { shardOptions } from './shard-protocol.js';
import { hidePaths } from '../util/hide-paths.js';
import type { ShardTrust } from './shard-trust.js';
import { MAX_SCORED } from '../search/types.js';
import { BadRequest, searchParams } from './params.js';
import { isImage, renderBlocked, renderError, renderHome, renderResults } from './render-html.js';
import { openSearchDescription, renderRss } from './render-rss.js';
import { renderJson, replayUrl } from './render-text.js';
import { CAPTURE_HEADER } from './stored.js';
import type { Hit, ShownCapture } from '../search/types.js';
import type { cdxServer } from './cdx-server.js';
import { type StreamGate, streamLines } from './stream-lines.js';
import { type CsvField, csvFields, csvLines } from './export-csv.js';
import { parseQuery } from '../search/query.js';
import { compareVersions } from '../search/version-compare.js';
import { renderCompare, versionId } from './render-compare.js';
import { STYLESHEET, STYLESHEET_PATH } from './stylesheet.js';

export function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': `${type}; charset=utf-8`, 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

/** What the routes answer from. */
export interface Parts {
  opts: ServeOptions;
  backend: Backend;
  cdx: Awaited<ReturnType<typeof cdxServer>> | undefined;
  cdxStreams: StreamGate;
  /** Packages made for /export/wacz at once (one). */
  packages: StreamGate;
  policy: AccessPolicy | undefined;
  metrics: Metrics;
  /** Replay under /replay on this port, where it is served so; undefined otherwise. */
  sharedReplay: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  /** Reloads the replay's capture indexes (POST /admin/reload). */
  reloadReplay: () => void;
  /** The template of replay links in hits. */
  replayTemplate: () => string;
  /** The public address of the service, for absolute links. */
  base: () => string;
  /** Who may ask the shard protocol and name a user class (shard-trust.ts). */
  trust: ShardTrust;
}

/** One request: who asks, where its answer goes, whether it was given up. */
interface Asked {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The access rules' user class of the request (none: the public). */
  user: string | undefined;
  /** The collection as that class may see it: what every route reads. */
  view: BackendView;
  /** It comes from a shard front or proxy this service believes. */
  vouched: boolean;
  signal: AbortSignal;
  answered: { generation?: number };
}

function isLoopback(address: string | undefined): boolean {
  return !!address && (/^127\./.test(address) || address === '::1' || /^::ffff:127\./.test(address));
}

/** The answer to an error of a route whose answers are of type `ctype`: a 400 or 503 with its message; anything else is thrown on (a 500). */
function failed(a: Asked, ctype: string, err: unknown): void {
  const code = (err as { code?: string }).code;
  if (code === 'NWAX_ABORTED') return; // nobody to answer
  const status = err instanceof BadRequest || code === 'NWAX_QUERY' ? 400 : code === 'NWAX_TIMEOUT' || code === 'NWAX_SHUTDOWN' ? 503 : 500;
  if (status === 500) throw err;
  if (status === 503) a.res.setHeader('Retry-After', '5');
  const message = (err as Error).message;
  if (ctype === 'text/html') send(a.res, status, 'text/html', renderError(status, message, a.url.searchParams.get('query') ?? ''));
  else if (ctype === 'application/json') send(a.res, status, 'application/json', `${JSON.stringify({ error: message })}\n`);
  else send(a.res, status, 'text/plain', `${message}\n`);
}

/** POST /admin/reload, from this machine only: a reload costs the service work, and says what it serves. */
async function adminReload(p: Parts, a: Asked): Promise<void> {
  if (a.req.method !== 'POST') {
    a.res.setHeader('Allow', 'POST');
    send(a.res, 405, 'text/plain', 'POST to reload\n');
  } else if (!isLoopback(a.req.socket.remoteAddress)) {
    send(a.res, 403, 'text/plain', 'reload is allowed from loopback only\n');
  } else {
    p.reloadReplay();
    const rules = p.policy?.reload();
    const r = await p.backend.reload();
    const errors = [...new Set([...r.errors, ...(rules?.errors ?? [])])];
    send(a.res, 200, 'application/json', `${JSON.stringify({ ...r, errors, ...(p.policy ? { accessRules: p.policy.generation } : {}) })}\n`);
  }
}

/** Pages shown with each image hit (SHOWN_ON of them), read through the view; none on a front. */
const SHOWN_ON = 3;

function imagePages(view: BackendView, hits: readonly Hit[]): Map<string, { url: string; title: string }[]> {
  const out = new Map<string, { url: string; title: string }[]>();
  if (!view.linkedFrom) return out;
  for (const h of hits) if (isImage(h) && !out.has(h.url)) out.set(h.url, view.linkedFrom(h.url, SHOWN_ON));
  return out;
}

/** /search (HTML), /api/search (JSON), /opensearch (RSS). */
async function search(p: Parts, a: Asked, path: string): Promise<void> {
  const ctype = path === '/search' ? 'text/html' : path === '/api/search' ? 'application/json' : 'application/rss+xml';
  const { opts } = p;
  const sp = a.url.searchParams;
  try {
    const q = searchParams(sp, { hitsPerSite: opts.hitsPerSite });
    const r = await a.view.search(
      q.query,
      {
        start: q.start,
        hits: q.hitsPerPage,
        hitsPerSite: q.hitsPerSite,
        // NutchWAX's hitsPerSite keeps its meaning when asked for; the default collapses only across sites.
        hitsPerSiteDefault: !sp.has('hitsPerSite') && !sp.has('hitsPerDup'),
        // The HTML page shows facets; the APIs count them when asked (facets=1).
        facets: ctype === 'text/html' || sp.get('facets') === '1',
        share: q.share,
        sort: q.sort,
        reverse: q.reverse,
        dedupField: q.dedupField,
        exact: q.exact,
        maxScored: opts.maxScored,
        budgetMs: opts.timeBudget,
        ...(opts.cache === false ? { cache: false } : {}),
        ...shardOptions(sp),
      },
      a.signal,
    );
    a.answered.generation = r.generation;
    const template = p.replayTemplate();
    const body =
      ctype === 'text/html'
        ? renderResults(r, q, template, a.view.versionParse && r.total > 1 ? parseQuery(q.query).url : [], imagePages(a.view, r.hits))
        : ctype === 'application/json'
          ? renderJson(r, template, false, p.policy?.active ? p.policy.fingerprint : 'none')
          : renderRss(r, q, p.base(), template);
    send(a.res, 200, ctype, body);
  } catch (err) {
    failed(a, ctype, err);
  }
}

/** Versions of one URL listed by /compare at most (the first by capture date). */
const MAX_VERSIONS = 1000;

/**
 * /compare?url=URL[&a=SET/DOC][&b=SET/DOC]: what changed between two versions of a page, the
 * two chosen from the URL's versions as the class sees them (its dates, its captures); without
 * `a`, the version before `b`; without either, the last two.
 */
async function compare(p: Parts, a: Asked): Promise<void> {
  const sp = a.url.searchParams;
  try {
    const url = sp.get('url')?.trim();
    if (!url) throw new BadRequest('url: missing (the page whose versions are compared)');
    if (/[\s,]/.test(url)) throw new BadRequest(`url: ${url}: a URL with white space or a comma cannot be compared (url: takes it apart)`);
    if (!a.view.versionParse) throw new BadRequest('a shard front compares no versions: its backends do (ask one of them)');
    const found = await a.view.search(`url:${url}`, { hits: MAX_VERSIONS, hitsPerSite: 0, sort: 'date', snippets: false }, a.signal);
    const versions = found.hits.filter((h) => h.url === url);
    if (versions.length < 2) {
      send(a.res, 404, 'text/html', renderError(404, `${url}: ${versions.length ? 'one version' : 'no version'} in this collection; nothing to compare`));
      return;
    }
    const pick = (name: string) => {
      const v = sp.get(name);
      if (v === null) return undefined;
      const i = versions.findIndex((h) => versionId(h) === v);
      if (i < 0) throw new BadRequest(`${name}: ${v} is not a version of ${url} (SET/DOC, as the links give it)`);
      return i;
    };
    let to = pick('b');
    let from = pick('a');
    if (from === undefined) from = to === undefined ? versions.length - 2 : to > 0 ? to - 1 : 1;
    to ??= Math.min(from + 1, versions.length - 1);
    if (from === to) throw new BadRequest('a and b are the same version: choose two');
    if (from > to) [from, to] = [to, from];
    const [pa, pb] = [a.view.versionParse(versions[from].set, versions[from].doc), a.view.versionParse(versions[to].set, versions[to].doc)];
    // Listed for the class a moment ago: withheld since by a reload of the rules.
    if (typeof pa !== 'object' || typeof pb !== 'object') {
      send(a.res, 404, 'text/plain', 'no such page or document\n');
      return;
    }
    const c = compareVersions(pa, pb, p.opts.compareBudget);
    send(a.res, 200, 'text/html', renderCompare(url, versions, from, to, c, p.replayTemplate(), found.total > versions.length));
  } catch (err) {
    failed(a, 'text/html', err);
  }
}

/** /cdx: pywb's CDX server API, streamed, at most nwax.cdx.max.concurrent at once. */
async function cdxRoute(p: Parts, a: Asked): Promise<void> {
  if (!p.cdx) {
    send(a.res, 404, 'text/plain', 'no CDX index is served here (set nwax.serve.cdx)\n');
    return;
  }
  if (!p.cdxStreams.enter()) {
    a.res.setHeader('Retry-After', '1');
    send(a.res, 503, 'text/plain', `${p.cdxStreams.limit} CDX answers are streaming; try again shortly (nwax.cdx.max.concurrent)\n`);
    return;
  }
  try {
    const out = await p.cdx.answer(a.url.searchParams, a.user);
    if (out.lines) await streamLines(a.res, out.type, out.lines, p.opts.log);
    else send(a.res, out.status, out.type, out.body ?? '');
  } finally {
    p.cdxStreams.leave();
  }
}

/** /export/csv: every version a query finds that the class may see, as CSV, streamed, bounded like /cdx. */
async function exportCsv(p: Parts, a: Asked): Promise<void> {
  const sp = a.url.searchParams;
  const query = sp.get('query')?.trim();
  const fields = csvFields(sp.get('fields'));
  const max = p.opts.csvMaxRows ?? 100_000;
  const limit = sp.has('limit') ? Number(sp.get('limit')) : max;
  const bad = !query
    ? 'query: missing (the versions it finds are exported)'
    : typeof fields === 'string'
      ? fields
      : !Number.isInteger(limit) || limit < 0
        ? `limit: ${sp.get('limit')}: not a number of rows`
        : !a.view.matching
          ? 'a CSV export is made by a service over its indexes, not by a shard front: ask a backend'
          : undefined;
  if (bad) return send(a.res, 400, 'text/plain', `${bad}\n`);
  try {
    parseQuery(query!);
  } catch (err) {
    return failed(a, 'text/plain', err);
  }
  if (!p.cdxStreams.enter()) {
    a.res.setHeader('Retry-After', '1');
    return send(a.res, 503, 'text/plain', `${p.cdxStreams.limit} answers are streaming; try again shortly (nwax.cdx.max.concurrent)\n`);
  }
  try {
    a.res.setHeader('Content-Disposition', 'attachment; filename="nwax-export.csv"');
    const rows = a.view.matching!(query!);
    await streamLines(a.res, 'text/csv', csvLines(rows, fields as CsvField[], p.replayTemplate(), Math.min(limit, max)), p.opts.log);
  } finally {
    p.cdxStreams.leave();
  }
}

/**
 * /export/wacz: the versions a query finds that the class may see, with what their pages embed,
 * as a WACZ package (export-wacz's, for this class), written aside, sent, and removed. One at a
 * time; a query that finds more than nwax.export.wacz.max.versions is asked to narrow.
 */
async function exportWaczRoute(p: Parts, a: Asked): Promise<void> {
  const query = a.url.searchParams.get('query')?.trim();
  const max = p.opts.waczMaxVersions ?? 10_000;
  if (!query) return send(a.res, 400, 'text/plain', 'query: missing (the versions it finds are exported)\n');
  if (!a.view.matching) return send(a.res, 400, 'text/plain', 'a package is made by a service over its indexes, not by a shard front: ask a backend\n');
  try {
    parseQuery(query);
  } catch (err) {
    return failed(a, 'text/plain', err);
  }
  let n = 0;
  for (const _ of a.view.matching(query)) if (++n > max) break;
  if (n === 0) return send(a.res, 404, 'text/plain', `${query}: no version found to export\n`);
  if (n > max)
    return send(a.res, 413, 'text/plain', `${query}: more than ${max} versions; narrow the query (site:, type:, date:) or export with nwax export-wacz\n`);
  if (!p.packages.enter()) {
    a.res.setHeader('Retry-After', '5');
    return send(a.res, 503, 'text/plain', 'a package is being made; try again shortly\n');
  }
  const work = mkdtempSync(join(tmpdir(), 'nwax-export-'));
  try {
    const out = join(work, 'export.wacz');
    const { exportWacz } = await import('../export/wacz-export.js');
    await exportWacz({
      dir: p.opts.dir,
      out,
      query,
      ...(p.opts.access ? { access: p.opts.access } : {}),
      ...(a.user ? { user: a.user } : {}),
      software: 'nwax serve',
      say: (m) => p.opts.log?.(`export: ${hidePaths(m)}`),
    });
    a.res.writeHead(200, {
      'Content-Type': 'application/zip',
      'Content-Length': statSync(out).size,
      'Content-Disposition': 'attachment; filename="nwax-export.wacz"',
      'X-Content-Type-Options': 'nosniff',
    });
    await pipeline(createReadStream(out), a.res);
  } catch (err) {
    if (a.res.headersSent) return void a.res.destroy(err as Error);
    return failed(a, 'text/plain', err);
  } finally {
    rmSync(work, { recursive: true, force: true });
    p.packages.leave();
  }
}

/** /api/shard/stats and /api/shard/candidates: a backend's side of the shard protocol. */
function shardRoute(p: Parts, a: Asked, path: string): void {
  const sp = a.url.searchParams;
  if (!a.vouched) {
    // Its counts include what the rules withhold: a front's question, never the public's.
    send(
      a.res,
      403,
      'application/json',
      `${JSON.stringify({ error: `${path} answers a shard front only (nwax.serve.shard.key, nwax.access.trusted.proxies)` })}\n`,
    );
    return;
  }
  try {
    const shard = a.view.shard;
    if (!shard) throw new BadRequest(`${path}: this service is not a shard backend`);
    const query = searchParams(sp, { hitsPerSite: 0 }).query;
    const body =
      path === '/api/shard/stats'
        ? (shard.stats(query, Number(sp.get('cap')) || (p.opts.maxScored ?? MAX_SCORED), sp.get('keys') === '1') ?? null)
        : shard.candidates(query, { exact: sp.get('exact') === 'true', ...shardOptions(sp) });
    send(a.res, 200, 'application/json', `${JSON.stringify(body)}\n`);
  } catch (err) {
    failed(a, 'application/json', err);
  }
}

/**
 * The document a `/stored/SET/DOC` or `/thumb/SET/DOC` path names (`set` decoded, and as it was
 * written); undefined for any other path; `bad` (answered 400 here) for bad percent-encoding.
 */
function documentPath(a: Asked, path: string): { set: string; written: string; doc: number } | undefined | 'bad' {
  const m = /^\/(?:stored|thumb)\/([^/]+)\/(\d{1,12})$/.exec(path);
  if (!m) return undefined;
  try {
    return { set: decodeURIComponent(m[1]), written: m[1], doc: Number(m[2]) };
  } catch {
    send(a.res, 400, 'text/plain', 'bad percent-encoding in the path\n');
    return 'bad';
  }
}

/** /stored/SET/DOC: the archived bytes of a capture; 451 where the access rules block it. */
async function stored(p: Parts, a: Asked, path: string): Promise<void> {
  const d = documentPath(a, path);
  if (d === 'bad') return;
  try {
    const sent = d === undefined ? 'none' : await a.view.stored(d.set, d.doc, a.res);
    if (sent === 'blocked') send(a.res, 451, 'text/html', renderBlocked());
    else if (sent === 'none') send(a.res, 404, 'text/plain', 'no such page or document\n');
    else if (typeof sent === 'object') shownElsewhere(p, a, sent);
  } catch (err) {
    if (a.res.headersSent) throw err;
    p.opts.log?.(`stored copy ${path}: ${(err as Error).message}`);
    send(a.res, 502, 'text/plain', `the archive could not be read: ${hidePaths((err as Error).message)}\n`);
  }
}

/**
 * /thumb/SET/DOC: an image capture's thumbnail (thumbnail.ts), or the placeholder of one that
 * cannot be decoded; decided as /stored is (451, 404, a later capture). Where thumbnails cannot
 * be made (a shard front, whose backends' copies its own rules decide on; no image library
 * here) the stored copy, for the browser to scale.
 */
async function thumb(p: Parts, a: Asked, path: string): Promise<void> {
  const d = documentPath(a, path);
  if (d === 'bad') return;
  if (d === undefined) return send(a.res, 404, 'text/plain', 'no such page or document\n');
  const stored = () => {
    a.res.setHeader('Location', `/stored/${d.written}/${d.doc}`);
    send(a.res, 302, 'text/plain', 'no thumbnails here: the stored copy\n');
  };
  if (!a.view.thumbnail) return stored();
  try {
    const t = await a.view.thumbnail(d.set, d.doc);
    if (t === 'blocked') send(a.res, 451, 'text/html', renderBlocked());
    else if (t === 'none') send(a.res, 404, 'text/plain', 'no such page or document\n');
    else if (t === undefined) stored();
    else if ('shown' in t) shownElsewhere(p, a, t);
    else {
      a.res.writeHead(200, {
        'Content-Type': t.type,
        'Content-Length': t.bytes.length,
        'X-Content-Type-Options': 'nosniff',
        // Rules may withhold it at the next reload: kept by the browser for a while, never shared.
        'Cache-Control': 'private, max-age=300',
        ...(t.placeholder ? { 'X-Nwax-Thumbnail': `placeholder: ${t.placeholder.replace(/[^\x20-\x7e]/g, '?')}` } : {}),
      });
      a.res.end(t.bytes);
    }
  } catch (err) {
    if (a.res.headersSent) throw err;
    p.opts.log?.(`thumbnail ${path}: ${(err as Error).message}`);
    send(a.res, 502, 'text/plain', `the archive could not be read: ${hidePaths((err as Error).message)}\n`);
  }
}

type Handler = (p: Parts, a: Asked, path: string) => void | Promise<void>;

/** /readyz: ready when index sets are open (a shard front or a /cdx-only service: when it answers). */
function readyz(p: Parts, a: Asked): void {
  const sets = p.backend.state.sets();
  const ready = p.backend.state === NO_STATE || sets.length > 0;
  send(a.res, ready ? 200 : 503, 'application/json', `${JSON.stringify({ ready, generation: p.backend.state.generation(), sets })}\n`);
}

/**
 * Every route of the service, by path (a path ending in `/` is a prefix). The collection is
 * read only through the request's view (`a.view`) or the backend's public answers; the access
 * tests try every path listed here (and /replay/) as each user class, so a route added here
 * without a case there fails them.
 */
export const ROUTES: Readonly<Record<string, Handler>> = {
  '/': (_p, a) => send(a.res, 200, 'text/html', renderHome()),
  '/healthz': async (p, a) => send(a.res, 200, 'application/json', `${JSON.stringify(await p.backend.health())}\n`),
  '/readyz': readyz,
  '/metrics': async (p, a) => send(a.res, 200, p.metrics.contentType.split(';')[0], await p.metrics.text()),
  [STYLESHEET_PATH]: (_p, a) => {
    a.res.setHeader('Cache-Control', 'public, max-age=86400');
    send(a.res, 200, 'text/css', STYLESHEET);
  },
  '/opensearch.xml': (p, a) => send(a.res, 200, 'application/opensearchdescription+xml', openSearchDescription(p.base())),
  '/search': search,
  '/api/search': search,
  '/opensearch': search,
  '/cdx': cdxRoute,
  '/api/shard/stats': shardRoute,
  '/api/shard/candidates': shardRoute,
  '/export/csv': exportCsv,
  '/export/wacz': exportWaczRoute,
  '/suggest': async (p, a) => {
    const q = a.url.searchParams.get('q') ?? '';
    send(a.res, 200, 'application/json', `${JSON.stringify(q.length > 200 ? [] : await p.backend.suggest(q))}\n`);
  },
  '/stored/': stored,
  '/thumb/': thumb,
  '/compare': compare,
  '/admin/reload': adminReload,
};

/**
 * /stored of a version whose own record the class may not see, though it may see a later
 * capture: that capture's raw bytes from replay (id_), which reads them from the capture index
 * under the same rules; the capture named for a shard front's own rules.
 */
function shownElsewhere(p: Parts, a: Asked, c: ShownCapture): void {
  const template = p.replayTemplate();
  if (!template) {
    send(a.res, 404, 'text/plain', 'this copy is shown from a later capture, and this service has no replay to read it from\n');
    return;
  }
  a.res.setHeader('Location', replayUrl(template, c, `${c.date}id_`));
  a.res.setHeader(CAPTURE_HEADER, `${c.date} ${c.url}`);
  send(a.res, 302, 'text/plain', 'shown from a later capture\n');
}

/** Answers one request. */
export async function route(p: Parts, req: IncomingMessage, res: ServerResponse, signal: AbortSignal, answered: { generation?: number }): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://nwax.invalid');
  } catch {
    send(res, 400, 'text/plain', 'bad request URL\n');
    return;
  }
  const path = url.pathname;
  if (p.sharedReplay && path.startsWith('/replay/')) return p.sharedReplay(req, res);
  // Who asks, for the access rules: a class from a trusted proxy's header, the reading room, or the public.
  const vouched = p.trust.vouched(req);
  const user = p.policy?.userOf(req.headers, req.socket.remoteAddress, vouched);
  const a: Asked = { req, res, url, user, view: p.backend.view(user), vouched, signal, answered };
  const prefix = path.startsWith('/stored/') ? '/stored/' : path.startsWith('/thumb/') ? '/thumb/' : undefined;
  const handler = ROUTES[path] ?? (prefix ? ROUTES[prefix] : undefined);
  if (!handler) return send(res, 404, 'text/plain', 'no such page or document\n');
  if (path !== '/admin/reload' && req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(res, 405, 'text/plain', 'only GET\n');
  }
  return handler(p, a, path);
}
