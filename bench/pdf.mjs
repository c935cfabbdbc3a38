// PDF text: nwax's PDF reader (pdfjs-dist in its own thread, src/parse/pdf.ts) against poppler's
// pdftotext (Debian's poppler-utils, the usual command-line peer) on the same PDFs in the same
// run. The PDFs: every application/pdf response of the fixtures' archives (read from the
// archive, never copied) and the PDFs of Debian's documentation on this machine
// (/usr/share/doc). Each side reads them all in turn, medians of `runs`; pdftotext is a process
// per PDF, as a tool run per file would be, nwax one thread kept for all.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT, median, table } from './lib.mjs';

const FIXTURES = process.env.NWAX_CONFORMANCE_DIR ?? join(ROOT, '..', 'shared', 'fixtures');

/** Every file under `dir` whose name ends with one of `ends`. */
function filesUnder(dir, ends) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map((f) => join(dir, String(f)))
    .filter((f) => ends.some((e) => f.endsWith(e)) && statSync(f).isFile());
}

async function collectPdfs() {
  const { readArchive } = await import(join(ROOT, 'dist', 'archive', 'reader.js'));
  const pdfs = [];
  for (const file of filesUnder(FIXTURES, ['.warc.gz', '.warc', '.arc.gz', '.arc'])) {
    const reader = await readArchive(file, { strict: false }).catch(() => undefined);
    if (!reader) continue;
    try {
      for await (const r of reader) {
        if (!/^application\/pdf/i.test(r.http?.headers.get('Content-Type') ?? '') || Number(r.http?.status) !== 200) continue;
        const chunks = [];
        for await (const c of r.payload()) chunks.push(Buffer.from(c));
        const end = await r.finish();
        if (!end.damaged) pdfs.push({ name: `${file.slice(FIXTURES.length + 1)} ${r.url}`, data: Buffer.concat(chunks) });
      }
    } catch {
      // A damaged fixture (some are, on purpose): its PDFs before the damage are kept.
    } finally {
      reader.source.close();
    }
  }
  for (const f of filesUnder('/usr/share/doc', ['.pdf'])) pdfs.push({ name: f, data: readFileSync(f) });
  return pdfs;
}

export async function benchPdf({ runs = 5 } = {}) {
  const pdfs = await collectPdfs();
  if (!pdfs.length) return 'pdf: no PDF found (fixtures or /usr/share/doc); skipped';
  const { pdfText } = await import(join(ROOT, 'dist', 'parse', 'pdf.js'));
  const peer = spawnSync('pdftotext', ['-v']).error ? undefined : 'pdftotext';
  const dir = mkdtempSync(join(tmpdir(), 'nwax-bench-pdf-'));
  const paths = pdfs.map((p, i) => {
    const path = join(dir, `${i}.pdf`);
    writeFileSync(path, p.data);
    return path;
  });
  const limits = { timeoutMs: 0, heapMb: 1024 };
  const times = { nwax: [], pdftotext: [] };
  const chars = { nwax: 0, pdftotext: 0 };
  for (let run = 0; run < runs; run++) {
    let t = performance.now();
    let n = 0;
    for (const p of pdfs) n += (await pdfText(new Uint8Array(p.data), 1 << 30, limits).catch(() => ({ text: '' }))).text.length;
    times.nwax.push((performance.now() - t) / 1000);
    chars.nwax = n;
    if (peer) {
      t = performance.now();
      n = 0;
      for (const path of paths)
        n += spawnSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { maxBuffer: 1 << 28 })
          .stdout.toString('utf8')
          .replace(/\s+/g, ' ')
          .trim().length;
      times.pdftotext.push((performance.now() - t) / 1000);
      chars.pdftotext = n;
    }
    process.stderr.write(
      `  run ${run + 1}/${runs}: nwax ${times.nwax.at(-1).toFixed(2)} s${peer ? `, pdftotext ${times.pdftotext.at(-1).toFixed(2)} s` : ''}\n`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  const mb = pdfs.reduce((a, p) => a + p.data.length, 0) / 1e6;
  const rows = [['reader', 'seconds (median)', 'MB/s', 'characters of text']];
  rows.push(['nwax (pdfjs-dist, its own thread)', median(times.nwax).toFixed(2), (mb / median(times.nwax)).toFixed(2), chars.nwax]);
  if (peer)
    rows.push(['pdftotext (poppler, a process per PDF)', median(times.pdftotext).toFixed(2), (mb / median(times.pdftotext)).toFixed(2), chars.pdftotext]);
  return [
    `pdf: ${pdfs.length} PDFs, ${mb.toFixed(1)} MB (the fixtures' archives and /usr/share/doc), medians of ${runs}`,
    table(rows),
    peer
      ? `nwax's rate / pdftotext's: ${(median(times.pdftotext) / median(times.nwax)).toFixed(2)}x`
      : 'pdftotext not installed (apt-get install poppler-utils): no peer figure',
  ].join('\n');
}
