// Replay: the bench corpus imported and indexed (defaults), served by `nwax serve` (its own
// process, replay on its own port); 300 HTML pages replayed with every resource their markup
// names (stylesheets, scripts, images: what a browser would fetch first), 8 pages at a time,
// as rewritten pages (`mp_` and the resources' own modifiers) and as the archived payloads
// (`id_` of the same URLs) in the same run: pages/s, p50/p99 per page, and the rewriting
// overhead as the ratio. Then the HTML rewriter alone in process on the same pages, against
// parse5's rewriting stream (the peer: what wabac.js uses), htmlparser2 tokenizing alone (the
// floor under nwax's rewriter) and a plain copy; and a 100 MB page, for the rewriter's memory.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { spawnSync } from 'node:child_process';
import { Pool } from 'undici';
import { Parser } from 'htmlparser2';
import { RewritingStream } from 'parse5-html-rewriting-stream';
import { CORPUS_DIR, NWAX, median, table } from './lib.mjs';

const PAGES = 300;
const CONCURRENCY = 8;

function run(args) {
  const r = spawnSync('node', [NWAX, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0 && r.status !== 3) throw new Error(`nwax ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
}

/** The crawl the bench replays: import and index of the corpus with defaults, made once. */
function crawlDir() {
  const dir = join(CORPUS_DIR, 'replay-crawl');
  const seg = join(dir, 'segments', '20260101000000');
  if (!existsSync(join(seg, 'captures.cdx')) || !existsSync(join(dir, 'indexes'))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'manifest'), `${join(CORPUS_DIR, 'nwax-bench.warc.gz')} bench\n`);
    process.stderr.write('  importing and indexing the corpus for replay\n');
    run(['import', join(dir, 'manifest'), seg]);
    run(['index', join(dir, 'indexes'), join(dir, 'crawldb'), join(dir, 'linkdb'), seg]);
  }
  return { dir, cdx: join(seg, 'captures.cdx') };
}

function startServe(dir) {
  return new Promise((resolve, reject) => {
    import('node:child_process').then(({ spawn }) => {
      const server = spawn('node', [NWAX, 'serve', '-dir', dir, '--port', '0', '--replay-port', '0', '-D', 'nwax.serve.access.log='], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      server.stderr.on('data', (d) => {
        err += d;
        const m = /replay at (http:\/\/127\.0\.0\.1:\d+)\//.exec(err);
        if (m)
          resolve({
            url: m[1],
            server,
            stop: () =>
              new Promise((ok) => {
                server.once('exit', ok);
                server.kill('SIGTERM');
              }),
          });
      });
      server.once('exit', (code) => reject(new Error(`nwax serve exited ${code}: ${err}`)));
    });
  });
}

/** HTML 200 captures of the corpus, evenly spread. */
function pickPages(cdx) {
  const lines = readFileSync(cdx, 'utf8')
    .split('\n')
    .filter((l) => / text\/html 200 /.test(l));
  const step = Math.max(1, Math.floor(lines.length / PAGES));
  return lines
    .filter((_, i) => i % step === 0)
    .slice(0, PAGES)
    .map((l) => {
      const f = l.split(' ');
      return { ts: f[1], url: f[2] };
    });
}

const RESOURCE = /(?:src|href)="(\/replay\/bench\/\d{14}(?:cs_|js_|im_|oe_)\/[^"]+)"/g;

async function replayPages(pool, pages, mode) {
  const latencies = [];
  let bytes = 0;
  let requests = 0;
  let errors = 0;
  const get = async (path) => {
    const res = await pool.request({ method: 'GET', path });
    const body = Buffer.from(await res.body.arrayBuffer());
    requests++;
    bytes += body.length;
    if (res.statusCode >= 500) errors++;
    return body;
  };
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < pages.length) {
        const p = pages[next++];
        const start = performance.now();
        // The rewritten page tells which resources a browser fetches; id_ fetches the same ones raw.
        const html = (await get(`/replay/bench/${p.ts}mp_/${p.url}`)).toString('latin1');
        const resources = [...new Set([...html.matchAll(RESOURCE)].map((m) => m[1]))].slice(0, 50);
        if (mode === 'id_') {
          const s2 = performance.now();
          await get(`/replay/bench/${p.ts}id_/${p.url}`);
          await Promise.all(resources.map((r) => get(r.replace(/(\d{14})(?:cs_|js_|im_|oe_)\//, '$1id_/'))));
          latencies.push(performance.now() - s2);
        } else {
          await Promise.all(resources.map((r) => get(r)));
          latencies.push(performance.now() - start);
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
  return { seconds, pagesPerS: pages.length / seconds, p50: at(0.5), p99: at(0.99), requests, mb: bytes / 1e6, errors };
}

async function rewriteThroughput(pool, pages) {
  const { HtmlRewriter } = await import('../dist/replay/rewrite-html.js');
  const bodies = [];
  for (const p of pages) {
    const res = await pool.request({ method: 'GET', path: `/replay/bench/${p.ts}id_/${p.url}` });
    bodies.push({ url: p.url, ts: p.ts, body: Buffer.from(await res.body.arrayBuffer()) });
  }
  const total = bodies.reduce((a, b) => a + b.body.length, 0);
  const time = async (fn) => {
    const t = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      for (const b of bodies) await fn(b);
      t.push(performance.now() - t0);
    }
    return median(t) / 1000;
  };
  const sink = () =>
    new Writable({
      write(_c, _e, cb) {
        cb();
      },
    });
  const nwax = await time((b) =>
    pipeline(Readable.from([b.body]), new HtmlRewriter({ coll: 'bench', ts: b.ts, base: b.url }, '<script src="/replay/_static/shim.js"></script>'), sink()),
  );
  // The peer: parse5's rewriting stream (what wabac.js rewrites with) passing every start tag
  // through as its source, the least a rewriter built on it does.
  const parse5 = await time(async (b) => {
    const rs = new RewritingStream();
    rs.on('startTag', (_t, raw) => rs.emitRaw(raw));
    await pipeline(Readable.from([b.body.toString('latin1')]), rs, sink());
  });
  const h2 = await time(async (b) => {
    const p = new Parser({ onopentag() {}, ontext() {} }, { decodeEntities: true });
    p.end(b.body.toString('latin1'));
  });
  const copy = await time(async (b) => pipeline(Readable.from([Buffer.from(b.body)]), sink()));
  return { mb: total / 1e6, nwax, parse5, h2, copy };
}

/** A 100 MB page (links, images, styles) through the rewriter: its peak RSS over the start. */
async function bigPage() {
  const { HtmlRewriter } = await import('../dist/replay/rewrite-html.js');
  const chunk = Buffer.from(
    '<p style="background:url(/bg.png)"><a href="/page.html?x=1&amp;y=2">a link</a> <img src="img/x.png" srcset="a.png 1x, b.png 2x"> text text text</p>\n'.repeat(
      500,
    ),
  );
  const n = Math.ceil(100e6 / chunk.length);
  let peak = 0;
  const before = process.memoryUsage().rss;
  let out = 0;
  const t0 = performance.now();
  await pipeline(
    Readable.from(
      (function* () {
        yield Buffer.from('<html><head><title>big</title></head><body>');
        for (let i = 0; i < n; i++) yield chunk;
      })(),
    ),
    new HtmlRewriter({ coll: 'bench', ts: '20260101000000', base: 'http://big.example/' }, '<script></script>'),
    new Writable({
      write(c, _e, cb) {
        out += c.length;
        peak = Math.max(peak, process.memoryUsage().rss);
        cb();
      },
    }),
  );
  return { inMB: (n * chunk.length) / 1e6, outMB: out / 1e6, seconds: (performance.now() - t0) / 1000, peakOverMB: (peak - before) / 1e6 };
}

export async function benchReplay({ runs }) {
  if (!existsSync(join(CORPUS_DIR, 'nwax-bench.warc.gz')))
    throw new Error(`no corpus in ${CORPUS_DIR}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  const { dir, cdx } = crawlDir();
  const pages = pickPages(cdx);
  const s = await startServe(dir);
  const pool = new Pool(s.url, { connections: CONCURRENCY * 4 });
  try {
    // Warm: both modes once (page cache, the server's JIT).
    await replayPages(pool, pages.slice(0, 50), 'mp_');
    await replayPages(pool, pages.slice(0, 50), 'id_');
    const n = Math.max(1, Math.min(runs, 5));
    const mp = [];
    const id = [];
    for (let i = 0; i < n; i++) {
      mp.push(await replayPages(pool, pages, 'mp_'));
      id.push(await replayPages(pool, pages, 'id_'));
      process.stderr.write(`  run ${i + 1}/${n}: rewritten ${mp[i].pagesPerS.toFixed(1)} pages/s, raw ${id[i].pagesPerS.toFixed(1)} pages/s\n`);
    }
    const med = (xs, k) => median(xs.map((x) => x[k]));
    const rw = await rewriteThroughput(pool, pages);
    const big = await bigPage();
    const rows = [
      ['run', 'pages/s', 'p50 ms', 'p99 ms', 'requests', 'MB', '5xx'],
      [
        'replay, rewritten (mp_ + cs_/js_/im_)',
        med(mp, 'pagesPerS').toFixed(1),
        med(mp, 'p50').toFixed(1),
        med(mp, 'p99').toFixed(1),
        mp[0].requests,
        mp[0].mb.toFixed(1),
        mp[0].errors,
      ],
      [
        'archived payloads (id_), same URLs',
        med(id, 'pagesPerS').toFixed(1),
        med(id, 'p50').toFixed(1),
        med(id, 'p99').toFixed(1),
        id[0].requests,
        id[0].mb.toFixed(1),
        id[0].errors,
      ],
    ];
    return [
      `replay: ${pages.length} HTML pages of the bench corpus with the resources their markup names, ${CONCURRENCY} pages at a time, medians of ${n}`,
      table(rows),
      `rewriting overhead (pages/s raw / rewritten): ${(med(id, 'pagesPerS') / med(mp, 'pagesPerS')).toFixed(2)}x; p50 ${(med(mp, 'p50') / med(id, 'p50')).toFixed(2)}x`,
      `HTML rewriting in process, the same ${rw.mb.toFixed(1)} MB of pages, medians of 5: nwax's rewriter ${(rw.mb / rw.nwax).toFixed(1)} MB/s; parse5-html-rewriting-stream passing tags through ${(rw.mb / rw.parse5).toFixed(1)} MB/s (nwax ${(rw.parse5 / rw.nwax).toFixed(2)}x its rate); htmlparser2 tokenizing alone ${(rw.mb / rw.h2).toFixed(1)} MB/s; a plain copy ${(rw.mb / rw.copy).toFixed(0)} MB/s`,
      `a ${big.inMB.toFixed(0)} MB page through the rewriter: ${big.outMB.toFixed(0)} MB out in ${big.seconds.toFixed(1)} s, peak RSS ${big.peakOverMB.toFixed(0)} MB above the start`,
    ].join('\n');
  } finally {
    await pool.close();
    await s.stop();
  }
}
