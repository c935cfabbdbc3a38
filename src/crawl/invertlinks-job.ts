/**
 * invertlinks (Nutch's LinkDb): outlinks of segments' crawl_parse, inverted to URL -> inlinks
 * (from URL, anchor text), merged with the LinkDb already there. Links point to URLs, so an
 * import's documents (versions) give their inlinks to every version of the target. Internal
 * links (same host) are dropped with `db.ignore.internal.links`; anchors are cut at
 * `db.max.anchor.length`; at most `db.max.inlinks` per URL are kept.
 */
import { isUtf8 } from 'node:buffer';
import type { Job } from '../mapreduce/job.js';
import { RawJson } from '../mapreduce/value-json.js';
import { datasetOf } from './crawl-datum.js';
import { IMAGES_FIELD, splitDocumentKey, type CrawlParse } from '../segment/segment.js';
import { inlinkAnchorSpans } from '../native/json.js';

export interface Inlink {
  from: string;
  anchor: string;
}

export interface Inlinks {
  inlinks: Inlink[];
}

/** How an inlinks value's JSON starts, as JSON.stringify writes it. */
const INLINKS_OPEN = '{"inlinks":[';

const B_INLINKS_OPEN = Buffer.from(INLINKS_OPEN);
const B_LIST_CLOSE = Buffer.from(']}');
const B_COMMA = Buffer.from(',');
const B_INLINK_CLOSE = Buffer.from('}]}');
/** A crawl_parse value as JSON.stringify writes it, and each outlink in it: `{"url":"U","anchor":"A"}`. */
const B_OUTLINKS_OPEN = Buffer.from('{"outlinks":[');
const B_URL = Buffer.from('{"url":"');
const B_ANCHOR = Buffer.from('","anchor":"');
/** What follows the outlinks array where the page shows images: `,"images":` and their array. */
const B_IMAGES = Buffer.from(IMAGES_FIELD);

/** Whether `b[from, to)` equals `what`. */
function bytesAt(b: Uint8Array, from: number, what: Uint8Array): boolean {
  if (from + what.length > b.length) return false;
  for (let i = 0; i < what.length; i++) if (b[from + i] !== what[i]) return false;
  return true;
}

/** Whether a value's JSON bytes are `{"inlinks":[...]}`, as this job writes it. */
export function isInlinksJson(v: Uint8Array): boolean {
  return v.length >= B_INLINKS_OPEN.length + 2 && bytesAt(v, 0, B_INLINKS_OPEN) && v[v.length - 2] === 0x5d && v[v.length - 1] === 0x7d;
}

const B_FROM = Buffer.from('{"from":"');
const B_THEN_ANCHOR = Buffer.from(',"anchor":"');

/**
 * The end (after its closing quote) of the JSON string whose first character is at b[from], or
 * -1 where it holds an escape or a raw control character (its bytes are not then its text), or
 * does not end before `to`.
 */
function plainStringEnd(b: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c === 0x22) return i + 1;
    if (c < 0x20 || c === 0x5c) return -1;
  }
  return -1;
}

/**
 * What the index takes of an inlinks value `b[start, end)` (`{"inlinks":[...]}` as this job
 * writes it): how many inlinks there are, and their anchors other than '', each once, in order;
 * without parsing the list into objects (a URL's list may hold thousands). Undefined for any
 * other shape, or a string with an escape: the caller parses it then.
 */
export function inlinkAnchors(b: Buffer, start: number, end: number): { count: number; anchors: string[] } | undefined {
  if (inlinkAnchorSpans) {
    let count = inlinkAnchorSpans(b, start, end, anchorSpans);
    while (count === -2) {
      anchorSpans = new Int32Array(2 * anchorSpans.length);
      count = inlinkAnchorSpans(b, start, end, anchorSpans);
    }
    if (count < 0) return undefined;
    // Anchors of distinct bytes may still be one string (bytes that are not UTF-8 become U+FFFD).
    const anchors = new Set<string>();
    for (let i = 0; i < anchorSpans[0]; i++) anchors.add(b.toString('utf8', anchorSpans[1 + 2 * i], anchorSpans[2 + 2 * i]));
    return { count, anchors: [...anchors] };
  }
  return inlinkAnchorsJs(b, start, end);
}

/** Where the json kernel puts a list's anchors: their number, then [start, end) each; grown as lists need. */
let anchorSpans = new Int32Array(1 + 2 * 1024);

/** inlinkAnchors's twin where the json kernel is not built. */
function inlinkAnchorsJs(b: Buffer, start: number, end: number): { count: number; anchors: string[] } | undefined {
  if (end - start < B_INLINKS_OPEN.length + 2 || !bytesAt(b, start, B_INLINKS_OPEN) || b[end - 2] !== 0x5d || b[end - 1] !== 0x7d) return undefined;
  const anchors = new Set<string>();
  let count = 0;
  let i = start + B_INLINKS_OPEN.length;
  const close = end - 2;
  if (i === close) return { count, anchors: [] };
  for (;;) {
    if (!bytesAt(b, i, B_FROM)) return undefined;
    i = plainStringEnd(b, i + B_FROM.length, close);
    if (i < 0 || !bytesAt(b, i, B_THEN_ANCHOR)) return undefined;
    const a = i + B_THEN_ANCHOR.length;
    i = plainStringEnd(b, a, close);
    if (i < 0 || b[i] !== 0x7d) return undefined;
    if (i - 1 > a) anchors.add(b.toString('utf8', a, i - 1));
    count++;
    i++;
    if (i === close) return { count, anchors: [...anchors] };
    if (b[i] !== 0x2c) return undefined;
    i++;
  }
}

/**
 * Whether JSON text holds no escape and no raw control character: each string in it is then
 * its bytes between the quotes, and ends at the next quote.
 */
function unescaped(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c < 0x20 || c === 0x5c) return false;
  }
  return true;
}

/**
 * An inlink in a list's bytes: where its JSON object lies (values[v] from s to e), its strings
 * as Latin-1 strings of their UTF-8 bytes. Offsets, not views: a URL's group at scale holds a
 * million inlinks, of which db.max.inlinks are copied out.
 */
interface InlinkBytes {
  v: number;
  s: number;
  e: number;
  from: string;
  anchor: string;
}

const FROM_OPEN = '{"from":"';
const ANCHOR_FIELD = '","anchor":"';
/** Bytes inlinksIn leaves to JSON.parse: an escape, a control character, a character past the BMP's lead byte. */
const UNREAD = /[\x00-\x1f\\\xf0-\xff]/;

/**
 * The inlinks of a group's lists, where each list is `{"inlinks":[...]}` of objects
 * `{"from":"F","anchor":"A"}` with no escape, no control character and no character past the
 * BMP in them (the strings are their bytes, in an order that is UTF-16's), and valid UTF-8;
 * undefined for anything else, which reduce reads.
 */
function inlinksIn(values: readonly Uint8Array[]): InlinkBytes[] | undefined {
  const out: InlinkBytes[] = [];
  for (let k = 0; k < values.length; k++) {
    const v = values[k];
    if (!isInlinksJson(v) || !isUtf8(v)) return undefined;
    // The bytes as a Latin-1 string, one character a byte: searched and sliced by V8's string
    // code, where a loop over the bytes in JavaScript cost more than JSON.parse.
    const t = Buffer.from(v.buffer, v.byteOffset, v.length).toString('latin1');
    if (UNREAD.test(t)) return undefined;
    const end = t.length - 2; // the list's closing bracket
    let p = INLINKS_OPEN.length;
    if (p === end) continue;
    for (;;) {
      if (!t.startsWith(FROM_OPEN, p)) return undefined;
      const f0 = p + FROM_OPEN.length;
      const f1 = t.indexOf('"', f0);
      if (f1 < 0 || f1 >= end || !t.startsWith(ANCHOR_FIELD, f1)) return undefined;
      const a0 = f1 + ANCHOR_FIELD.length;
      const a1 = t.indexOf('"', a0);
      if (a1 < 0 || a1 + 1 >= end || t.charCodeAt(a1 + 1) !== 0x7d) return undefined;
      out.push({ v: k, s: p, e: a1 + 2, from: t.slice(f0, f1), anchor: t.slice(a0, a1) });
      p = a1 + 2;
      if (p === end) break;
      if (t.charCodeAt(p) !== 0x2c) return undefined;
      p++;
    }
  }
  return out;
}

/** Where each outlink's URL and anchor text lie (4 offsets an outlink), reused by a thread's records; `count` of them found. */
let spans = new Int32Array(4 * 1024);
let count = 0;

/**
 * The links of the array that opens at `value[p - 1]` (`[{"url":"U","anchor":"A"},...]`, no
 * escape in it), added to `spans`; where the array ends (just past its `]`), or -1 for another shape.
 */
function linkSpans(value: Uint8Array, p: number): number {
  if (value[p] === 0x5d) return p + 1;
  for (;;) {
    if (!bytesAt(value, p, B_URL)) return -1;
    const u0 = p + B_URL.length;
    const u1 = value.indexOf(0x22, u0);
    if (u1 < 0 || !bytesAt(value, u1, B_ANCHOR)) return -1;
    const a0 = u1 + B_ANCHOR.length;
    const a1 = value.indexOf(0x22, a0);
    if (a1 < 0 || value[a1 + 1] !== 0x7d) return -1;
    if (4 * count + 4 > spans.length) {
      const grown = new Int32Array(2 * spans.length);
      grown.set(spans);
      spans = grown;
    }
    const at = 4 * count++;
    spans[at] = u0;
    spans[at + 1] = u1;
    spans[at + 2] = a0;
    spans[at + 3] = a1;
    p = a1 + 2;
    if (value[p] === 0x2c) p++;
    else if (value[p] === 0x5d) return p + 1;
    else return -1;
  }
}

function host(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export const invertlinksJob: Job = {
  name: 'invertlinks',
  description: "Segments' outlinks (crawl_parse) + LinkDb -> the LinkDb: URL -> inlinks (from URL, anchor).",
  input: 'records',
  map(key, value, emit, ctx) {
    if (datasetOf(ctx.inputFile) !== 'crawl_parse') {
      emit(key, value); // an inlinks entry of the LinkDb already there
      return;
    }
    const from = key.includes(' ') ? splitDocumentKey(key).url : key;
    const internal = ctx.conf.getBoolean('db.ignore.internal.links');
    const max = ctx.conf.getNumber('db.max.anchor.length');
    const fromHost = host(from);
    // The value JSON.stringify gives { inlinks: [{ from, anchor }] }, with `from` written once
    // per page (694k outlinks on the bench corpus: a tenth of the job's CPU went to stringify).
    const head = `${INLINKS_OPEN}{"from":${JSON.stringify(from)},"anchor":`;
    const parse = value as CrawlParse;
    for (const l of parse.outlinks ?? []) {
      if (l.url === from) continue;
      if (internal && host(l.url) === fromHost) {
        ctx.count('internal links ignored');
        continue;
      }
      emit(l.url, new RawJson(`${head}${JSON.stringify(l.anchor.slice(0, max))}}]}`));
    }
    // An image's words describe it wherever it is served from, and are bounded by the parse.
    for (const l of parse.images ?? []) if (l.url !== from) emit(l.url, new RawJson(`${head}${JSON.stringify(l.anchor)}}]}`));
  },
  combine(key, values, emit) {
    const texts = values as string[];
    const lists: string[] = [];
    for (const t of texts) {
      if (!t.startsWith(INLINKS_OPEN) || !t.endsWith(']}')) {
        // Another shape (not this job's own output): read, as a whole.
        emit(key, { inlinks: texts.flatMap((v) => (JSON.parse(v) as Inlinks).inlinks) });
        return;
      }
      if (t.length > INLINKS_OPEN.length + 2) lists.push(t.slice(INLINKS_OPEN.length, -2));
    }
    emit(key, new RawJson(`${INLINKS_OPEN}${lists.join(',')}]}`));
  },
  reduce(key, values, emit, ctx) {
    const max = ctx.conf.getNumber('db.max.inlinks');
    const seen = new Set<string>();
    const inlinks: Inlink[] = [];
    for (const v of values as Inlinks[]) {
      for (const l of v.inlinks) {
        const id = `${l.from}\t${l.anchor}`;
        if (seen.has(id)) continue;
        seen.add(id);
        inlinks.push(l);
      }
    }
    inlinks.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.anchor < b.anchor ? -1 : a.anchor > b.anchor ? 1 : 0));
    if (inlinks.length > max) ctx.count('inlinks over db.max.inlinks dropped', inlinks.length - max);
    emit(key, { inlinks: inlinks.slice(0, max) });
  },
  encoding: {
    // The map over bytes: a page's outlinks go from the input's bytes to the sort's, each
    // value a head written once per page, the anchor's bytes as they lie, and its close.
    mapRecordBytes(line, start, tab, end, emit, ctx) {
      const value = line.subarray(tab + 1, end);
      if (datasetOf(ctx.inputFile) !== 'crawl_parse') {
        // An inlinks entry of the LinkDb already there, as this job wrote it (JSON.stringify of
        // `{ inlinks }`, what `map`'s parse and stringify give).
        if (!isInlinksJson(value)) return false;
        emit(line, start, tab, [value]);
        return true;
      }
      // Telling hosts apart needs the URL parser: `map` does it.
      if (ctx.conf.getBoolean('db.ignore.internal.links')) return false;
      const n = value.length;
      if (!bytesAt(value, 0, B_OUTLINKS_OPEN) || value[n - 1] !== 0x7d || !unescaped(value, 0, n)) return false;
      // Every link found and checked before the first is emitted: a value of another shape
      // goes to `map` whole. The outlinks, then the images (from `images` on), if any.
      count = 0;
      let p = linkSpans(value, B_OUTLINKS_OPEN.length);
      const images = count;
      if (p >= 0 && bytesAt(value, p, B_IMAGES)) p = linkSpans(value, p + B_IMAGES.length);
      if (p !== n - 1) return false;
      const inKey = line.subarray(start, tab).lastIndexOf(0x20);
      const keyEnd = inKey < 0 ? tab : start + inKey;
      const from = line.toString('utf8', start, keyEnd);
      const fromLength = keyEnd - start;
      const max = ctx.conf.getNumber('db.max.anchor.length');
      const head = Buffer.from(`${INLINKS_OPEN}{"from":${JSON.stringify(from)},"anchor":`);
      const v0 = tab + 1;
      for (let i = 0; i < count; i++) {
        const u0 = v0 + spans[4 * i];
        const u1 = v0 + spans[4 * i + 1];
        if (u1 - u0 === fromLength && line.compare(line, start, keyEnd, u0, u1) === 0) continue;
        const a0 = v0 + spans[4 * i + 2];
        const a1 = v0 + spans[4 * i + 3];
        // No more bytes than max: no more UTF-16 units either, so slice(0, max) keeps it whole.
        let anchor: Uint8Array | string = line.subarray(a0 - 1, a1 + 1);
        if (a1 - a0 > max && i < images) {
          const text = line.toString('utf8', a0, a1);
          if (text.length > max) anchor = JSON.stringify(text.slice(0, max));
        }
        emit(line, u0, u1, [head, anchor, B_INLINK_CLOSE]);
      }
      return true;
    },
    // The combine joins the lists as JSON text: 694k inlinks on the bench corpus were parsed and
    // stringified again only to be put in one array.
    rawCombineValues: true,
    // combine's join over the values' bytes, where each is a list this job wrote.
    combineBytes(values) {
      const pieces: Uint8Array[] = [B_INLINKS_OPEN];
      for (const v of values) {
        if (!isInlinksJson(v)) return undefined;
        if (v.length === B_INLINKS_OPEN.length + 2) continue;
        if (pieces.length > 1) pieces.push(B_COMMA);
        pieces.push(v.subarray(B_INLINKS_OPEN.length, v.length - 2));
      }
      pieces.push(B_LIST_CLOSE);
      return pieces;
    },
    // reduce over the lists' bytes, where every inlink is `{"from":"F","anchor":"A"}` as this job
    // writes it: kept once, sorted and capped as reduce does, and copied out as it lies.
    reduceBytes(_key, values, emit, ctx) {
      const links = inlinksIn(values);
      if (!links) return false;
      // Latin-1 strings of UTF-8 bytes compare as the bytes do, and (no character past the BMP)
      // the bytes as the UTF-16 strings reduce sorts. Sorted first, a duplicate is the one before.
      links.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.anchor < b.anchor ? -1 : a.anchor > b.anchor ? 1 : 0));
      const max = ctx.conf.getNumber('db.max.inlinks');
      const pieces: Uint8Array[] = [B_INLINKS_OPEN];
      let unique = 0;
      for (let i = 0; i < links.length; i++) {
        const l = links[i];
        if (i > 0 && l.from === links[i - 1].from && l.anchor === links[i - 1].anchor) continue;
        if (unique++ >= max) continue;
        if (unique > 1) pieces.push(B_COMMA);
        pieces.push(values[l.v].subarray(l.s, l.e));
      }
      if (unique > max) ctx.count('inlinks over db.max.inlinks dropped', unique - max);
      pieces.push(B_LIST_CLOSE);
      emit([pieces]);
      return true;
    },
  },
};
