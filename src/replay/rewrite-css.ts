/**
 * CSS made to load from the archive: `url(...)` (images, fonts) and `@import` (stylesheets),
 * the two places a stylesheet names URLs, found by pattern as pywb and wabac.js find them.
 * Works on text read as latin1, so the stylesheet's bytes are kept whatever its charset.
 */
import { replaceCssUrls } from './css-urls.js';
import { rewriteUrl, type RewriteContext } from './url-rewriter.js';

const IMPORT = /@import\s+(["'])(.*?)\1/gi;

/** The stylesheet (or a style attribute, a <style> element) with its URLs rewritten. */
export function rewriteCss(css: string, ctx: RewriteContext): string {
  if (!css.includes('url(') && !css.includes('URL(') && !css.includes('@import')) return css;
  return replaceCssUrls(css, (whole, q, value) => {
    const out = rewriteUrl(value, 'im_', ctx);
    return out === undefined ? whole : `url(${q ?? ''}${out}${q ?? ''})`;
  }).replace(IMPORT, (whole, q: string, value: string) => {
    if (value.startsWith('/replay/')) return whole;
    const out = rewriteUrl(value, 'cs_', ctx);
    return out === undefined ? whole : `@import ${q}${out}${q}`;
  });
}
