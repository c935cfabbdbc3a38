/**
 * Header blocks of WARC records and HTTP messages: `Name: value` lines, continuation lines
 * folded in, names matched without regard to case. Lines may end in CRLF, bare LF or (in
 * some hand-made files) CR CR LF; all are accepted.
 */
export class HeaderList {
  readonly entries: Array<[string, string]> = [];
  private index: Map<string, string> | undefined;

  add(name: string, value: string): void {
    this.entries.push([name, value]);
    this.index = undefined;
  }

  /** The first value of `name` (case-insensitive), or undefined. */
  get(name: string): string | undefined {
    if (!this.index) {
      this.index = new Map();
      for (const [n, v] of this.entries) {
        const k = n.toLowerCase();
        if (!this.index.has(k)) this.index.set(k, v);
      }
    }
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

/** Splits a header block (without its first line) into a HeaderList. Latin-1, as HTTP/1.x. */
export function parseHeaderLines(text: string, into: HeaderList = new HeaderList()): HeaderList {
  let lastName: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r+$/, '');
    if (line === '') continue;
    if ((line[0] === ' ' || line[0] === '\t') && lastName !== undefined) {
      const e = into.entries[into.entries.length - 1];
      e[1] = `${e[1]} ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue; // not a header line; tolerated as the reference readers do
    lastName = line.slice(0, colon).trim();
    into.add(lastName, line.slice(colon + 1).trim());
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
