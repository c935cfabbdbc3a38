/**
 * PDF text with pdfjs-dist (Mozilla's PDF.js, its Node build, loaded only when a PDF is met):
 * the text of every page, up to the text limit, and the document title from its metadata.
 * A PDF must be whole to be read (its cross-reference table is at the end), so the parser
 * holds it, up to the byte limit; a larger one gets a metadata-only document.
 */
export interface PdfText {
  title: string;
  text: string;
  truncated: boolean;
}

export async function pdfText(data: Uint8Array, textLimit: number): Promise<PdfText> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
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
