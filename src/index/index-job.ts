/**
 * The index job (Nutch's Indexer): joins, per URL, every version's parse_data, parse_text,
 * content pointer and capture dates from the segments, its CrawlDb entry, and the LinkDb
 * inlinks of the URL (links point to URLs, so all versions share them), and writes one
 * full-text index per partition (`indexes/part-NNNNN`). Keyed by URL so that every version of
 * a URL lands in one partition, in digest order. Documents flagged noindex are left out and
 * counted. Boost: ln(e + inlinks) x the CrawlDb score, as Nutch did.
 */
import { dirname, resolve } from 'node:path';
import type { Job } from '../mapreduce/job.js';
import { RawJson } from '../mapreduce/value-json.js';
import { datasetOf, segmentOf, type CrawlDatum } from '../crawl/crawl-datum.js';
import { inlinkAnchors, isInlinksJson, type Inlinks } from '../crawl/invertlinks-job.js';
import { normalizeUrl, outlinksIn, splitDocumentKey, type ContentPointer, type CrawlFetch, type ParseData } from '../segment/segment.js';
import { IndexWriter, type IndexDocument } from './index-writer.js';
import { languageOf } from '../analysis/language.js';
import { JsonText, plainText } from '../util/json-bytes.js';
import { mergeDates } from './document.js';

/**
 * What the index takes of a version's parse_data: its outlinks (most of the dataset's bytes,
 * 694k links on the bench corpus) and description never go through the shuffle.
 */
type IndexedParseData = Pick<ParseData, 'title' | 'noindex'> & { meta: Pick<ParseData['meta'], 'length' | 'lang'> };

function indexedParseData(pd: ParseData): IndexedParseData {
  return { title: pd.title, noindex: pd.noindex, meta: { length: pd.meta.length, lang: pd.meta.lang } };
}

/**
 * The folder that holds the segment an input file is of (`/c/segments` for
 * `/c/segments/S/parse_data/part-00000`), made absolute where it is a local path: the index
 * records it, so its texts are found there (segment/segment-texts.ts) wherever the index is.
 */
function segmentRootOf(inputFile: string): string {
  if (inputFile === '') return '';
  const root = dirname(dirname(dirname(inputFile)));
  // Hadoop names a local input as a file: URI (local mode, NFS); another file system's stays a URL.
  if (/^file:/i.test(root)) return resolve(decodeURIComponent(root.replace(/^file:(\/\/[^/]*)?/i, '')));
  return /^[a-z][a-z0-9+.-]+:/i.test(root) ? root : resolve(root);
}

/**
 * The segment and the folder of the segment an input file is of, found once per file: a task
 * reads one file. Asked per record, path.resolve and the regular expressions above cost 85 ms
 * of the map over the bench corpus's 80k parse_data records.
 */
let segmentOfFile: { file: string; seg: string; at: string } | undefined;

function segmentFields(inputFile: string): { seg: string; at: string } {
  if (segmentOfFile?.file !== inputFile) segmentOfFile = { file: inputFile, seg: segmentOf(inputFile), at: segmentRootOf(inputFile) };
  return segmentOfFile;
}

/** One piece of a version, tagged by where it came from. */
type Piece =
  | { d: string; pd: IndexedParseData; seg: string; at: string }
  | { d: string; text: string | JsonText }
  | { d: string; content: ContentPointer }
  | { d: string; fetch: CrawlFetch }
  | { d: string; db: CrawlDatum }
  | { inlinks: Inlinks['inlinks'] }
  /** A URL's inlinks as the index takes them from their bytes: their number and distinct anchors. */
  | { inlinkCount: number; anchors: string[] };

/**
 * A version's parse_data without parsing its outlinks, which the index does not take (most of
 * the dataset's bytes): the JSON read with the outlinks array left out (`before` and `after`
 * it, as outlinksIn finds it), as the shuffle's piece; undefined for another shape, which goes
 * to `map`.
 */
function parseDataPiece(before: string, after: string, d: string, inputFile: string): Piece | undefined {
  let pd: ParseData;
  try {
    pd = JSON.parse(`${before}${after}`) as ParseData;
  } catch {
    return undefined;
  }
  const { seg, at } = segmentFields(inputFile);
  return { d, pd: indexedParseData(pd), seg, at };
}

function mapParseData(key: string, text: string, emit: (key: string, value: unknown) => void, inputFile: string): boolean {
  const o = outlinksIn(text);
  if (!o) return false;
  const { url, digest } = splitDocumentKey(key);
  const piece = parseDataPiece(text.slice(0, o.start), text.slice(o.end), digest, inputFile);
  if (!piece) return false;
  emit(url, piece);
  return true;
}

/**
 * Whether a JSON string's text `v[0, end)` (quoted at both ends) has no quote inside that is
 * not escaped: a line spliced or cut into another is then parsed, and reported with its file
 * and line, by map, rather than passed on to fail in the reduce. The quotes are found by
 * indexOf (a page's text holds few); other damage inside a string still fails in the reduce.
 */
function quotesEscaped(v: string | Uint8Array, end: number): boolean {
  const backslashesBefore = (i: number): number => {
    let n = 0;
    while (i - 1 - n > 0 && (typeof v === 'string' ? v.charCodeAt(i - 1 - n) : v[i - 1 - n]) === 0x5c) n++;
    return n;
  };
  const next = (from: number): number => (typeof v === 'string' ? v.indexOf('"', from) : (v as Buffer).indexOf(0x22, from));
  for (let i = next(1); i >= 0 && i < end - 1; i = next(i + 1)) if (backslashesBefore(i) % 2 === 0) return false;
  return backslashesBefore(end - 1) % 2 === 0;
}

const D_OPEN = Buffer.from('{"d":"');
const TEXT_FIELD = Buffer.from('","text":');
const CONTENT_FIELD = Buffer.from('","content":');
const FETCH_FIELD = Buffer.from('","fetch":');
const DB_FIELD = Buffer.from('","db":');
const CLOSE = Buffer.from('}');

/** Whether bytes are JSON text. */
function isJson(value: Buffer): boolean {
  try {
    JSON.parse(value.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** `line[from, to)` holds only ASCII that JSON.stringify leaves as it is (a digest, nearly always). */
function plainAscii(line: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = line[i];
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

export const indexJob: Job = {
  name: 'index',
  description: 'Segments + CrawlDb + LinkDb -> one full-text index (SQLite FTS5) per partition, a document per version.',
  input: 'records',
  map(key, value, emit, ctx) {
    const from = datasetOf(ctx.inputFile);
    if (from === 'linkdb' || (!key.includes(' ') && (value as Inlinks)?.inlinks)) {
      emit(key, { inlinks: (value as Inlinks).inlinks });
      return;
    }
    if (!key.includes(' ')) {
      // A live crawl's fetch of a URL: its date goes to the version with that digest (a
      // revisit's too, whose version was parsed in an earlier segment).
      const f = value as { status?: string; digest?: string; date?: string };
      if (from === 'crawl_fetch' && f.digest && f.date && (f.status === 'fetch_success' || f.status === 'fetch_notmodified')) {
        emit(normalizeUrl(key), { d: f.digest, fetch: { status: f.status, date: f.date, dates: [f.date] } });
      }
      return; // a live crawl's URL-keyed CrawlDb entry: versions come from segments
    }
    const { url, digest: d } = splitDocumentKey(key);
    switch (from) {
      case 'parse_data': {
        const { seg, at } = segmentFields(ctx.inputFile);
        emit(url, { d, pd: indexedParseData(value as ParseData), seg, at });
        break;
      }
      case 'parse_text':
        emit(url, { d, text: value });
        break;
      case 'content':
        emit(url, { d, content: value });
        break;
      case 'crawl_fetch':
        emit(url, { d, fetch: value });
        break;
      default:
        emit(url, { d, db: value });
    }
  },
  reduce(url, values, emit, ctx) {
    let inlinkCount = 0;
    const anchorSet = new Set<string>();
    const versions = new Map<
      string,
      { pd?: IndexedParseData; seg?: string; at?: string; text?: string | JsonText; content?: ContentPointer; dates: Set<string>; db?: CrawlDatum }
    >();
    for (const v of values as Piece[]) {
      if ('inlinks' in v) {
        inlinkCount += v.inlinks.length;
        for (const l of v.inlinks) if (l.anchor) anchorSet.add(l.anchor);
        continue;
      }
      if ('inlinkCount' in v) {
        inlinkCount += v.inlinkCount;
        for (const a of v.anchors) anchorSet.add(a);
        continue;
      }
      let ver = versions.get(v.d);
      if (!ver) versions.set(v.d, (ver = { dates: new Set() }));
      if ('pd' in v) {
        ver.pd = v.pd;
        ver.seg = v.seg;
        ver.at = v.at;
      } else if ('text' in v) ver.text = v.text;
      else if ('content' in v) ver.content = v.content;
      else if ('fetch' in v) for (const date of v.fetch.dates ?? [v.fetch.date]) ver.dates.add(date);
      else if ('db' in v) ver.db = v.db;
    }
    const anchors = [...anchorSet];
    for (const digest of [...versions.keys()].sort()) {
      const ver = versions.get(digest)!;
      if (!ver.pd || !ver.content) {
        ctx.count('versions without parse_data or content');
        continue;
      }
      if (ver.pd.noindex) {
        ctx.count('noindex documents left out');
        continue;
      }
      const c = ver.content;
      const dates = mergeDates(ver.dates, [c.date]);
      const doc: IndexDocument = {
        url,
        digest,
        date: dates[0],
        dates,
        mime: c.mime,
        status: c.status,
        length: ver.pd.meta.length,
        collection: c.collection,
        segment: ver.seg ?? '',
        ...(ver.at ? { segmentRoot: ver.at } : {}),
        file: c.file,
        location: c.location,
        offset: c.offset,
        clen: c.length,
        title: ver.pd.title,
        text: ver.text ?? '',
        anchors,
        inlinks: inlinkCount,
        boost: Math.log(Math.E + inlinkCount) * (ver.db?.score ?? 1),
        lang: ver.pd.meta.lang ?? languageOf(undefined, ver.pd.title, plainText(ver.text ?? '')),
      };
      ctx.count('documents indexed');
      emit(`${url} ${digest}`, doc);
    }
  },
  outputFormat(partPath, ctx) {
    const w = new IndexWriter(partPath, { ftsHashSize: ctx.conf.getBytes('nwax.index.fts.hashsize') });
    return { write: (_key, value) => w.add(value as IndexDocument), close: () => void w.close() };
  },
  encoding: {
    // A version's text and content pointer go on as the segment holds them: the text, most of
    // the job's input, was parsed and stringified again only to be passed on.
    mapText(key, text, emit, ctx) {
      const from = datasetOf(ctx.inputFile);
      if (from === 'parse_data' && key.includes(' ')) return mapParseData(key, text, emit, ctx.inputFile);
      if ((from !== 'parse_text' && from !== 'content') || !key.includes(' ') || text.length < 2) return false;
      // The shape map would see (a string, an object); anything else is parsed (and reported) there.
      const [open, close] = from === 'parse_text' ? [0x22, 0x22] : [0x7b, 0x7d];
      if (text.charCodeAt(0) !== open || text.charCodeAt(text.length - 1) !== close) return false;
      if (from === 'parse_text' && !quotesEscaped(text, text.length)) return false;
      const { url, digest } = splitDocumentKey(key);
      emit(url, new RawJson(`{"d":${JSON.stringify(digest)},"${from === 'parse_text' ? 'text' : 'content'}":${text}}`));
      return true;
    },
    // mapText over the record's bytes, and the LinkDb's inlinks: the text and content pointer
    // go from the input's bytes to the sort's, and parse_data's outlinks are never decoded.
    mapRecordBytes(line, start, tab, end, emit, ctx) {
      const from = datasetOf(ctx.inputFile);
      if (from === 'linkdb') {
        // A URL's inlinks, passed on as invertlinks wrote them (JSON.stringify of `{ inlinks }`,
        // the bytes map would emit): parsing and stringifying them again was a third of the map.
        const value = line.subarray(tab + 1, end);
        if (!isInlinksJson(value)) return false;
        emit(line, start, tab, [value]);
        return true;
      }
      // The key's last space, looked for inside the key only (not back through earlier lines).
      const inKey = line.subarray(start, tab).lastIndexOf(0x20);
      if (inKey < 0) return false;
      const sp = start + inKey;
      const value = line.subarray(tab + 1, end);
      if (from !== 'parse_text' && from !== 'content' && from !== 'parse_data') {
        // A version's fetch (crawl_fetch) or CrawlDb entry, wrapped as map wraps it: parsed
        // only to know it is JSON (map reports a line that is not, with its file and line),
        // never stringified again. Through map, these small parts cost 0.2 s of each thread.
        if (value.length < 2 || value[0] !== 0x7b || value[value.length - 1] !== 0x7d || !plainAscii(line, sp + 1, tab) || !isJson(value)) return false;
        emit(line, start, sp, [D_OPEN, line.subarray(sp + 1, tab), from === 'crawl_fetch' ? FETCH_FIELD : DB_FIELD, value, CLOSE]);
        return true;
      }
      if (from === 'parse_data') {
        const o = outlinksIn(value);
        if (!o) return false;
        const piece = parseDataPiece(value.toString('utf8', 0, o.start), value.toString('utf8', o.end), line.toString('utf8', sp + 1, tab), ctx.inputFile);
        if (!piece) return false;
        emit(line, start, sp, [JSON.stringify(piece)]);
        return true;
      }
      const [open, close] = from === 'parse_text' ? [0x22, 0x22] : [0x7b, 0x7d];
      if (value.length < 2 || value[0] !== open || value[value.length - 1] !== close || !plainAscii(line, sp + 1, tab)) return false;
      if (from === 'parse_text' && !quotesEscaped(value, value.length)) return false;
      emit(line, start, sp, [D_OPEN, line.subarray(sp + 1, tab), from === 'parse_text' ? TEXT_FIELD : CONTENT_FIELD, value, CLOSE]);
      return true;
    },
    // A version's text, the most of the reduce's input, kept as the shuffle's bytes (JsonText):
    // the `fts` kernel reads it from them, and no string of it is made; every other piece is parsed.
    reduceValueFromBytes(bytes, start, end) {
      // A URL's inlinks: their number and anchors read from the bytes (the LinkDb's lists were
      // most of the JSON the reduce parsed, for anchors and a count).
      if (bytes[start + 2] === 0x69) {
        const l = inlinkAnchors(bytes, start, end);
        return l && { inlinkCount: l.count, anchors: l.anchors };
      }
      const d = start + D_OPEN.length;
      if (end - start < D_OPEN.length + TEXT_FIELD.length + 3 || bytes.compare(D_OPEN, 0, D_OPEN.length, start, d) !== 0 || bytes[end - 1] !== 0x7d)
        return undefined;
      const q = bytes.indexOf(0x22, d);
      if (
        q < 0 ||
        q + TEXT_FIELD.length >= end - 1 ||
        !plainAscii(bytes, d, q) ||
        bytes.compare(TEXT_FIELD, 0, TEXT_FIELD.length, q, q + TEXT_FIELD.length) !== 0
      )
        return undefined;
      // One JSON string, whose escapes and bytes the kernel checks as it reads them (a text it
      // cannot read goes to JSON.parse); a copy: the shuffle's buffer holds other lines once this
      // group is reduced.
      const json = bytes.subarray(q + TEXT_FIELD.length, end - 1);
      if (json[0] !== 0x22 || json[json.length - 1] !== 0x22 || !quotesEscaped(json, json.length)) return undefined;
      return { d: bytes.toString('latin1', d, q), text: new JsonText(Buffer.from(json)) };
    },
  },
};
