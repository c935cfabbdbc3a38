/**
 * A payload to its parse, pushed chunk by chunk as the archive is read (so a 1 GB record never
 * sits in memory): HTML and plain text are decoded (charset sniffed as a browser would) and
 * extracted; any other type gets a metadata-only parse (findable by URL, site, type and date).
 * A Content-Encoding (gzip, deflate, br) is undone first, up to the byte limit.
 */
import { isAscii } from 'node:buffer';
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { TextDecoder } from 'node:util';
import { sniffCharset, type Charset } from './charset.js';
import { HtmlExtractor, type HtmlParse } from './html.js';
import { squash } from './squash.js';
import type { PdfLimits } from './pdf.js';

/** An HtmlParse (empty fields for types without text), with how it went and the charset used. */
export interface Parse extends HtmlParse {
  /** success: text extracted; metadata: a type nwax does not read; failed: see `error`. */
  status: 'success' | 'metadata' | 'failed';
  charset?: string;
  charsetSource?: Charset['source'];
  error?: string;
}

export interface ParseOptions {
  url: string;
  /** The MIME type (no parameters), lower case. */
  mime: string;
  /** The HTTP Content-Type header, for its charset. */
  contentType?: string;
  contentEncoding?: string;
  /** Characters of text kept (nwax.import.content.limit). */
  textLimit: number;
  /** Payload bytes read by the parser (nwax.import.parse.bytes); the rest is not parsed. */
  byteLimit: number;
  maxOutlinks: number;
  /** Images kept per page with their words (nwax.parse.images.max; default IMAGES_KEPT). */
  maxImages?: number;
  /** How long and in how much memory a PDF may be read (parser.timeout, nwax.import.pdf.heap). */
  pdf?: PdfLimits;
}

const HEAD = 8192;
/** Bytes from the first one past ASCII that decide an undeclared encoding. */
const SNIFF = 65536;
/** A UTF-8 page's bytes held for the native extractor; past this, decoded here (html.ts holds the text as far). */
const RAW_BYTES = 16 << 20;

export type ContentKind = 'html' | 'text' | 'pdf';

export function kindOf(mime: string): ContentKind | undefined {
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime === 'text/plain') return 'text';
  if (mime === 'application/pdf' || mime === 'application/x-pdf') return 'pdf';
  return undefined;
}

export class ContentParser {
  private readonly kind: ContentKind | undefined;
  private readonly encoded: string | undefined;
  private head: Buffer[] = [];
  private headLength = 0;
  private decoder: TextDecoder | undefined;
  private charset: Charset | undefined;
  /** The encoding is a default over ASCII bytes, to be decided at the first non-ASCII byte. */
  private undecided = false;
  private html: HtmlExtractor | undefined;
  private plain: string[] = [];
  private plainLength = 0;
  private bytes = 0;
  /** Bytes held from the first one past ASCII until SNIFF of them decide the encoding. */
  private pending: Buffer[] | undefined;
  private pendingLength = 0;
  private cut = false;
  private error: string | undefined;
  /**
   * A UTF-8 page's bytes, held for the native extractor, which decodes them itself (so the page
   * is never a JavaScript string: TextDecoder, the held strings and their copy into the addon
   * were a tenth of an import's CPU). `rawBomAt` is where the UTF-8 decoder's stream starts, as
   * `decide` would have started it (TextDecoder drops a BOM there); -1 while the bytes held are
   * the ASCII of an encoding not decided yet. Undefined: the page is decoded here.
   */
  private raw: Buffer[] | undefined;
  private rawLength = 0;
  private rawBomAt = -1;

  constructor(private readonly opts: ParseOptions) {
    this.kind = kindOf(opts.mime);
    const ce = (opts.contentEncoding ?? '').trim().toLowerCase();
    this.encoded = ce && ce !== 'identity' ? ce : undefined;
  }

  /** Whether more bytes are of use (false past the byte limit or for metadata-only types). */
  get wants(): boolean {
    return this.kind !== undefined && !this.cut && this.error === undefined;
  }

  write(chunk: Buffer): void {
    if (!this.wants) return;
    if (this.bytes + chunk.length > this.opts.byteLimit) {
      chunk = chunk.subarray(0, this.opts.byteLimit - this.bytes);
      this.cut = true;
    }
    this.bytes += chunk.length;
    if (this.encoded || !this.decoder || this.kind === 'pdf') {
      // Held until the encoding is known (the head) or the content decoded (Content-Encoding).
      this.head.push(chunk);
      this.headLength += chunk.length;
      if (!this.encoded && this.kind !== 'pdf' && this.headLength >= HEAD) this.start(Buffer.concat(this.head));
      return;
    }
    this.feed(chunk);
  }

  /** The parse, once the payload has been written (PDF text is read asynchronously). */
  async finish(): Promise<Parse> {
    if (this.kind !== 'pdf') return this.parseText();
    const base = { outlinks: [], images: [], noindex: false, nofollow: false, description: '', title: '', text: '', lang: '' };
    if (this.cut) {
      return { ...base, status: 'failed', truncated: true, error: `PDF larger than ${this.opts.byteLimit} bytes (nwax.import.parse.bytes): not read` };
    }
    try {
      const held = Buffer.concat(this.head);
      this.head = [];
      // A PDF sent with a Content-Encoding (gzip, deflate, br) is a PDF once it is undone.
      const body = this.encoded ? this.decodeContent(held) : held;
      const { pdfText } = await import('./pdf.js');
      const pdf = await pdfText(new Uint8Array(body.buffer, body.byteOffset, body.length), this.opts.textLimit, this.opts.pdf);
      return { ...base, status: 'success', title: pdf.title, text: pdf.text, truncated: pdf.truncated };
    } catch (err) {
      return { ...base, status: 'failed', truncated: false, error: `PDF: ${(err as Error).message}` };
    }
  }

  private parseText(): Parse {
    try {
      if (this.kind && !this.error) {
        if (this.encoded) this.start(this.decodeContent(Buffer.concat(this.head)));
        else if (!this.decoder) this.start(Buffer.concat(this.head));
        if (!this.error && this.pending) this.decide();
        if (!this.error && !this.raw) this.feedText(this.decoder!.decode());
      }
    } catch (err) {
      this.error ??= (err as Error).message;
    }
    const base = { outlinks: [], images: [], noindex: false, nofollow: false, description: '', title: '', text: '', truncated: this.cut, lang: '' };
    if (this.error) return { ...base, status: 'failed', error: this.error };
    if (!this.kind) return { ...base, status: 'metadata' };
    if (this.html) {
      if (!this.raw) return this.htmlResult(this.html.end());
      return this.htmlResult(this.html.endUtf8(this.raw.length === 1 ? this.raw[0] : Buffer.concat(this.raw, this.rawLength), this.rawBomAt));
    }
    const cs = { charset: this.charset?.encoding, charsetSource: this.charset?.source };
    return { ...base, ...cs, status: 'success', text: squash(this.plain.join('')), truncated: this.cut || this.plainLength >= this.opts.textLimit };
  }

  private htmlResult(h: HtmlParse): Parse {
    return { ...h, charset: this.charset?.encoding, charsetSource: this.charset?.source, status: 'success', truncated: h.truncated || this.cut };
  }

  private start(head: Buffer): void {
    this.head = [];
    // Exactly the first HEAD bytes, however the payload came in chunks: the same bytes give the
    // same parse (a run on a loaded machine reads larger chunks).
    this.charset = sniffCharset(head.subarray(0, HEAD), this.opts.contentType, this.kind === 'html');
    // Nothing declared and nothing but ASCII so far (pages whose first kilobytes are markup and
    // scripts): every ASCII-based encoding reads those bytes alike, so the choice waits for the
    // first byte past ASCII (feed).
    this.undecided = this.charset.source === 'default';
    try {
      this.decoder = new TextDecoder(this.charset.encoding);
    } catch {
      this.decoder = new TextDecoder('windows-1252');
    }
    if (this.kind === 'html')
      this.html = new HtmlExtractor({ url: this.opts.url, textLimit: this.opts.textLimit, maxOutlinks: this.opts.maxOutlinks, maxImages: this.opts.maxImages });
    if (this.html?.takesUtf8 && (this.undecided || this.decoder.encoding === 'utf-8')) {
      this.raw = [];
      this.rawBomAt = this.undecided ? -1 : 0;
    }
    this.feed(head.subarray(this.charset.bomLength));
  }

  private feed(bytes: Buffer): void {
    if (this.pending) {
      this.pending.push(bytes);
      this.pendingLength += bytes.length;
      if (this.pendingLength >= SNIFF) this.decide();
      return;
    }
    if (this.undecided) {
      const at = firstPastAscii(bytes);
      if (at >= 0) {
        this.decodeAndFeed(bytes.subarray(0, at));
        // From the first byte past ASCII, SNIFF bytes (or all there are) decide the encoding:
        // past the markup, pages may hold few such bytes. Held until then, whatever the chunks.
        this.pending = [];
        this.pendingLength = 0;
        this.feed(bytes.subarray(at));
        return;
      }
    }
    this.decodeAndFeed(bytes);
  }

  /** Bytes in the encoding decided (or ASCII under the default), to the text or held raw. */
  private decodeAndFeed(bytes: Buffer): void {
    if (!this.raw) {
      this.feedText(this.decoder!.decode(bytes, { stream: true }));
      return;
    }
    this.raw.push(bytes);
    this.rawLength += bytes.length;
    if (this.rawLength > RAW_BYTES) this.decodeRaw();
  }

  /**
   * The raw bytes held, decoded as they would have been had they never been held: ASCII before
   * `rawBomAt` (any ASCII-based decoder reads it alike), then a fresh UTF-8 decoder's stream,
   * which reads on what comes next.
   */
  private decodeRaw(): void {
    const held = Buffer.concat(this.raw!);
    this.raw = undefined;
    if (this.rawBomAt < 0) {
      this.feedText(held.toString('latin1'));
      return;
    }
    this.feedText(held.toString('latin1', 0, this.rawBomAt));
    this.decoder = new TextDecoder('utf-8');
    this.feedText(this.decoder.decode(held.subarray(this.rawBomAt), { stream: true }));
  }

  /** The encoding from the bytes held since the first one past ASCII; then they are read. */
  private decide(): void {
    const held = Buffer.concat(this.pending!);
    this.pending = undefined;
    this.undecided = false;
    const found = sniffCharset(held.subarray(0, SNIFF), undefined, false);
    this.charset = { ...found, source: found.source === 'default' ? 'default' : 'detected' };
    this.decoder = new TextDecoder(found.encoding);
    if (this.raw && this.decoder.encoding === 'utf-8') {
      // The fresh decoder's stream starts here, in the bytes held raw.
      this.rawBomAt = this.rawLength;
      this.decodeAndFeed(held);
      return;
    }
    if (this.raw) this.decodeRaw();
    this.feedText(this.decoder.decode(held, { stream: true }));
  }

  private feedText(text: string): void {
    if (!text) return;
    if (this.html) {
      this.html.write(text);
      return;
    }
    const room = this.opts.textLimit - this.plainLength;
    if (room <= 0) return;
    const t = text.length > room ? text.slice(0, room) : text;
    this.plain.push(t);
    this.plainLength += t.length;
  }

  /** The payload with its Content-Encoding undone; a cut-short stream gives what it holds. */
  private decodeContent(body: Buffer): Buffer {
    const opts = { maxOutputLength: this.opts.byteLimit, finishFlush: constants.Z_SYNC_FLUSH };
    try {
      switch (this.encoded) {
        case 'gzip':
        case 'x-gzip':
          return gunzipSync(body, opts);
        case 'deflate':
          // Servers send zlib-wrapped or raw deflate under this name.
          try {
            return inflateSync(body, opts);
          } catch {
            return inflateRawSync(body, opts);
          }
        case 'br':
          return brotliDecompressSync(body, { maxOutputLength: this.opts.byteLimit });
        default:
          throw new Error(`Content-Encoding ${this.encoded} is not supported`);
      }
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ERR_BUFFER_TOO_LARGE')
        throw new Error(`Content-Encoding ${this.encoded}: decodes to more than ${this.opts.byteLimit} bytes (nwax.import.parse.bytes)`);
      throw new Error(`Content-Encoding ${this.encoded}: ${e.message}`);
    }
  }
}

/**
 * Where the first byte past ASCII is in `bytes`, or -1. Most chunks of an undeclared page hold
 * none (isAscii, vectorised, answers for those); `findIndex` with a callback per byte took
 * 2.1 s over the bench corpus's 462 MB of HTML, this 71 ms.
 */
function firstPastAscii(bytes: Buffer): number {
  if (isAscii(bytes)) return -1;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] > 0x7f) return i;
  return -1;
}
