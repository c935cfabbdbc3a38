/**
 * PDF text with pdfjs-dist (Mozilla's PDF.js, its legacy build, the one that runs on Node 20):
 * the text of every page, up to the text limit, and the document title from its metadata.
 * Only the PDF reader's own thread imports this module (pdf-worker.ts): the legacy build
 * installs core-js polyfills over the thread's built-ins when it loads (see pdf.ts).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface PdfText {
  title: string;
  text: string;
  truncated: boolean;
}

/**
 * pdfjs-dist's CMaps: the predefined character maps of CJK fonts (UniJIS-UCS2-H, GBK-EUC-H,
 * ...). A PDF whose text is in one of them and carries no ToUnicode map (common in Japanese,
 * Chinese and Korean PDFs whose fonts are not embedded) gives no text at all without them.
 */
const CMAPS = `${join(dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'cmaps')}/`;

/**
 * pdfjs-dist's legacy build, loaded once, with its worker module: in Node, pdfjs runs that
 * module in this thread (its "fake worker", found as `globalThis.pdfjsWorker`). Each of the two
 * carries core-js, which replaces `Array.prototype.push` with a JavaScript function (for
 * array-likes of length past 2^32, which V8's push gets wrong and pdfjs never makes); pdfjs
 * pushes for every glyph and text item, so V8's own is put back once both are loaded.
 */
let pdfjs: Promise<typeof import('pdfjs-dist/legacy/build/pdf.mjs')> | undefined;
function loadPdfjs() {
  const push = Array.prototype.push;
  return (pdfjs ??= (async () => {
    const api = await import('pdfjs-dist/legacy/build/pdf.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    if (Array.prototype.push !== push) Object.defineProperty(Array.prototype, 'push', { value: push, writable: true, configurable: true, enumerable: false });
    return api;
  })());
}

export async function extractPdfText(data: Uint8Array, textLimit: number): Promise<PdfText> {
  const { getDocument } = await loadPdfjs();
  const doc = await getDocument({ data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0, cMapUrl: CMAPS, cMapPacked: true })
    .promise;
  try {
    const meta = await doc.getMetadata().catch(() => undefined);
    const info = meta?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' ? info.Title.trim() : '';
    const parts: string[] = [];
    let length = 0;
    let truncated = false;
    for (let p = 1; p <= doc.numPages && !truncated; p++) {
      const page = await doc.getPage(p);
      const content = await page.getTextContent();
      for (const item of content.items) {
        if (!('str' in item)) continue;
        const piece = item.str + (item.hasEOL ? '\n' : ' ');
        if (length + piece.length > textLimit) {
          parts.push(piece.slice(0, textLimit - length));
          truncated = true;
          break;
        }
        parts.push(piece);
        length += piece.length;
      }
      page.cleanup();
    }
    return { title, text: parts.join('').replace(/\s+/g, ' ').trim(), truncated };
  } finally {
    await doc.destroy();
  }
}
