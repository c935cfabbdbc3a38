/** One record of an ARC or WARC file, as the reader hands it out. */
import type { HeaderList, HttpHead } from './headers.js';

export type ArchiveFormat = 'warc' | 'arc';

export interface RecordEnd {
  /** Compressed length: from `offset` to the end of the record (gzip: of its member). */
  length: number;
  /** Set when the record could not be read to its end; the reader has reported it. */
  damaged?: { reason: string; detail: string };
}

export interface ArchiveRecord {
  readonly format: ArchiveFormat;
  /** `WARC/1.0`, `WARC/0.17`, `ARC/1`, `ARC/2`. */
  readonly version: string;
  /** WARC-Type; ARC records are `response`, and an ARC's first record is `filedesc`. */
  readonly type: string;
  /** Target URI as captured (angle brackets, as wget writes them, removed). */
  readonly url: string;
  /** Capture date, 14 digits, or undefined when the record's date cannot be read. */
  readonly date: string | undefined;
  /** WARC headers; for ARC, the header line's fields under their ARC names. */
  readonly headers: HeaderList;
  /** The record block's Content-Type (ARC: the mime field of the header line). */
  readonly contentType: string | undefined;
  /** Declared length of the record block. */
  readonly contentLength: number;
  /** The HTTP message head at the start of the block, where there is one. */
  readonly http: HttpHead | undefined;
  /** Declared payload digest, as bare base32 SHA-1 where it is SHA-1 (hex converted). */
  readonly payloadDigest: string | undefined;
  /** Offset of the record in the file (gzip: of the member it starts in). */
  readonly offset: number;
  /**
   * The payload (the block after the HTTP head), streamed: transfer-decoded (chunked), with
   * any Content-Encoding (gzip, br) left as stored. `onRaw` sees every stored chunk before it
   * is decoded (to digest the payload as stored while reading it decoded).
   */
  payload(onRaw?: (stored: Buffer) => void): AsyncIterable<Buffer>;
  /** The payload exactly as stored (what WARC-Payload-Digest covers in practice), streamed. */
  rawPayload(): AsyncIterable<Buffer>;
  /** Reads past whatever of the record was not read and tells where it ended. */
  finish(): Promise<RecordEnd>;
}
