/**
 * The `html` kernel's surface (native/html-extract.c, html-binding.c, utf8-decode.c): the HTML
 * extractor over a whole document's text, or a UTF-8 page's bytes decoded in the addon, and that
 * decoding alone. Undefined where the addon is not built or `NWAX_NATIVE` leaves the kernel to
 * JavaScript; src/parse/native-html.ts gives it the entity decoders and replays its events, and
 * html.ts falls back on the scanner (the twin) where it is undefined or hands a page back.
 */
import { nativeKernel } from './addon.js';

export interface NativeHtml {
  /** The first title's text as it came, up to 4,096 characters. */
  title: string;
  /** The visible text up to the limit, squashed. */
  text: string;
  truncated: boolean;
  /** The first non-empty `<html lang>`. */
  lang: string;
  /** The text read while an `<a>` may be open: anchor texts are ranges of it (EV_A, EV_CLOSE_A). */
  anchors: string;
  /** The events' strings. */
  pool: string;
  /** EV_FIELDS numbers per event: kind, three pool strings (offset, length; -1: none), an offset in `anchors`. */
  events: Int32Array;
}

/** Decodes `text` as html-extract.h's NWAX_DECODE_* kind `kind` says (shared.ts's DECODE_*). */
export type HtmlDecode = (kind: number, text: string) => string;

const kernel = nativeKernel('html');

/** The parse of `html` up to `textLimit` characters of text, or null for a document the scanner reads. */
export const htmlExtract = kernel?.htmlExtract as ((html: string, textLimit: number, decode: HtmlDecode) => NativeHtml | null) | undefined;

/** `htmlExtract` of a page's bytes: ASCII up to `bomAt`, UTF-8 from there (a BOM dropped; -1: all ASCII). */
export const htmlExtractUtf8 = kernel?.htmlExtractUtf8 as
  | ((bytes: Buffer, bomAt: number, textLimit: number, decode: HtmlDecode) => NativeHtml | null)
  | undefined;

/**
 * The resource events alone (`events` and `pool`; the extractor's resources mode) of a
 * document's text, or of its bytes read as latin1; null for a document the scanner reads.
 */
export const htmlResources = kernel?.htmlResources as ((html: string | Buffer, decode: HtmlDecode) => Pick<NativeHtml, 'events' | 'pool'> | null) | undefined;

/** The addon's UTF-8 decoding alone, as htmlExtractUtf8 reads the bytes. */
export const decodeUtf8 = kernel?.decodeUtf8 as ((bytes: Buffer, bomAt: number) => string) | undefined;
