/**
 * One URL of an archived page made into its archival URL on the replay origin, so that what
 * the page loads comes from the archive at the time of the page: absolute, scheme-relative and
 * root-relative URLs get the prefix `/replay/{coll}/{ts}{mod}/`; a relative one is resolved
 * against the page (ASCII only: a non-ASCII one is left to the browser, which resolves it
 * against the page's own archival URL, in the page's charset). Other schemes (data:, blob:,
 * javascript:, mailto:, fragments) are left alone: the replay CSP blocks what must not load.
 *
 * Values are raw source text (entities and bytes as in the page, read as latin1), so the
 * rewritten page keeps the page's bytes: only the prefix and the scheme and host are added.
 */
import { archivalPath, REPLAY_PREFIX, type Modifier } from './archival-url.js';

export interface RewriteContext {
  coll: string;
  /** 14 digits: resources are looked up nearest this time. */
  ts: string;
  /** The archived URL of the document the values come from (its <base>, once seen). */
  base: string;
  /** Values are HTML attribute text: `&amp;` is read as `&` when resolving, and written back as `&amp;`. */
  html?: boolean;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/** Decodes the entities a URL attribute may hold where it is resolved (the rest stay as written). */
function decodeAmp(raw: string): string {
  return raw.replace(/&(amp|#38|#x26);/gi, '&');
}

/** The archival form of one raw URL value; `undefined` when it is left as it is. */
export function rewriteUrl(raw: string, mod: Modifier, ctx: RewriteContext): string | undefined {
  // String trims strip what `\s` matches, in one pass (a /\s+$/ is quadratic in a run of spaces).
  const value = raw.trim();
  if (value === '' || value.startsWith('#') || value.startsWith(REPLAY_PREFIX)) return undefined;
  const prefix = archivalPath(ctx.coll, ctx.ts, mod, '');
  const scheme = SCHEME.exec(value);
  if (scheme) {
    if (!/^https?$/i.test(scheme[1])) return undefined;
    // `http:/x` and `http:x` are relative URLs with a scheme: resolved below.
    if (value.slice(scheme[0].length, scheme[0].length + 2) === '//') return prefix + value;
  }
  if (value.startsWith('//')) return prefix + protocolOf(ctx.base) + value;
  if (value.startsWith('/') && !value.startsWith('/\\')) return prefix + originOf(ctx.base) + value;
  // Relative: resolved against the document where the browser could not do it right.
  if (!/^[\x20-\x7e]*$/.test(value)) return undefined;
  try {
    const href = new URL(ctx.html ? decodeAmp(value) : value, ctx.base).href;
    return prefix + (ctx.html ? href.replace(/&/g, '&amp;') : href);
  } catch {
    return undefined;
  }
}

function protocolOf(url: string): string {
  return /^https:/i.test(url) ? 'https:' : 'http:';
}

function originOf(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)/i.exec(url);
  return m ? m[1] : '';
}

/** A URL made absolute against a base, as the archived page meant it (for headers and <base>). */
export function absoluteUrl(value: string, base: string): string | undefined {
  try {
    return new URL(value.trim(), base).href;
  } catch {
    return undefined;
  }
}
