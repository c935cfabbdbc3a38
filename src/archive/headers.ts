/**
 * Header blocks of WARC records and HTTP messages: `Name: value` lines, continuation lines
 * folded in, names matched without regard to case. Lines may end in CRLF, bare LF or (in
 * some hand-made files) CR CR LF; all are accepted.
 */
export class HeaderList {
  readonly entries: Array<[string, string]> = [];
  /** Lower-cased name -> first value. */
  private readonly index = new Map<string, string>();

  add(name: string, value: string): void {
    this.entries.push([name, value]);
    const k = name.toLowerCase();
    if (!this.index.has(k)) this.index.set(k, value);
  }

  /** Appends a continuation line to the last header. */
  continueLast(more: string): void {
    const e = this.entries[this.entries.length - 1];
    if (!e) return;
    e[1] = `${e[1]} ${more}`;
    const k = e[0].toLowerCase();
    if (this.index.get(k) !== undefined && this.entries.findIndex((x) => x[0].toLowerCase() === k) === this.entries.length - 1) this.index.set(k, e[1]);
  }

  /** The first value of `name` (case-insensitive), or undefined. */
  get(name: string): string | undefined {
    return this.index.get(name.toLowerCase());
  }
}

/**
 * Where a header block that starts at `from` ends: the index just past the empty line, or -1.
 * An empty line is LF, optionally preceded by CRs, right after another LF.
 */
export function headerBlockEnd(buf: Buffer, from = 0): number {
  let i = buf.indexOf(10, from);
  while (i >= 0) {
    let j = i + 1;
    while (j < buf.length && buf[j] === 13) j++;
    if (j < buf.length && buf[j] === 10) return j + 1;
    if (j >= buf.length) return -1;
    i = buf.indexOf(10, j);
  }
  return -1;
}

/** Splits a header block (without its first line) into a HeaderList. */
export function parseHeaderLines(text: string, into: HeaderList = new HeaderList()): HeaderList {
  let start = 0;
  const n = text.length;
  while (start < n) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = n;
    let stop = end;
    while (stop > start && text.charCodeAt(stop - 1) === 13) stop--;
    if (stop > start) {
      const c0 = text.charCodeAt(start);
      if (c0 === 32 || c0 === 9) into.continueLast(text.slice(start, stop).trim());
      else {
        const colon = text.indexOf(':', start);
        // Not a header line (no colon): tolerated, as the reference readers do.
        if (colon > start && colon < stop) into.add(text.slice(start, colon).trim(), text.slice(colon + 1, stop).trim());
      }
    }
    start = end + 1;
  }
  return into;
}

export interface HttpHead {
  /** The first line, e.g. `HTTP/1.1 200 OK` or `GET /path HTTP/1.1`. */
  firstLine: string;
  /** Status code (responses) as written, when it is three digits. */
  status: string | undefined;
  /** Request method (requests). */
  method: string | undefined;
  headers: HeaderList;
  /** Bytes of the header block, including its empty line. */
  length: number;
}

const STATUS_LINE = /^HTTP\S*\s+(\d{3})(?:\s|$)/i;
const REQUEST_LINE = /^([A-Z][A-Z0-9_-]*)\s+\S+\s+HTTP\/[0-9.]+$/;

/** Parses an HTTP message head at the start of `buf`, or returns undefined if there is none. */
export function parseHttpHead(buf: Buffer, kind: 'response' | 'request'): HttpHead | undefined {
  const end = headerBlockEnd(buf);
  const firstEol = buf.indexOf(10);
  if (firstEol < 0) return undefined;
  const firstLine = buf.toString('latin1', 0, firstEol).replace(/\r+$/, '');
  let status: string | undefined;
  let method: string | undefined;
  if (kind === 'response') {
    if (!/^HTTP/i.test(firstLine)) return undefined;
    status = STATUS_LINE.exec(firstLine)?.[1];
  } else {
    const m = REQUEST_LINE.exec(firstLine);
    if (!m) return undefined;
    method = m[1];
  }
  // A head with no empty line (cut short, or a status line alone) has its headers up to the end.
  const stop = end < 0 ? buf.length : end;
  const headers = parseHeaderLines(buf.toString('latin1', firstEol + 1, stop));
  return { firstLine, status, method, headers, length: stop };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A URL header's value (`Location`, `Content-Location`), held as latin1 like every header here
 * (one character per byte), as the text it means: its bytes decoded once as UTF-8 (an IRI, as
 * servers send one), or, where they are not UTF-8, each byte past ASCII percent-encoded as it is.
 * Never each byte encoded as UTF-8 again: `ü` sent as C3 BC is `%C3%BC`, not `%C3%83%C2%BC`.
 */
export function headerUrlText(latin1: string): string {
  if (!/[\x80-\xff]/.test(latin1)) return latin1;
  const bytes = Buffer.from(latin1, 'latin1');
  try {
    return UTF8.decode(bytes);
  } catch {
    return latin1.replace(/[\x80-\xff]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  }
}
