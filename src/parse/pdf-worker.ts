/**
 * The PDF reader's thread (pdf.ts): reads one PDF at a time and answers with its text or why
 * it could not. pdfjs-dist is loaded here, so what its legacy build does to the built-ins
 * stays in this thread.
 */
import { parentPort } from 'node:worker_threads';
import { extractPdfText, type PdfText } from './pdf-text.js';

export interface PdfRequest {
  data: Uint8Array;
  textLimit: number;
}

export type PdfAnswer = ({ ok: true } & PdfText) | { ok: false; message: string };

parentPort!.on('message', (m: PdfRequest) => {
  extractPdfText(m.data, m.textLimit).then(
    (r) => parentPort!.postMessage({ ok: true, ...r } satisfies PdfAnswer),
    (err: unknown) => parentPort!.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) } satisfies PdfAnswer),
  );
});
