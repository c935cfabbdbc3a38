import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { HAVE_FIXTURES, fixture, nwaxAsync, segmentRecords, tempDir } from './helpers.js';

/**
 * A real web server on 127.0.0.1 serving fixture archives: plainly with ranges (/files/),
 * dropping the connection half way through the first response and honouring a Range request
 * after (/drop/), dropping half way and then ignoring Range (/norange/), and 404 for the rest.
 */
function archiveServer(files: Record<string, Buffer>): { server: Server; requests: string[] } {
  const requests: string[] = [];
  const dropped = new Set<string>();
  const server = createServer((req, res) => {
    const [, mode, name] = /^\/(files|drop|norange)\/(.+)$/.exec(req.url ?? '') ?? [];
    const body = name ? files[name] : undefined;
    requests.push(`${req.method} ${req.url} ${req.headers.range ?? ''}`.trim());
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    if ((mode === 'drop' || mode === 'norange') && !dropped.has(req.url!)) {
      dropped.add(req.url!);
      res.writeHead(200, { 'content-length': body.length, 'accept-ranges': mode === 'drop' ? 'bytes' : 'none' });
      res.write(body.subarray(0, body.length >> 1), () => res.socket?.destroy());
      return;
    }
    const range = mode !== 'norange' ? /^bytes=(\d+)-$/.exec(req.headers.range ?? '') : null;
    if (range) {
      const from = Number(range[1]);
      res.writeHead(206, {
        'content-length': body.length - from,
        'content-range': `bytes ${from}-${body.length - 1}/${body.length}`,
        'accept-ranges': 'bytes',
      });
      res.end(body.subarray(from));
      return;
    }
    res.writeHead(200, { 'content-length': body.length, 'accept-ranges': mode === 'norange' ? 'none' : 'bytes' });
    res.end(body);
  });
  return { server, requests };
}

describe.skipIf(!HAVE_FIXTURES)('importing archives over HTTP', () => {
  const names = ['iana.warc.gz', 'crawl1.warc.gz'];
  const paths = [fixture('pywb/iana.warc.gz'), fixture('wget/crawl1.warc.gz')];
  // The server reads `files` per request; they are read before the tests, not at collection.
  const files: Record<string, Buffer> = {};
  const { server, requests } = archiveServer(files);
  let base = '';
  beforeAll(async () => {
    names.forEach((n, i) => {
      files[n] = readFileSync(paths[i]);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('streams them, resumes after a dropped connection (with and without ranges), and names a 404', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'local'), `${paths[0]} web\n${paths[1]} web\n`);
    const local = await nwaxAsync(['import', join(dir, 'local'), join(dir, 'local-seg')]);
    expect(local.code, local.stderr).toBe(0);
    writeFileSync(join(dir, 'remote'), [`${base}/drop/iana.warc.gz web`, `${base}/norange/crawl1.warc.gz web`, `${base}/files/missing.warc.gz web`].join('\n'));
    const remote = await nwaxAsync(['import', join(dir, 'remote'), join(dir, 'remote-seg')]);
    expect(remote.code, remote.stderr).toBe(3);
    expect(remote.stderr).toMatch(new RegExp(`${base}/files/missing\\.warc\\.gz: HTTP 404; archive skipped`));
    expect(remote.stderr).toMatch(/archives failed 1\b/);
    expect(remote.stderr).not.toMatch(/internal error|\n\s+at /);
    // Each dropped archive was asked for again: by range where the server has them.
    expect(requests).toContain('GET /drop/iana.warc.gz');
    expect(requests.some((r) => /^GET \/drop\/iana\.warc\.gz bytes=\d+-$/.test(r))).toBe(true);
    expect(requests.filter((r) => r.startsWith('GET /norange/crawl1.warc.gz'))).toHaveLength(2);
    // The same segment as from the local files, but for where the content was read from.
    for (const part of ['parse_data', 'parse_text', 'crawl_fetch', 'crawl_parse']) {
      expect(segmentRecords(join(dir, 'remote-seg'), part), part).toEqual(segmentRecords(join(dir, 'local-seg'), part));
    }
    const strip = (m: Map<string, unknown>) => new Map([...m].map(([k, v]) => [k, { ...(v as object), location: undefined }]));
    const remoteContent = segmentRecords(join(dir, 'remote-seg'), 'content');
    expect(strip(remoteContent)).toEqual(strip(segmentRecords(join(dir, 'local-seg'), 'content')));
    expect(remoteContent.size).toBeGreaterThan(300);
    expect([...remoteContent.values()].some((c) => (c as { location: string }).location.startsWith(`${base}/drop/`))).toBe(true);
  }, 60_000);

  it('gives up with a clear error when the server keeps dropping the connection', async () => {
    const dir = tempDir();
    const { server: flaky } = archiveServer({});
    let hits = 0;
    flaky.removeAllListeners('request');
    const body = readFileSync(paths[0]);
    flaky.on('request', (_req, res) => {
      hits++;
      res.writeHead(200, { 'content-length': body.length });
      res.write(body.subarray(0, 1000), () => res.socket?.destroy());
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/always-drops.warc.gz`;
    writeFileSync(join(dir, 'm'), `${url}\n`);
    const r = await nwaxAsync(['import', '-D', 'nwax.http.retries=2', join(dir, 'm'), join(dir, 'seg')]);
    await new Promise<void>((res) => flaky.close(() => res()));
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/always-drops\.warc\.gz: connection lost at byte 1000 .*after 2 retries/);
    expect(hits).toBe(3);
  }, 60_000);
});
