/**
 * URL parsing and canonicalization steps as the `surt` library (internetarchive/surt, used by
 * cdxj-indexer and pywb) performs them: its handyurl parse on top of Python's urlsplit, then
 * GoogleURLCanonicalizer and IAURLCanonicalizer. Strings here are *byte strings*: one char per
 * byte (Latin-1), so percent-decoding and -encoding work on bytes as the reference does.
 */
import { domainToASCII } from 'node:url';
import { trimWhere } from '../util/trim.js';

export interface UrlParts {
  scheme: string;
  host: string | null;
  port: number | null;
  path: string | null;
  query: string | null;
  hash: string | null;
  lastDelimiter: string | null;
}

export class UrlParseError extends Error {}

/** A char past ASCII: where one is, a string and its byte string differ. */
const NON_ASCII = /[^\x00-\x7f]/;

export function toByteString(s: string): string {
  return NON_ASCII.test(s) ? Buffer.from(s, 'utf8').toString('latin1') : s;
}

export function fromByteString(s: string): string {
  return NON_ASCII.test(s) ? Buffer.from(s, 'latin1').toString('utf8') : s;
}

/** bytes.lower(): ASCII letters only, so UTF-8 bytes held as Latin-1 chars stay intact. */
export function asciiLower(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

const SCHEME_RE = /^[a-zA-Z][a-zA-Z0-9+\-.]*:/;
// Python's urlsplit strips leading C0 controls and spaces, and removes tab/CR/LF anywhere.
const C0_OR_SPACE = /^[\x00-\x20]+/;

/** What Python's str.strip() strips: JavaScript's white space (`\s`) and \x1c-\x1f. */
function isStripped(c: number): boolean {
  return (c >= 0x1c && c <= 0x20) || (c >= 0x09 && c <= 0x0d) || (c > 0x7f && /\s/.test(String.fromCharCode(c)));
}

/** handyurl.parse (surt) on a byte string. */
export function parseUrl(input: string): UrlParts {
  let url = trimWhere(input, isStripped).replace(/[\n\r\t]/g, '');
  if (url && !SCHEME_RE.test(url)) url = `http://${url}`;
  url = url.replace(/^(https?:\/\/)+/, '$1');

  // urlsplit
  url = url.replace(C0_OR_SPACE, '');
  let scheme = '';
  const colon = url.indexOf(':');
  if (colon > 0 && /^[a-zA-Z]/.test(url) && /^[a-zA-Z0-9+\-.]*$/.test(url.slice(0, colon))) {
    scheme = asciiLower(url.slice(0, colon));
    url = url.slice(colon + 1);
  }
  let netloc = '';
  if (url.startsWith('//')) {
    let end = url.length;
    for (const ch of '/?#') {
      const i = url.indexOf(ch, 2);
      if (i >= 0 && i < end) end = i;
    }
    netloc = url.slice(2, end);
    url = url.slice(end);
  }
  let fragment = '';
  const hashAt = url.indexOf('#');
  if (hashAt >= 0) {
    fragment = url.slice(hashAt + 1);
    url = url.slice(0, hashAt);
  }
  let query = '';
  const qAt = url.indexOf('?');
  if (qAt >= 0) {
    query = url.slice(qAt + 1);
    url = url.slice(0, qAt);
  }
  const path = url;

  if (netloc.endsWith(':')) netloc = netloc.replace(/:+$/, '');
  const hostPort = netloc.slice(netloc.lastIndexOf('@') + 1);
  let hostname: string;
  let portText: string;
  if (hostPort.includes('[')) {
    const close = hostPort.indexOf(']');
    hostname = hostPort.slice(hostPort.indexOf('[') + 1, close >= 0 ? close : undefined);
    const after = close >= 0 ? hostPort.slice(close + 1) : '';
    portText = after.startsWith(':') ? after.slice(1) : '';
  } else {
    const c = hostPort.indexOf(':');
    hostname = c >= 0 ? hostPort.slice(0, c) : hostPort;
    portText = c >= 0 ? hostPort.slice(c + 1) : '';
  }
  hostname = asciiLower(hostname);
  let port: number | null = null;
  if (portText) {
    if (!/^[0-9]+$/.test(portText)) throw new UrlParseError(`port "${portText}" is not a number`);
    port = Number(portText);
    if (port > 65535) throw new UrlParseError(`port ${port} out of range`);
    if (port === 0) port = null;
  }

  let host: string | null = hostname || null;
  let p: string | null = path || null;
  if (scheme === 'dns') {
    host = path || null;
    p = null;
  }
  if (scheme.startsWith('http') && host === null && p !== null) {
    const rest = p.replace(/^\/+/, '');
    const slash = rest.indexOf('/');
    host = slash >= 0 ? rest.slice(0, slash) : rest;
    p = `/${slash >= 0 ? rest.slice(slash + 1) : ''}`;
  }
  const parts: UrlParts = {
    scheme,
    host,
    port,
    path: p,
    query: query || null,
    hash: fragment || null,
    lastDelimiter: null,
  };
  if (url.endsWith('?') || (input.endsWith('?') && parts.query === null)) {
    if (parts.query === null && input.trimEnd().endsWith('?')) parts.lastDelimiter = '?';
  }
  return parts;
}

/** Python's urllib.parse.unquote_to_bytes on a byte string. */
export function unquoteBytes(s: string): string {
  if (s.indexOf('%') < 0) return s;
  return s.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

export function unescapeRepeatedly(s: string): string {
  for (;;) {
    const u = unquoteBytes(s);
    if (u === s) return s;
    s = u;
  }
}

// quote_from_bytes with safe = !"$&'()*+,-./:;<=>?@[\]^_`{|}~ plus the always-safe
// letters and digits: everything else (controls, space, #, %, bytes >= 0x7f) is escaped.
const SAFE = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  const ch = String.fromCharCode(b);
  SAFE[b] = /[A-Za-z0-9_.\-~!"$&'()*+,/:;<=>?@[\\\]^`{|}]/.test(ch) ? 1 : 0;
}
const HEX = '0123456789ABCDEF';

export function escapeOnce(s: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const b = s.charCodeAt(i) & 0xff;
    if (!SAFE[b]) {
      out += s.slice(start, i) + '%' + HEX[b >> 4] + HEX[b & 15];
      start = i + 1;
    }
  }
  return start === 0 ? s : out + s.slice(start);
}

export function minimalEscape(s: string): string {
  return escapeOnce(unescapeRepeatedly(s));
}

/** A segment `.` or `..`, or an empty one inside the path: what normalizePath changes. */
const PATH_TO_NORMALIZE = /\/\/|\/\.\.?(?:\/|$)/;

export function normalizePath(path: string | null): string {
  if (!path) return '/';
  // Most paths are already normal: from the root, no dot segment, no empty segment but the last.
  if (path.charCodeAt(0) === 0x2f && !PATH_TO_NORMALIZE.test(path)) return path;
  const kept: string[] = [];
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const p = segments[i];
    if (p === '.') continue;
    if (p === '..') {
      if (kept.length > 0) kept.pop();
      else kept.push(p);
    } else kept.push(p);
  }
  let out = '/';
  for (let i = 0; i < kept.length - 1; i++) if (kept[i].length > 0) out += `${kept[i]}/`;
  if (kept.length > 0) out += kept[kept.length - 1];
  return out;
}

/** A dotted quad as attemptIpFormats writes one: 0-255, no leading zeros, the first not 0. */
const CANONICAL_QUAD = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d?)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d?|0)){3}$/;

/** inet_aton-style reading of decimal / octal dotted forms, as attemptIPFormats does. */
export function attemptIpFormats(host: string): string | null {
  if (CANONICAL_QUAD.test(host)) return host;
  if (/^\d+$/.test(host)) {
    const n = Number(BigInt(host) & 0xffffffffn);
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  }
  const decimal = /^([1-9][0-9]*)(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$/.test(host);
  const octal = !decimal && /^(0[0-7]*)(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$/.test(host);
  if (!decimal && !octal) return null;
  const parts = host.split('.').map((p) => (p.length > 1 && p.startsWith('0') ? parseInt(p, 8) : parseInt(p, 10)));
  if (parts.some((n) => Number.isNaN(n))) return null;
  const last = parts.length - 1;
  for (let i = 0; i < last; i++) if (parts[i] > 255) return null;
  if (parts[last] >= 2 ** (8 * (4 - last))) return null;
  let n = 0;
  for (let i = 0; i < last; i++) n = n * 256 + parts[i];
  n = n * 2 ** (8 * (4 - last)) + parts[last];
  return [Math.floor(n / 2 ** 24) & 255, Math.floor(n / 2 ** 16) & 255, Math.floor(n / 256) & 255, n & 255].join('.');
}

/** GoogleURLCanonicalizer.canonicalize. */
export function googleCanonicalize(u: UrlParts): void {
  u.hash = null;
  if (u.query) u.query = minimalEscape(u.query);
  if (u.host) {
    let host = unescapeRepeatedly(u.host);
    if (/[^\x00-\x7f]/.test(host)) {
      const ascii = domainToASCII(fromByteString(host));
      if (ascii) host = ascii;
    }
    host = trimWhere(host.split('..').join('.'), (c) => c === 0x2e);
    const ip = attemptIpFormats(host);
    u.host = ip ?? escapeOnce(asciiLower(host));
  }
  let path = u.path === null ? null : unescapeRepeatedly(u.path);
  if (u.host) path = normalizePath(path);
  u.path = path === null ? null : escapeOnce(path);
}

const PATH_SESSION_IDS = [/^(.*\/)(\((?:[a-z]\([0-9a-z]{24}\))+\)\/)([^?]+\.aspx.*)$/i, /^(.*\/)(\([0-9a-z]{24}\)\/)([^?]+\.aspx.*)$/i];
const QUERY_SESSION_IDS = [
  /^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$/i,
  /^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$/i,
];

function alphaReorderQuery(q: string): string {
  if (q.length <= 1) return q;
  const args = q.split('&').map((a) => {
    const eq = a.indexOf('=');
    return eq >= 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a];
  });
  args.sort((a, b) => {
    if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
    if (a.length !== b.length) return a.length - b.length;
    if (a.length === 1 || a[1] === b[1]) return 0;
    return a[1] < b[1] ? -1 : 1;
  });
  return args.map((a) => a.join('=')).join('&');
}

/** IAURLCanonicalizer.canonicalize with its defaults. */
export function iaCanonicalize(u: UrlParts): void {
  if (u.host) {
    u.host = asciiLower(u.host);
    if (u.scheme !== 'dns') u.host = u.host.replace(/^www\d*\./, '');
  }
  if (u.scheme && ((u.scheme === 'http' && u.port === 80) || (u.scheme === 'https' && u.port === 443))) u.port = null;
  if (u.path) {
    let p = asciiLower(u.path);
    for (const re of PATH_SESSION_IDS) {
      const m = re.exec(p);
      if (m) p = m[1] + m[3];
    }
    if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
    u.path = p;
  }
  if (u.query) {
    let q = u.query;
    for (const re of QUERY_SESSION_IDS) {
      const m = re.exec(q);
      if (m) q = m[2] ? m[1] + m[2] : m[1];
    }
    q = alphaReorderQuery(asciiLower(q));
    u.query = q === '' ? null : q;
  } else {
    u.lastDelimiter = null;
  }
}
