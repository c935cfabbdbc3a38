/**
 * PDF text, read in a thread of its own (pdf-worker.ts): one per thread that parses, started at
 * its first PDF and kept for the next ones. Why not in the parsing thread itself:
 * - pdfjs-dist's legacy build (the build for Node 20) installs core-js polyfills over the
 *   built-ins of the thread that loads it: `Array.prototype.push`, `JSON.parse`,
 *   `Function.prototype.toString`, `DOMException`, `MessageChannel`. In an import's task
 *   thread, every `push` after the first PDF ran core-js's JavaScript, and so did pdfjs's own.
 * - A PDF not read within `parser.timeout` (Nutch's property) is given up: its thread is
 *   ended, the document imported without text, and the next PDF starts a new thread.
 * - A PDF that needs more than the thread's heap (`nwax.import.pdf.heap`) ends that thread, not
 *   the import.
 */
import { Worker } from 'node:worker_threads';
import type { PdfText } from './pdf-text.js';
import type { PdfAnswer, PdfRequest } from './pdf-worker.js';

export type { PdfText } from './pdf-text.js';

export interface PdfLimits {
  /** Milliseconds a PDF may take; 0 or less: no limit. */
  timeoutMs: number;
  /** The reader thread's heap limit in MB (its old generation). */
  heapMb: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = { timeoutMs: 30_000, heapMb: 512 };

let reader: Worker | undefined;
/** PDFs wait their turn: the reader reads one at a time. */
let turn: Promise<unknown> = Promise.resolve();

/** The text and title of a whole PDF, read by this thread's PDF reader. */
export function pdfText(data: Uint8Array, textLimit: number, limits: PdfLimits = DEFAULT_PDF_LIMITS): Promise<PdfText> {
  const read = turn.then(() => readOne(data, textLimit, limits));
  turn = read.catch(() => undefined);
  return read;
}

function startReader(heapMb: number): Worker {
  const w = new Worker(new URL('./pdf-worker.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
  // Between PDFs too (pdfjs may fail after it has answered): a reader that fails or ends is
  // replaced at the next PDF, and its error is not thrown in this thread.
  const retire = () => {
    if (reader === w) reader = undefined;
  };
  return w.on('error', retire).on('exit', retire);
}

function readOne(data: Uint8Array, textLimit: number, limits: PdfLimits): Promise<PdfText> {
  const w = (reader ??= startReader(limits.heapMb));
  return new Promise<PdfText>((resolve, reject) => {
    const fail = (message: string) => {
      done();
      // Whatever it was doing, that thread is not asked again.
      if (reader === w) reader = undefined;
      void w.terminate();
      reject(new Error(message));
    };
    const timer = limits.timeoutMs > 0 ? setTimeout(() => fail(`not read within ${limits.timeoutMs / 1000} s (parser.timeout)`), limits.timeoutMs) : undefined;
    const onMessage = (a: PdfAnswer) => {
      done();
      if (a.ok) resolve({ title: a.title, text: a.text, truncated: a.truncated });
      else reject(new Error(a.message));
    };
    const onError = (err: NodeJS.ErrnoException) =>
      fail(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `needs more than ${limits.heapMb} MB of heap (nwax.import.pdf.heap)` : err.message);
    const onExit = (code: number) => fail(`the PDF reader's thread ended (exit code ${code})`);
    function done() {
      clearTimeout(timer);
      w.off('message', onMessage).off('error', onError).off('exit', onExit);
      // An idle reader does not keep the process alive.
      w.unref();
    }
    w.on('message', onMessage).on('error', onError).on('exit', onExit);
    w.ref();
    w.postMessage({ data, textLimit } satisfies PdfRequest);
  });
}
