// ReplayWeb.page as a test or a benchmark runs it: its release from the npm registry (ui.js and
// sw.js, kept under node_modules/.cache), and a web server on 127.0.0.1 that serves them, a
// page embedding <replay-web-page>, and packages by byte ranges, as a static web server does.
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

export const RWP_VERSION = '2.5.3';

/** The directory holding ReplayWeb.page's ui.js and sw.js, fetched once. */
export function replayWebPage(root) {
  const dir = join(root, 'node_modules', '.cache', `replaywebpage-${RWP_VERSION}`);
  if (!existsSync(join(dir, 'package', 'sw.js'))) {
    mkdirSync(dir, { recursive: true });
    const tgz = execFileSync('npm', ['pack', `replaywebpage@${RWP_VERSION}`, '--pack-destination', dir, '--silent'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['xzf', join(dir, tgz), '-C', dir, 'package/ui.js', 'package/sw.js']);
  }
  return join(dir, 'package');
}

/**
 * The embedding page for `?source=PATH` and one of: `url=` (the page replayed alone), `query=`
 * (the pages ReplayWeb.page's search lists), or neither (its list of pages).
 */
function embed(q) {
  const source = q.get('source') ?? '/archive.wacz';
  const attrs = q.has('url') ? `url="${q.get('url')}" embed="replayonly"` : `view="pages"${q.has('query') ? ` query="${q.get('query')}"` : ''}`;
  return `<!doctype html><html><head><script src="/ui.js"></script></head><body><replay-web-page source="${source}" ${attrs} replayBase="/replay/" style="display:block;height:600px"></replay-web-page></body></html>`;
}

/** Serves ReplayWeb.page and `packages` (path -> file) on 127.0.0.1, on a port it picks; resolves to its base URL and a close(). */
export async function serveReplayWebPage(root, packages) {
  const rwp = replayWebPage(root);
  const files = {
    '/ui.js': [join(rwp, 'ui.js'), 'application/javascript'],
    '/replay/sw.js': [join(rwp, 'sw.js'), 'application/javascript'],
    ...Object.fromEntries(Object.entries(packages).map(([path, file]) => [path, [file, 'application/octet-stream']])),
  };
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (u.pathname === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(embed(u.searchParams));
    const f = files[u.pathname];
    if (!f) return void res.writeHead(404).end();
    const size = statSync(f[0]).size;
    const head = req.method === 'HEAD';
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const from = m ? Number(m[1]) : 0;
    const to = m?.[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
    res.writeHead(m ? 206 : 200, {
      'content-type': f[1],
      'content-length': to - from + 1,
      'accept-ranges': 'bytes',
      ...(m ? { 'content-range': `bytes ${from}-${to}/${size}` } : {}),
    });
    if (head || to < from) return void res.end();
    createReadStream(f[0], { start: from, end: to }).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => server.close(ok)) };
}
