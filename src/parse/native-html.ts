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
import { nativeAddon } from '../util/native-addon.js';

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

export const EV_BASE = 1;
export const EV_A = 2;
export const EV_CLOSE_A = 3;
export const EV_LINK = 4;
export const EV_META = 5;
export const EV_FIELDS = 8;

/** native/html-extract.h's NWAX_DECODE_* kinds, in order. */
const DECODERS: ((text: string) => string)[] = [
  (t) => decodeHTML(t, DecodingMode.Legacy),
  (t) => decodeRcdata(t, 'title'),
  (t) => decodeRcdata(t, 'textarea'),
  (t) => decodeHTMLAttribute(t),
];

function decode(kind: number, text: string): string {
  return DECODERS[kind](text);
}

type Extract = (html: string, textLimit: number, decode: (kind: number, text: string) => string) => NativeHtml | null;
const extract = nativeAddon?.htmlExtract as Extract | undefined;

/** The parse of `html`, or null for a document the scanner reads; undefined where the addon is not built. */
export const nativeHtml: ((html: string, textLimit: number) => NativeHtml | null) | undefined = extract
  ? (html, textLimit) => extract(html, textLimit, decode)
  : undefined;

/** An event's string `k` (0-2), undefined where the attribute was missing. */
export function eventString(r: NativeHtml, at: number, k: number): string | undefined {
  const start = r.events[at + 1 + 2 * k];
  return start < 0 ? undefined : r.pool.slice(start, start + r.events[at + 2 + 2 * k]);
}
