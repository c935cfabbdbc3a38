/**
 * Replay on its own origin (archival-url.ts lists the routes): a capture is looked up in the
 * capture indexes (captures.ts), read from its archive (resolve.ts) and sent with its headers
 * rewritten, its HTML and CSS rewritten as they stream (rewrite-html.ts, rewrite-css.ts), the
 * Memento headers, and a Content-Security-Policy that lets the page load from this origin alone
 * (and data:/blob:), so that whatever was left unrewritten is blocked, never fetched from the
 * live web. A client's mistake (a bad timestamp, an unknown collection, a URL never captured)
 * is a 4xx with a message; an archive that cannot be read is a 502 naming it.
 */
import { hidePaths } from '../util/hide-paths.js';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ArchivalUrlError, archivalPath, parseReplayTarget, REPLAY_PREFIX, type Modifier, type ReplayRoute } from './archival-url.js';
import { CaptureIndex, secondsBetween } from './captures.js';
import { uriForHeader } from './header-uri.js';
import { resolveMemento, type Resolved } from './resolve.js';
import { rewriteHeaders } from './rewrite-headers.js';
import { HtmlRewriter } from './rewrite-html.js';
import { rewriteCss } from './rewrite-css.js';
import { httpDate, jsonTimemap, linkTimemap, mementoLinkHeader, parseHttpDate, type MementoLinks } from './memento.js';
import { blockedPage, framePage, messagePage, notCapturedPage, timelinePage } from './pages.js';
import { sniffCharset } from '../parse/charset.js';
import { date14ToIso } from '../archive/dates.js';
import type { AccessPolicy } from '../access/policy.js';

/** Everything a replayed page may load comes from this origin, or is inline, data: or blob:. */
export const REPLAY_CSP = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:; form-action 'self'; base-uri 'self'; frame-ancestors 'self'";

export interface ReplayOptions {
  /** The crawl directory: its segments' capture indexes, its index set names. */
  dir: string;
  /** More CDX sources (nwax.serve.cdx). */
  cdx: string[];
  /** Where archives named by those sources are (nwax.archive.locations). */
  archiveLocations: string[];
  /** The replay origin's address, for absolute Memento URIs. */
  base(): string;
  /** The search service's address, for the way back ('' for none). */
  searchBase(): string;
  /** The access rules: a withheld capture is replayed by no route, listed in no TimeMap. */
  access?: AccessPolicy;
  log?: (line: string) => void;
}

const STATIC: Record<string, string> = { 'shim.js': 'text/javascript', 'banner.js': 'text/javascript', 'replay.css': 'text/css' };
const staticDir = new URL('../../static/replay/', import.meta.url);
const MAX_CSS = 8 << 20;
const MAX_COHERENCE_HTML = 4 << 20;

function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': `${type}; charset=utf-8`,
    'Content-Length': Buffer.byteLength(body),
    'Content-Security-Policy': REPLAY_CSP,
    ...extra,
  });
  res.end(body);
}

export class ReplayService {
  readonly index: CaptureIndex;

  constructor(private readonly opts: ReplayOptions) {
    this.index = new CaptureIndex(opts.dir, opts.cdx, opts.archiveLocations, opts.log);
  }

  reload(): boolean {
    return this.index.reload();
  }

  /** Collection names a URL may give: `*`, the archives' collections, the index set names (all captures). */
  private collection(name: string): string | undefined {
    if (name === '*' || this.index.collections().has(name)) return name;
    const sets = new Set<string>(['indexes']);
    try {
      for (const n of readdirSync(join(this.opts.dir, 'pindexes'))) sets.add(n);
    } catch {
      // no parallel indexes
    }
    return sets.has(name) ? '*' : undefined;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(res, 405, 'text/plain', 'replay answers GET and HEAD\n');
    }
    if (!target.startsWith(REPLAY_PREFIX)) {
      return send(res, 404, 'text/html', messagePage('Not here', 'Replay serves archival URLs: /replay/COLLECTION/TIMESTAMP/URL (COLLECTION may be *).'));
    }
    let route: ReplayRoute;
    try {
      route = parseReplayTarget(target);
    } catch (err) {
      if (err instanceof ArchivalUrlError) return send(res, 400, 'text/html', messagePage('Bad archival URL', err.message));
      throw err;
    }
    if (route.kind === 'static') return this.sendStatic(route.name, res);
    const coll = this.collection(route.coll);
    if (coll === undefined) {
      const known = ['*', ...this.index.collections()].join(', ');
      return send(res, 404, 'text/html', messagePage('No such collection', `${route.coll}: no collection of that name here; collections: ${known}`));
    }
    const links: MementoLinks = { base: this.opts.base(), coll: route.coll, url: route.url };
    // The captures this request may see under the access rules (every one where there are none).
    const access = this.opts.access?.active ? this.opts.access : undefined;
    const user = access?.userOf(req.headers, req.socket.remoteAddress);
    const index = access ? this.index.scoped((c) => access.decide(c.url, c.ts, user).access) : this.index;
    return this.route(index, req, res, route, coll, links);
  }

  private async route(
    index: CaptureIndex,
    req: IncomingMessage,
    res: ServerResponse,
    route: Exclude<ReplayRoute, { kind: 'static' }>,
    coll: string,
    links: MementoLinks,
  ): Promise<void> {
    switch (route.kind) {
      case 'timemap': {
        const stamps = (await index.captures(route.url, coll)).map((c) => c.ts);
        if (!stamps.length && index.sawBlocked()) return blocked(res);
        if (!stamps.length) return send(res, 404, 'text/plain', `${route.url}: no captures\n`);
        return route.format === 'json'
          ? send(res, 200, 'application/json', jsonTimemap(links, stamps))
          : send(res, 200, 'application/link-format', linkTimemap(links, stamps));
      }
      case 'timeline': {
        const caps = await index.captures(route.url, coll);
        if (!caps.length) return this.notCaptured(index, res, route.coll, coll, route.url, '99991231235959', []);
        return send(res, 200, 'text/html', timelinePage(route.coll, route.url, caps, this.opts.searchBase()));
      }
      case 'timegate':
        return this.timegate(index, req, res, links, coll);
      case 'coherence':
        return this.coherence(index, res, route.coll, coll, route.url, route.ts);
      case 'memento':
        return this.memento(index, req, res, route.coll, coll, route.url, route.ts, route.mod, links);
    }
  }

  private sendStatic(name: string, res: ServerResponse): void {
    const type = STATIC[name];
    if (!type) {
      send(res, 404, 'text/plain', 'no such file\n');
      return;
    }
    send(res, 200, type, readFileSync(new URL(name, staticDir), 'utf8'), { 'Cache-Control': 'max-age=3600' });
  }

  private async notCaptured(index: CaptureIndex, res: ServerResponse, name: string, coll: string, url: string, ts: string, reasons: string[]): Promise<void> {
    // Its captures withheld, blocked: a notice (before the host's other captures are read).
    if (index.sawBlocked()) return blocked(res);
    const host = await index.range(url, 'host', coll, 2000);
    const seen = new Set<string>();
    const nearby = host
      .sort((a, b) => secondsBetween(a.ts, ts) - secondsBetween(b.ts, ts))
      .filter((c) => !seen.has(c.url) && seen.add(c.url))
      .slice(0, 20);
    send(res, 404, 'text/html', notCapturedPage(name, url, ts, nearby, reasons));
  }

  private async timegate(index: CaptureIndex, req: IncomingMessage, res: ServerResponse, links: MementoLinks, coll: string): Promise<void> {
    const asked = req.headers['accept-datetime'];
    let ts = '99991231235959';
    if (typeof asked === 'string') {
      const parsed = parseHttpDate(asked);
      if (!parsed)
        return send(
          res,
          400,
          'text/plain',
          `Accept-Datetime: ${JSON.stringify(asked.slice(0, 80))} is not an HTTP date (e.g. Thu, 01 Apr 2010 00:00:00 GMT)\n`,
          { Vary: 'accept-datetime' },
        );
      ts = parsed;
    }
    const found = await resolveMemento(index, links.url, ts, coll);
    if ('missing' in found) return this.notCaptured(index, res, links.coll, coll, links.url, ts, found.reasons);
    found.close();
    // A Memento client (it sent Accept-Datetime) is sent to the memento; a person, to the framed page.
    const mod: Modifier = typeof asked === 'string' ? 'mp_' : '';
    res.writeHead(302, {
      Location: uriForHeader(`${links.base}${archivalPath(links.coll, found.capture.ts, mod, links.url)}`),
      Vary: 'accept-datetime',
      Link: mementoLinkHeader(links, { ts: found.capture.ts }),
      'Content-Length': 0,
      'Content-Security-Policy': REPLAY_CSP,
    });
    res.end();
  }

  private async memento(
    index: CaptureIndex,
    req: IncomingMessage,
    res: ServerResponse,
    name: string,
    coll: string,
    url: string,
    ts: string,
    mod: Modifier,
    links: MementoLinks,
  ): Promise<void> {
    let found;
    try {
      found = await resolveMemento(index, url, ts, coll);
    } catch (err) {
      this.opts.log?.(`replay ${url} ${ts}: ${(err as Error).message}`);
      return send(res, 502, 'text/html', messagePage('The archive could not be read', hidePaths((err as Error).message)));
    }
    if ('missing' in found) {
      if (found.reasons.length && found.reasons.every((r) => !/passed over|revisit/.test(r))) {
        return send(res, 502, 'text/html', messagePage('The archive could not be read', `${url}: ${found.reasons.join('; ')}`));
      }
      // A page view gets the captures of the host nearest in time; a resource (an image, a
      // script: many per page) a plain 404, without that lookup.
      if (mod !== '' && mod !== 'mp_') return index.sawBlocked() ? blocked(res) : send(res, 404, 'text/plain', `${url}: not in the archive\n`);
      return this.notCaptured(index, res, name, coll, url, ts, found.reasons);
    }
    try {
      if (mod === '') {
        const all = await index.captures(url, coll);
        const at = all.findIndex((c) => c.ts === found.capture.ts && c.offset === found.capture.offset);
        const pos = at < 0 ? all.findIndex((c) => c.ts >= found.capture.ts) : at;
        send(
          res,
          200,
          'text/html',
          framePage({
            coll: name,
            url,
            capture: found.capture,
            count: all.length,
            searchBase: this.opts.searchBase(),
            prev: pos > 0 ? all[pos - 1] : undefined,
            next: pos >= 0 && pos + 1 < all.length ? all[pos + 1] : undefined,
          }),
          { 'Memento-Datetime': httpDate(found.capture.ts), Link: mementoLinkHeader(links, { ts: found.capture.ts }) },
        );
        return;
      }
      await this.sendCapture(req, res, found, name, ts, mod, links);
    } finally {
      found.close();
    }
  }

  /** The capture itself: status, rewritten headers, the payload rewritten by its type. */
  /** `ts`: the time asked for, which the page's resources are looked up nearest (as pywb keeps it). */
  private async sendCapture(
    req: IncomingMessage,
    res: ServerResponse,
    found: Resolved,
    name: string,
    ts: string,
    mod: Modifier,
    links: MementoLinks,
  ): Promise<void> {
    const { capture, head, body } = found;
    const http = head.http;
    const status = http?.status ? Number(http.status) : 200;
    const contentType = (http ? http.headers.get('Content-Type') : head.contentType) ?? (capture.mime !== '-' ? capture.mime : undefined);
    const mime = (contentType ?? '').split(';')[0].trim().toLowerCase();
    const encoding = (body?.http?.headers.get('Content-Encoding') ?? '').trim().toLowerCase();
    const decoder =
      encoding === '' || encoding === 'identity'
        ? null
        : /^(x-)?gzip$/.test(encoding)
          ? createGunzip
          : encoding === 'deflate'
            ? createInflate
            : encoding === 'br'
              ? createBrotliDecompress
              : undefined;
    let kind: 'html' | 'css' | 'raw' =
      mod === 'id_'
        ? 'raw'
        : mod === 'cs_' || mime === 'text/css'
          ? 'css'
          : mod !== 'js_' && mod !== 'im_' && /^(text\/html|application\/xhtml\+xml)$/.test(mime)
            ? 'html'
            : 'raw';
    // An encoding this cannot undo goes out as stored.
    if (decoder === undefined) kind = 'raw';
    const ctx = { coll: name, ts, base: capture.url };
    const headers = rewriteHeaders(http?.headers, ctx, kind === 'raw');
    if (!http && contentType) headers.push(['Content-Type', contentType]);
    headers.push(
      ['Memento-Datetime', httpDate(capture.ts)],
      ['Link', mementoLinkHeader(links, { ts: capture.ts })],
      ['Content-Security-Policy', REPLAY_CSP],
      // What the banner reads from the page's resources (Resource Timing) to tell their spread in time.
      ['Server-Timing', `capture;desc="${capture.ts}"`],
      ['X-Archive-Src', `${capture.filename} ${capture.offset}`],
    );
    const noBody = !body || status === 204 || status === 304 || (status >= 100 && status < 200) || req.method === 'HEAD';
    if (noBody) {
      res.writeHead(status < 200 ? 200 : status, headers.flat());
      if (body) await body.finish();
      res.end();
      return;
    }
    let stream: Readable = Readable.from(body.payload());
    if (kind !== 'raw' && decoder) stream = stream.pipe(decoder());
    if (kind === 'css') {
      const text = await readUpTo(stream, MAX_CSS);
      const out = text.complete ? Buffer.from(rewriteCss(text.data.toString('latin1'), ctx), 'latin1') : text.data;
      res.writeHead(status, [...headers, ['Content-Length', String(out.length)]].flat());
      res.write(out);
      if (!text.complete) await pipeline(stream, res);
      else res.end();
      return;
    }
    if (kind === 'html') {
      const first = await readUpTo(stream, 4096);
      if (!/charset=/i.test(contentType ?? '')) {
        // The charset the page declares in a meta tag goes in the header: the shim put before
        // it could push that tag past the browser's 1024-byte prescan.
        const cs = sniffCharset(first.data, contentType, true);
        if (cs.source !== 'default') setHeader(headers, 'Content-Type', `${mime}; charset=${cs.encoding}`);
      }
      res.writeHead(status, headers.flat());
      const shim = `<script src="/replay/_static/shim.js" data-coll="${attr(name)}" data-ts="${ts}" data-capture="${capture.ts}" data-url="${attr(capture.url)}"></script>`;
      const rest = first.complete ? Readable.from([first.data]) : Readable.from(prepend(first.data, stream));
      await pipeline(rest, new HtmlRewriter(ctx, shim), res);
      return;
    }
    res.writeHead(status, headers.flat());
    await pipeline(stream, res);
  }

  /** Which capture each resource the page names comes from, and their spread in time. */
  private async coherence(index: CaptureIndex, res: ServerResponse, name: string, coll: string, url: string, ts: string): Promise<void> {
    const found = await resolveMemento(index, url, ts, coll);
    if ('missing' in found && index.sawBlocked()) return blocked(res);
    if ('missing' in found)
      return send(res, 404, 'application/json', `${JSON.stringify({ error: `${url}: no capture that can be replayed`, reasons: found.reasons })}\n`);
    let html = '';
    try {
      const enc = (found.body?.http?.headers.get('Content-Encoding') ?? '').toLowerCase();
      let stream: Readable = Readable.from(found.body ? found.body.payload() : []);
      if (/gzip/.test(enc)) stream = stream.pipe(createGunzip());
      else if (enc === 'br') stream = stream.pipe(createBrotliDecompress());
      html = (await readUpTo(stream, MAX_COHERENCE_HTML)).data.toString('latin1');
      stream.destroy();
    } finally {
      found.close();
    }
    const { resourceUrls } = await import('./page-resources.js');
    const urls = resourceUrls(html, found.capture.url).slice(0, 200);
    const resources = await Promise.all(
      urls.map(async (u) => {
        const near = (await index.closest(u, found.capture.ts, coll)).captures[0];
        return {
          url: u,
          memento: near?.ts ?? null,
          offsetSeconds: near ? Math.round((Date.parse(date14ToIso(near.ts)) - Date.parse(date14ToIso(found.capture.ts))) / 1000) : null,
        };
      }),
    );
    const dated = [found.capture.ts, ...resources.flatMap((r) => (r.memento ? [r.memento] : []))].sort();
    send(
      res,
      200,
      'application/json',
      `${JSON.stringify(
        {
          url,
          requested: ts,
          memento: found.capture.ts,
          collection: name,
          resources,
          missing: resources.filter((r) => !r.memento).length,
          spread: { oldest: dated[0], newest: dated[dated.length - 1], seconds: secondsBetween(dated[0], dated[dated.length - 1]) },
        },
        null,
        2,
      )}\n`,
    );
  }
}

/** 451 for a capture the access rules block: that it is withheld, nothing of what it holds. */
function blocked(res: ServerResponse): void {
  send(res, 451, 'text/html', blockedPage());
}

function attr(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function setHeader(headers: [string, string][], name: string, value: string): void {
  const i = headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
  if (i >= 0) headers[i] = [name, value];
  else headers.push([name, value]);
}

/** Reads until `max` bytes or the end; `complete` when the stream ended within them. */
async function readUpTo(stream: Readable, max: number): Promise<{ data: Buffer; complete: boolean }> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream.iterator({ destroyOnReturn: false })) {
    parts.push(chunk as Buffer);
    n += (chunk as Buffer).length;
    if (n >= max) return { data: Buffer.concat(parts), complete: false };
  }
  return { data: Buffer.concat(parts), complete: true };
}

async function* prepend(head: Buffer, rest: Readable): AsyncGenerator<Buffer> {
  yield head;
  for await (const chunk of rest) yield chunk as Buffer;
}
