/**
 * URL keys for CDX lines. `surt` gives the key that the surt library (cdxj-indexer, pywb)
 * gives: `http://www.Example.org/a/?b=2&a=1` -> `org,example)/a?a=1&b=2`. `massaged` gives the
 * classic Wayback key of old CDX files: the same canonical URL, host not reversed and no
 * scheme: `example.org/a?a=1&b=2`.
 */
import { UrlParseError, fromByteString, googleCanonicalize, iaCanonicalize, parseUrl, toByteString, type UrlParts } from './url-parts.js';

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

/**
 * Keys `url` with `format` over its canonical parts. `-` for no URL; `filedesc:` and `dns:`
 * URLs stay raw (as in cdxj-indexer, pywb and CDX-Writer output), and so do URLs the
 * canonicalizer cannot parse (as cdxj-indexer does).
 */
function keyWith(url: string, authority: (u: UrlParts) => string): string {
  if (!url) return '-';
  if (url.startsWith('filedesc') || url.startsWith('dns:')) return url;
  let u: UrlParts;
  try {
    u = canonicalParts(url);
  } catch (err) {
    if (err instanceof UrlParseError) return url;
    throw err;
  }
  const head = u.host ? authority(u) : `${u.scheme}:`;
  return fromByteString(head + pathAndQuery(u));
}

const port = (u: UrlParts) => (u.port !== null ? `:${u.port}` : '');

/** The SURT key of `url`: `org,example)/a?b`. */
export function surt(url: string): string {
  return keyWith(url, (u) => `${u.host!.split('.').reverse().join(',')}${port(u)})`);
}

/** The classic Wayback ("massaged") key of `url`: `example.org/a?b`. */
export function massagedUrl(url: string): string {
  return keyWith(url, (u) => `${u.scheme !== 'http' && u.scheme !== 'https' ? `${u.scheme}://` : ''}${u.host}${port(u)}`);
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
