/**
 * The archived response's headers as replay sends them (pywb's header rewriter): the content
 * headers kept; Location, Content-Location and Link pointed into the archive; everything that
 * would act on the replay origin (CSP, HSTS, X-Frame-Options, cookies, caching, CORS, lengths
 * and encodings of the archived transfer) sent as `X-Archive-Orig-*`, for the curious, never obeyed.
 */
import { headerUrlText, type HeaderList } from '../archive/headers.js';
import { rewriteUrl, type RewriteContext } from './url-rewriter.js';
import { uriForHeader } from './header-uri.js';

/** Kept as archived. */
const KEEP = new Set(['content-type', 'content-language', 'content-disposition', 'content-range', 'accept-ranges']);
/** Pointed into the archive. */
const URL_HEADERS = new Set(['location', 'content-location']);

/** Header values as Node will send them: no control characters. */
function clean(value: string): string {
  return value.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ' ');
}

/**
 * The headers to send. `keepEncoding`: the payload goes out as stored (id_, a type that is not
 * rewritten), so its Content-Encoding stays with it.
 */
export function rewriteHeaders(headers: HeaderList | undefined, ctx: RewriteContext, keepEncoding: boolean): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, raw] of headers?.entries ?? []) {
    const lower = name.toLowerCase();
    const value = clean(raw);
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/i.test(name)) continue;
    if (KEEP.has(lower) || (keepEncoding && lower === 'content-encoding')) out.push([name, value]);
    else if (URL_HEADERS.has(lower)) {
      const url = headerUrlText(value);
      out.push([name, uriForHeader(rewriteUrl(url, 'mp_', ctx) ?? url)]);
    } else if (lower === 'link')
      out.push([
        name,
        value.replace(/<([^>]*)>/g, (whole, u: string) => {
          const r = rewriteUrl(headerUrlText(u), 'oe_', ctx);
          return r === undefined ? whole : `<${uriForHeader(r)}>`;
        }),
      ]);
    else out.push([`X-Archive-Orig-${name}`, value]);
  }
  return out;
}
