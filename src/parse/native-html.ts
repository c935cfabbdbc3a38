/**
 * The native HTML extractor (native/html-extract.c): html-scanner.ts's scan and tree rules and
 * html.ts's handler over a whole document's text, in one call instead of a JavaScript call
 * per tag and per piece of text. HtmlExtractor uses it where the addon is built and replays
 * what it returns (links, base, meta) through its own code, so URLs are resolved, links
 * de-duplicated and capped, and meta read as before. Entities are decoded here, by the
 * `entities` package, as the scanner decodes them.
 *
 * It hands back null for a document it leaves to the scanner: SVG or MathML (their tag-name
 * cases and CDATA), `<plaintext>`, a tag or wanted attribute name that is not ASCII.
 */
import { decodeHTML, decodeHTMLAttribute, DecodingMode } from 'entities/decode';
import { decodeRcdata } from './html-scanner.js';
import { decodeUtf8, htmlExtract, htmlExtractUtf8, htmlResources, type NativeHtml } from '../native/html.js';
import { DECODE_ATTRIBUTE, DECODE_TEXT, DECODE_TEXTAREA, DECODE_TITLE } from '../native/shared.js';

export type { NativeHtml };

/** The decoders of the extractor's NWAX_DECODE_* kinds. */
const DECODERS: ((text: string) => string)[] = [];
DECODERS[DECODE_TEXT] = (t) => decodeHTML(t, DecodingMode.Legacy);
DECODERS[DECODE_TITLE] = (t) => decodeRcdata(t, 'title');
DECODERS[DECODE_TEXTAREA] = (t) => decodeRcdata(t, 'textarea');
DECODERS[DECODE_ATTRIBUTE] = (t) => decodeHTMLAttribute(t);

function decode(kind: number, text: string): string {
  return DECODERS[kind](text);
}

const extract = htmlExtract;
const extractUtf8 = htmlExtractUtf8;

/** The parse of `html`, or null for a document the scanner reads; undefined where the addon is not built. */
export const nativeHtml: ((html: string, textLimit: number) => NativeHtml | null) | undefined = extract
  ? (html, textLimit) => extract(html, textLimit, decode)
  : undefined;

/**
 * `nativeHtml` of a UTF-8 page's bytes, decoded in the addon as TextDecoder decodes them
 * (native/utf8-decode.h): ASCII up to `bomAt`, where a UTF-8 decoder's stream starts and a BOM
 * is dropped (-1: all ASCII, no stream).
 */
export const nativeHtmlUtf8: ((bytes: Buffer, bomAt: number, textLimit: number) => NativeHtml | null) | undefined = extractUtf8
  ? (bytes, bomAt, textLimit) => extractUtf8(bytes, bomAt, textLimit, decode)
  : undefined;

/**
 * The resources `html` (a string, or bytes read as latin1) embeds as the extractor's resource events (NWAX_EV_BASE, _RESOURCE,
 * _STYLESHEET, _SRCSET, _STYLE, in document order), or null for a document the scanner reads;
 * undefined where the addon is not built.
 */
const resources = htmlResources;
export const nativeResources: ((html: string | Buffer) => Pick<NativeHtml, 'events' | 'pool'> | null) | undefined = resources
  ? (html) => resources(html, decode)
  : undefined;

/** The addon's UTF-8 decoding alone, as nativeHtmlUtf8 reads the bytes (for the tests that hold it to TextDecoder). */
export const nativeDecodeUtf8 = decodeUtf8;

/** What nativeHtmlUtf8 reads, decoded by TextDecoder: the text the scanner reads where the extractor hands a page back. */
export function decodeUtf8Page(bytes: Buffer, bomAt: number): string {
  return bomAt < 0 ? bytes.toString('latin1') : bytes.toString('latin1', 0, bomAt) + new TextDecoder('utf-8').decode(bytes.subarray(bomAt));
}

/** An event's string `k` (0-2), undefined where the attribute was missing. */
export function eventString(r: Pick<NativeHtml, 'events' | 'pool'>, at: number, k: number): string | undefined {
  const start = r.events[at + 1 + 2 * k];
  return start < 0 ? undefined : r.pool.slice(start, start + r.events[at + 2 + 2 * k]);
}
