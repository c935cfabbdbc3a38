/**
 * URL keys for CDX lines. `surt` gives the key that the surt library (cdxj-indexer, pywb)
 * gives: `http://www.Example.org/a/?b=2&a=1` -> `org,example)/a?a=1&b=2`. `massaged` gives the
 * classic Wayback key of old CDX files: the same canonical URL, host not reversed and no
 * scheme: `example.org/a?a=1&b=2`.
 */
import {
  UrlParseError, fromByteString, googleCanonicalize, iaCanonicalize, parseUrl, toByteString, type UrlParts,
} from './url-parts.js';

export type Canonicalizer = 'surt' | 'massaged';

function canonicalParts(url: string): UrlParts {
  const u = parseUrl(toByteString(url));
  googleCanonicalize(u);
  iaCanonicalize(u);
  return u;
}

function pathAndQuery(u: UrlParts): string {
  let s = '';
  if (u.path) s += u.path;
  else if (u.query !== null) s += '/';
  if (u.query !== null) s += `?${u.query}`;
  if (u.lastDelimiter !== null) s += u.lastDelimiter;
  return s;
}

/** The SURT key of `url`; URLs the canonicalizer cannot parse are returned as they are. */
export function surt(url: string): string {
  if (!url) return '-';
  // filedesc: and dns: keys stay raw, as in cdxj-indexer, pywb and CDX-Writer output.
  if (url.startsWith('filedesc') || url.startsWith('dns:')) return url;
  let u: UrlParts;
  try {
    u = canonicalParts(url);
  } catch (err) {
    if (err instanceof UrlParseError) return url;
    throw err;
  }
  let s = '';
  if (!u.host) s += `${u.scheme}:`;
  else {
    s += u.host.split('.').reverse().join(',');
    if (u.port !== null) s += `:${u.port}`;
    s += ')';
  }
  return fromByteString(s + pathAndQuery(u));
}

/** The classic Wayback ("massaged") key of `url`. */
export function massagedUrl(url: string): string {
  if (!url) return '-';
  if (url.startsWith('filedesc') || url.startsWith('dns:')) return url;
  let u: UrlParts;
  try {
    u = canonicalParts(url);
  } catch (err) {
    if (err instanceof UrlParseError) return url;
    throw err;
  }
  let s = '';
  if (!u.host) s += `${u.scheme}:`;
  else {
    if (u.scheme !== 'http' && u.scheme !== 'https') s += `${u.scheme}://`;
    s += u.host;
    if (u.port !== null) s += `:${u.port}`;
  }
  return fromByteString(s + pathAndQuery(u));
}

export function urlKey(url: string, canonicalizer: Canonicalizer = 'surt'): string {
  return canonicalizer === 'massaged' ? massagedUrl(url) : surt(url);
}

/** Tells which canonicalizer made a key: SURT keys have `)` after a comma-reversed host. */
export function detectCanonicalizer(keys: Iterable<string>): Canonicalizer {
  let surtLike = 0;
  let total = 0;
  for (const k of keys) {
    total++;
    if (/^[^/?]*\)/.test(k)) surtLike++;
  }
  return total > 0 && surtLike * 2 >= total ? 'surt' : 'massaged';
}
