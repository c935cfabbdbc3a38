// HTML text extraction on the bench corpus: nwax's native extractor (native/html-extract.c,
// where the addon is built) and its JavaScript scanner (src/parse/html-scanner.ts) against
// htmlparser2 12 (the library they replace, driving the same extractor), on the same documents
// in the same run. The documents are collected as import feeds them (decoded text, in the
// chunks the archive gave); each side is timed over all of them, medians of `runs`, and every
// document's parse is compared (title, text, description, outlinks, robots, language).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CORPUS_DIR, ROOT, median, table } from './lib.mjs';

const dist = (p) => import(join(ROOT, 'dist', p));

/**
 * The decoded HTML of every text/html record, in the chunks import gives the extractor; a
 * UTF-8 page, which import gives the native extractor as bytes (`endUtf8`), as one chunk of
 * the text those bytes decode to.
 */
export async function collectHtml(file, limit = Infinity) {
  const { readArchive } = await dist('archive/reader.js');
  const { ContentParser } = await dist('parse/parse.js');
  const { HtmlExtractor } = await dist('parse/html.js');
  const { decodeUtf8Page } = await dist('parse/native-html.js');
  const docs = [];
  const write = HtmlExtractor.prototype.write;
  const endUtf8 = HtmlExtractor.prototype.endUtf8;
  let current;
  HtmlExtractor.prototype.write = function (chunk) {
    current.chunks.push(chunk);
    return write.call(this, chunk);
  };
  HtmlExtractor.prototype.endUtf8 = function (bytes, bomAt) {
    current.chunks.push(decodeUtf8Page(bytes, bomAt));
    current.utf8 = { bytes: Buffer.from(bytes), bomAt };
    return endUtf8.call(this, bytes, bomAt);
  };
  try {
    const reader = await readArchive(file, { strict: false });
    for await (const r of reader) {
      if (r.type !== 'response' || !r.http) continue;
      const ct = r.http.headers.get('Content-Type') ?? '';
      if (!/^\s*(text\/html|application\/xhtml\+xml)/i.test(ct)) continue;
      current = { url: r.url, chunks: [] };
      const p = new ContentParser({
        url: r.url,
        mime: ct.split(';')[0].trim().toLowerCase(),
        contentType: ct,
        contentEncoding: r.http.headers.get('Content-Encoding'),
        textLimit: 1 << 20,
        byteLimit: 16 << 20,
        maxOutlinks: 100,
      });
      for await (const chunk of r.payload()) p.write(chunk);
      await r.finish();
      await p.finish();
      if (current.chunks.length) docs.push(current);
      if (docs.length >= limit) break;
    }
    reader.source.close();
  } finally {
    HtmlExtractor.prototype.write = write;
    HtmlExtractor.prototype.endUtf8 = endUtf8;
  }
  return docs;
}

export async function benchHtml({ runs = 5 } = {}) {
  const file = join(CORPUS_DIR, 'nwax-bench.warc.gz');
  if (!existsSync(file)) throw new Error(`no corpus at ${file}: run ../shared/corpus/make-bench-corpus.sh ${CORPUS_DIR}`);
  const { HtmlExtractor } = await dist('parse/html.js');
  const { htmlparser2Source } = await dist('parse/htmlparser2-source.js');
  const { HtmlScanner } = await dist('parse/html-scanner.js');
  const { nativeHtml } = await dist('parse/native-html.js');
  const scannerSource = (h) => new HtmlScanner(h);
  const docs = await collectHtml(file);
  const chars = docs.reduce((n, d) => n + d.chunks.reduce((m, c) => m + c.length, 0), 0);
  const opts = (url) => ({ url, textLimit: 1 << 20, maxOutlinks: 100 });
  // `bytes`: a UTF-8 page as import gives it, its bytes to the native extractor (endUtf8).
  const run = (source, bytes = false) => {
    const out = [];
    const t0 = performance.now();
    for (const d of docs) {
      const x = source ? new HtmlExtractor(opts(d.url), source) : new HtmlExtractor(opts(d.url));
      if (bytes && d.utf8) {
        out.push(x.endUtf8(d.utf8.bytes, d.utf8.bomAt));
        continue;
      }
      for (const c of d.chunks) x.write(c);
      out.push(x.end());
    }
    return { seconds: (performance.now() - t0) / 1e3, out };
  };
  const samples = { native: [], bytes: [], nwax: [], htmlparser2: [] };
  let n, nb, a, b;
  for (let i = 0; i < runs; i++) {
    if (nativeHtml) n = run(undefined);
    if (nativeHtml) nb = run(undefined, true);
    a = run(scannerSource);
    b = run(htmlparser2Source);
    if (n) samples.native.push(n.seconds);
    if (nb) samples.bytes.push(nb.seconds);
    samples.nwax.push(a.seconds);
    samples.htmlparser2.push(b.seconds);
    process.stderr.write(
      `  run ${i + 1}/${runs}: ${n ? `native ${n.seconds.toFixed(2)} s, from bytes ${nb.seconds.toFixed(2)} s, ` : ''}scanner ${a.seconds.toFixed(2)} s, htmlparser2 ${b.seconds.toFixed(2)} s\n`,
    );
  }
  const differing = (x) => {
    const urls = docs.filter((_d, i) => JSON.stringify(x.out[i]) !== JSON.stringify(b.out[i])).map((d) => d.url);
    return `${urls.length} of ${docs.length}${urls.length ? ` (${urls.slice(0, 5).join(', ')})` : ''}`;
  };
  const s = median(samples.nwax);
  const h = median(samples.htmlparser2);
  const m = n ? median(samples.native) : NaN;
  const mb = nb ? median(samples.bytes) : NaN;
  const utf8 = docs.filter((d) => d.utf8).length;
  return [
    `HTML extraction: ${docs.length} documents of ${file} (${(chars / 1e6).toFixed(1)} M characters, decoded as import decodes them); medians of ${runs}, one thread`,
    table([
      ['extractor', 'seconds', 'M chars/s', 'documents/s'],
      ...(n ? [['nwax native (html-extract.c)', m.toFixed(2), (chars / 1e6 / m).toFixed(1), (docs.length / m).toFixed(0)]] : []),
      ...(nb ? [['nwax native, UTF-8 pages as bytes (import)', mb.toFixed(2), (chars / 1e6 / mb).toFixed(1), (docs.length / mb).toFixed(0)]] : []),
      ['nwax scanner (html-scanner.ts)', s.toFixed(2), (chars / 1e6 / s).toFixed(1), (docs.length / s).toFixed(0)],
      ['htmlparser2 12 Parser', h.toFixed(2), (chars / 1e6 / h).toFixed(1), (docs.length / h).toFixed(0)],
    ]),
    n
      ? `  native / htmlparser2 time: ${(m / h).toFixed(2)}; documents whose parse differs from htmlparser2's: ${differing(n)}`
      : '  native extractor: not built (npm install builds it)',
    ...(nb
      ? [
          `  native from bytes / htmlparser2 time: ${(mb / h).toFixed(2)} (${utf8} of the pages UTF-8, decoded in the addon); documents whose parse differs from htmlparser2's: ${differing(nb)}`,
        ]
      : []),
    `  scanner / htmlparser2 time: ${(s / h).toFixed(2)}; documents whose parse differs from htmlparser2's: ${differing(a)}`,
  ].join('\n');
}
