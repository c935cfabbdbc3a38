/**
 * A segment: one import (or one fetch of a live crawl), a directory of datasets keyed by
 * document key `URL sha1:DIGEST` (the URL as captured, normalized; the payload digest), each
 * a set of sorted record files:
 *
 *   content/      where the capture is: archive file, location, offset, compressed length
 *   parse_data/   title, description, outlinks with anchors, robots flags, metadata
 *   parse_text/   the extracted text
 *   crawl_fetch/  fetch_success with the capture date(s)
 *   crawl_parse/  the outlinks, for updatedb
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dateTo14 } from '../archive/dates.js';
import { JsonPieces } from '../mapreduce/value-json.js';
import { jsonStringBytes } from '../util/json-bytes.js';
import type { TaskContext } from '../mapreduce/job.js';
import type { RecordFileOptions } from '../mapreduce/record-file.js';

export const SEGMENT_PARTS = ['content', 'parse_data', 'parse_text', 'crawl_fetch', 'crawl_parse'] as const;

/**
 * The record files of a segment's parse_text, where the run's (`nwax.recordfile.*`) are not
 * what it needs: snippets read a page's text by key, inflating its block from the start to the
 * page, so blocks a third the size (and deflated a level harder, the same bytes on disk) take a
 * lookup half the time. docs/decisions.md, "A compact index", has the figures.
 */
export function segmentRecordFile(dataset: string, ctx: TaskContext): RecordFileOptions | undefined {
  if (dataset !== 'parse_text') return undefined;
  return { blockSize: ctx.conf.getBytes('nwax.segment.text.block.size'), level: ctx.conf.getInteger('nwax.segment.text.gzip.level', 0, 9) };
}

/** The segment's capture index for replay (capture-index.ts): a sorted CDX11 of every record read, and where each archive is. */
export const CAPTURES_CDX = 'captures.cdx';
export const CAPTURES_ARCHIVES = 'captures.archives';

/**
 * Why `segment` has no capture index, or undefined when it has one or is not an imported
 * segment: replay then finds none of its captures but through nwax.serve.cdx. Said by serve and
 * readseg, with the command that writes it.
 */
export function missingCaptureIndex(segment: string): string | undefined {
  if (!existsSync(join(segment, '_SUCCESS')) || !existsSync(join(segment, 'content')) || existsSync(join(segment, CAPTURES_CDX))) return undefined;
  return `${segment}: no capture index (${CAPTURES_CDX}): replay finds its captures only through nwax.serve.cdx; write it with: nwax import --captures-only MANIFEST ${segment}`;
}

/** A URL as a document key holds it: WHATWG-normalized where it parses, never a tab or newline. */
export function normalizeUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url.replace(/[\t\n\r]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  }
}

/** `sha1:BASE32` (digests of other algorithms keep their own prefix). */
export function digestWithAlgorithm(digest: string): string {
  return digest.includes(':') ? digest : `sha1:${digest}`;
}

export function documentKey(url: string, digest: string): string {
  return `${normalizeUrl(url)} ${digestWithAlgorithm(digest)}`;
}

/** Splits a document key at its last space (a normalized URL has none). */
export function splitDocumentKey(key: string): { url: string; digest: string } {
  const sp = key.lastIndexOf(' ');
  return { url: key.slice(0, sp), digest: key.slice(sp + 1) };
}

/** A segment's name: a 14-digit timestamp, as Nutch names them. */
export function segmentName(date = new Date()): string {
  return dateTo14(date);
}

export interface ContentPointer {
  url: string;
  /** The archive's file name (as in CDX). */
  file: string;
  /** Where it was read from: the path or URL of the manifest. */
  location: string;
  offset: number;
  /** Compressed length of the record in the archive. */
  length: number;
  collection: string;
  date: string;
  mime: string;
  status: number | null;
  recordType: string;
}

export interface ParseData {
  title: string;
  description: string;
  outlinks: { url: string; anchor: string }[];
  noindex: boolean;
  nofollow: boolean;
  parse: 'success' | 'metadata' | 'failed';
  parseError?: string;
  meta: {
    url: string;
    digest: string;
    date: string;
    mime: string;
    status: number | null;
    /** Payload length in bytes (as stored). */
    length: number;
    collection: string;
    file: string;
    offset: number;
    charset?: string;
    truncated?: boolean;
    /**
     * The language (analysis/language.ts: declared by the page or its server, else detected), ''
     * when unknown; absent in segments of nwax before 0.2, whose language the index job detects.
     */
    lang?: string;
  };
  /**
   * The images the page shows, each with its alt text and the words around it (parse/html.ts),
   * which invertlinks gives them as anchor text; the last field, absent where there are none.
   */
  images?: { url: string; anchor: string }[];
}

export interface CrawlFetch {
  status: 'fetch_success';
  date: string;
  /** Every date this version was captured in this segment. */
  dates: string[];
}

/**
 * What the import map emits per capture; the reduce keeps the first by date. It carries no
 * crawl_parse: that dataset's outlinks are parse_data's (none where the page says nofollow),
 * and the reduce writes them from there (crawlParseOf), so the shuffle does not carry every
 * outlink twice (72 of the bench corpus's 390 MB of map output).
 */
export interface Capture {
  date: string;
  content: ContentPointer;
  parse_data: ParseData;
  parse_text: string;
  crawl_fetch: CrawlFetch;
}

/**
 * A capture's JSON, the bytes JSON.stringify gives, in pieces: the page's text (most of it)
 * written as UTF-8 JSON by jsonStringBytes, never a JavaScript string of JSON to be encoded
 * again. Fields in the order readCapture builds them (test/import-reduce.test.ts holds the
 * two to the same bytes).
 */
export function captureJson(c: Capture): JsonPieces {
  const { date, content, parse_data: pd, parse_text: text, crawl_fetch: fetch } = c;
  const head = JSON.stringify({ date, content, parse_data: pd });
  return new JsonPieces([`${head.slice(0, -1)},"parse_text":`, jsonStringBytes(text), `,"crawl_fetch":${JSON.stringify(fetch)}}`]);
}

/**
 * A version's crawl_parse: the outlinks updatedb and invertlinks read, and the images the page
 * shows with their words, which invertlinks reads and updatedb does not (images are described
 * by the page, not crawled from it).
 */
export interface CrawlParse {
  outlinks: { url: string; anchor: string }[];
  images?: { url: string; anchor: string }[];
}

/** How the images array opens in a parse_data's or crawl_parse's JSON: its last field, so the array ends one before the end. */
export const IMAGES_FIELD = ',"images":[';

/**
 * Where the images array lies in a parse_data's JSON text (or bytes) whose outlinks end at
 * `after`: from its `[` to just past its `]`, the text's last field; undefined where there is
 * none. A bare `,"` is never inside a JSON string (a quote there is escaped), so the first
 * `,"images":[` past the outlinks is the field.
 */
export function imagesIn(json: string | Buffer, after: number): { array: number; end: number } | undefined {
  const at = json.indexOf(IMAGES_FIELD, after);
  return at < 0 ? undefined : { array: at + IMAGES_FIELD.length - 1, end: json.length - 1 };
}

/**
 * Where the outlinks lie in a parse_data's JSON text (or its UTF-8 bytes), read without
 * parsing it: `start` at its `,"outlinks":`, `array` at the array's `[`, `end` just past its
 * `]`, and the page's nofollow. The JSON is `{"title":...,"description":...,"outlinks":[...],"noindex":B,
 * "nofollow":B,...}`, and the array ends at the first `],"noindex":` after it opens: inside a
 * JSON string every quote is escaped, and an outlink holds only a url and an anchor.
 * Undefined for another shape, which the caller parses. (The import's reduce writes
 * crawl_parse from the array; the index's map leaves it out.)
 */
export function outlinksIn(parseData: string | Buffer): { start: number; array: number; end: number; nofollow: boolean } | undefined {
  const at = (s: string, i: number) => (typeof parseData === 'string' ? parseData.startsWith(s, i) : parseData.toString('latin1', i, i + s.length) === s);
  if (!at('{"title":', 0)) return undefined;
  const start = parseData.indexOf(',"outlinks":[');
  const close = start < 0 ? -1 : parseData.indexOf('],"noindex":', start);
  if (close < 0) return undefined;
  let flag = close + 12;
  flag += at('true', flag) ? 4 : at('false', flag) ? 5 : 0;
  if (!at(',"nofollow":', flag)) return undefined;
  return { start, array: start + 12, end: close + 1, nofollow: at('true', flag + 12) };
}

/** The crawl_parse of a capture's parse_data: its outlinks, unless the page asked not to be followed. */
export function crawlParseOf(pd: Pick<ParseData, 'outlinks' | 'nofollow' | 'images'>): CrawlParse {
  return { outlinks: pd.nofollow ? [] : pd.outlinks, ...(pd.images?.length ? { images: pd.images } : {}) };
}
