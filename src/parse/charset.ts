/**
 * The character encoding of a document, in the order browsers decide it (WHATWG "encoding
 * sniffing"): a byte order mark, the charset of the HTTP Content-Type, a `<meta charset>` or
 * `<meta http-equiv=content-type>` in the first 1024 bytes of HTML, then a statistical guess
 * (chardet) over the head of the payload. Labels are resolved as WHATWG does (TextDecoder):
 * `iso-8859-1` and `ascii` decode as windows-1252, `gb2312` as gbk, `x-sjis` as shift_jis.
 */
import { isUtf8 } from 'node:buffer';
import { analyse } from 'chardet';
import { completeUtf8 } from '../util/utf8.js';

export type CharsetSource = 'bom' | 'http' | 'meta' | 'detected' | 'default';

export interface Charset {
  /** The WHATWG encoding name (TextDecoder's `encoding`). */
  encoding: string;
  source: CharsetSource;
  /** Bytes of BOM to skip. */
  bomLength: number;
}

/** The WHATWG name of a label, or undefined when TextDecoder does not know it. */
export function encodingOf(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim().replace(/^["']|["']$/g, '')).encoding;
  } catch {
    return undefined;
  }
}

export function charsetParam(contentType: string | undefined): string | undefined {
  return contentType ? /;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType)?.[1] : undefined;
}

function bom(head: Buffer): Charset | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', source: 'bom', bomLength: 3 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', source: 'bom', bomLength: 2 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', source: 'bom', bomLength: 2 };
  return undefined;
}

/** The prescan: a charset declared by a meta element near the start of an HTML document. */
function metaCharset(head: Buffer): string | undefined {
  const text = head.subarray(0, 1024).toString('latin1');
  for (const m of text.matchAll(/<meta\b[^>]*>/gi)) {
    const tag = m[0];
    const direct = /\bcharset\s*=\s*["']?([^"'\s/>;]+)/i.exec(tag);
    if (direct) {
      const enc = encodingOf(direct[1]);
      // A page cannot declare itself UTF-16 in ASCII bytes; browsers read it as UTF-8.
      if (enc) return enc.startsWith('utf-16') ? 'utf-8' : enc;
    }
  }
  return undefined;
}

const DETECTED: Record<string, string> = { 'ISO-8859-1': 'windows-1252', 'ISO-8859-2': 'iso-8859-2' };

/** Bytes past ASCII needed for the second opinion below. */
const MIN_HIGH_BYTES = 32;

const SINGLE_BYTE = /^(?:ISO-8859-\d+|windows-125\d|KOI8-R)$/;

function isLetter(b: number): boolean {
  const c = b | 0x20;
  return c >= 0x61 && c <= 0x7a;
}

/** The words that hold bytes past ASCII, space-separated (what tells one single-byte encoding from another). */
function highByteWords(head: Buffer): Buffer {
  const parts: Buffer[] = [];
  let i = 0;
  while (i < head.length) {
    if (head[i] <= 0x7f) {
      i++;
      continue;
    }
    let s = i;
    while (s > 0 && isLetter(head[s - 1])) s--;
    let e = i;
    while (e < head.length && (head[e] > 0x7f || isLetter(head[e]))) e++;
    parts.push(head.subarray(s, e), Buffer.from(' '));
    i = e;
  }
  return Buffer.concat(parts);
}

/**
 * chardet's guess. A single-byte guess is checked on the words that hold bytes past ASCII
 * alone (when there are a few words' worth): on a page of mostly English markup and words with
 * some Russian, the whole head reads as ISO-8859-1 (English letter statistics win), its
 * Cyrillic words alone as windows-1251 or KOI8-R (measured: `npm run bench -- multilingual`,
 * charsets).
 */
function guess(head: Buffer): string | undefined {
  const first = analyse(head)[0];
  if (!first || !SINGLE_BYTE.test(first.name)) return first?.name;
  const sample = highByteWords(head);
  // A few bytes (a ©, a dash) say nothing; a second opinion needs a few words' worth.
  if (sample.filter((b) => b > 0x7f).length < MIN_HIGH_BYTES) return first.name;
  // Taken when it is clear: a fair confidence and twice the next guess's.
  const [words, next] = analyse(sample);
  return words && words.confidence >= 20 && words.confidence >= 2 * (next?.confidence ?? 0) ? words.name : first.name;
}

/**
 * Decides the encoding from the head of the payload (a few KiB are enough) and the HTTP
 * Content-Type. `html` enables the meta prescan.
 */
export function sniffCharset(head: Buffer, contentType: string | undefined, html: boolean): Charset {
  const fromBom = bom(head);
  if (fromBom) return fromBom;
  const http = encodingOf(charsetParam(contentType));
  if (http) return { encoding: http, source: 'http', bomLength: 0 };
  if (html) {
    const meta = metaCharset(head);
    if (meta) return { encoding: meta, source: 'meta', bomLength: 0 };
  }
  // Nothing declared: valid UTF-8 with non-ASCII bytes is UTF-8; otherwise a statistical guess.
  let ascii = true;
  for (let i = 0; i < head.length; i++) {
    if (head[i] > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return { encoding: 'windows-1252', source: 'default', bomLength: 0 };
  if (isUtf8(head.subarray(0, completeUtf8(head)))) return { encoding: 'utf-8', source: 'detected', bomLength: 0 };
  const name = guess(head);
  const enc = name ? encodingOf(DETECTED[name] ?? name) : undefined;
  return enc ? { encoding: enc, source: 'detected', bomLength: 0 } : { encoding: 'windows-1252', source: 'default', bomLength: 0 };
}
