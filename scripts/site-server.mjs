// The crawler's test site (fixtures/site) on a real HTTP server on 127.0.0.1, with the
// behaviours a crawler must cope with: robots.txt, a 301 and a 302, a 404, a 500 that recovers
// on the next request, a page slower than any sane timeout, a gzip-encoded page, a page in
// windows-1252. Every request is logged (time in ms, path, User-Agent) so that tests can check
// what was fetched and how far apart. Also a generated site of N pages (the benchmark).
import { createServer } from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SITE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'site');

/**
 * Starts the test site. Options: host (default 127.0.0.1), port (0: any), slowMs (how long
 * slow.html makes the client wait), latencyMs (added to every response), pages (a generated
 * site of that many pages instead), robots ({ status, body } answered for /robots.txt). Resolves to
 * { url, log, close() }.
 */
export function startSite({ host = '127.0.0.1', port = 0, slowMs = 5000, latencyMs = 0, pages = 0, robots } = {}) {
  const log = [];
  let flaky = 0;
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    log.push({ t: Date.now(), path, ua: req.headers['user-agent'] ?? '' });
    const send = (status, headers, body) => setTimeout(() => res.writeHead(status, headers).end(body), latencyMs);
    // robots: { status, body } in place of fixtures/site/robots.txt (Crawl-delay, a 503, ...).
    if (robots && path === '/robots.txt') return send(robots.status ?? 200, { 'content-type': 'text/plain' }, robots.body ?? '');
    if (pages > 0) return generated(path, pages, send);
    switch (path) {
      case '/moved-permanently':
        return send(301, { location: '/E.html', 'content-type': 'text/html' }, '<a href="/E.html">moved</a>');
      case '/moved-temporarily':
        return send(302, { location: 'F.html', 'content-type': 'text/html' }, '<a href="F.html">here</a>');
      case '/flaky.html':
        if (flaky++ === 0) return send(500, { 'content-type': 'text/plain' }, 'try again later');
        break;
      case '/slow.html': {
        const t = setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(readFileSync(join(SITE_DIR, 'slow.html'))), slowMs);
        res.on('close', () => clearTimeout(t));
        return;
      }
      default:
    }
    const file = join(SITE_DIR, path);
    if (path.includes('..') || !existsSync(file) || path.endsWith('/')) return send(404, { 'content-type': 'text/html' }, '<h1>Not here</h1>');
    const body = readFileSync(file);
    const type = path.endsWith('.txt') ? 'text/plain' : path === '/win1252.html' ? 'text/html; charset=windows-1252' : 'text/html; charset=utf-8';
    if (path === '/gzip.html') return send(200, { 'content-type': type, 'content-encoding': 'gzip', vary: 'Accept-Encoding' }, gzipSync(body));
    send(200, { 'content-type': type, 'content-length': body.length }, body);
  });
  return new Promise((resolve) =>
    server.listen(port, host, () => {
      const a = server.address();
      resolve({
        url: `http://${host}:${a.port}`,
        log,
        server,
        close: () =>
          new Promise((ok) => {
            server.closeAllConnections();
            server.close(() => ok());
          }),
      });
    }),
  );
}

/** Page i of a generated site: a title, some text, links to the next pages (a tree every page reaches). */
function generated(path, pages, send) {
  if (path === '/robots.txt') return send(200, { 'content-type': 'text/plain' }, 'User-agent: *\nDisallow:\n');
  const m = /^\/p(\d+)\.html$/.exec(path);
  const i = m ? Number(m[1]) : -1;
  if (i < 0 || i >= pages) return send(404, { 'content-type': 'text/html' }, 'no');
  const links = [];
  for (let k = 1; k <= 10; k++) if (i * 10 + k < pages) links.push(`<a href="p${i * 10 + k}.html">page ${i * 10 + k}</a>`);
  const body = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Page ${i}</title></head><body><h1>Page ${i}</h1><p>${'Some text about crocodilians. '.repeat(30)}</p>${links.join(' ')}</body></html>`;
  send(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) }, body);
}

// node scripts/site-server.mjs [PORT] [--pages N --latency MS --hosts H]: the test site, or a
// generated site of N pages on H hosts (127.0.0.1 ... 127.0.0.H); prints the start URLs as JSON.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name, d) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : d);
  const port = Number(argv.find((a, i) => /^\d+$/.test(a) && !argv[i - 1]?.startsWith('--')) ?? 0);
  const pages = opt('--pages', 0);
  const hosts = opt('--hosts', 1);
  const sites = await Promise.all(
    Array.from({ length: hosts }, (_, i) => startSite({ host: `127.0.0.${i + 1}`, port, pages, latencyMs: opt('--latency', 0) })),
  );
  console.log(JSON.stringify(sites.map((s) => `${s.url}/${pages ? 'p0.html' : 'A.html'}`)));
  process.on('SIGTERM', () => process.exit(0));
}
