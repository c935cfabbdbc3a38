/**
 * The resources a page names in its markup (images, scripts, stylesheets, frames, media, and
 * the url()s of its style attributes and elements), as absolute URLs: what the coherence
 * report looks up. Scripts may load more; those the browser reports (banner.js).
 */
import { HtmlScanner } from '../parse/html-scanner.js';
import { replaceCssUrls } from './css-urls.js';

const SRC: Record<string, string[]> = {
  img: ['src'],
  script: ['src'],
  iframe: ['src'],
  frame: ['src'],
  embed: ['src'],
  source: ['src'],
  video: ['src', 'poster'],
  audio: ['src'],
  track: ['src'],
  input: ['src'],
  object: ['data'],
  body: ['background'],
  table: ['background'],
  td: ['background'],
};

/** The attributes read of a tag, made once per tag name (a page asks for every tag it opens). */
const WANTED = new Map<string, string[]>();
function wantsAttributes(name: string): string[] {
  let w = WANTED.get(name);
  if (!w) {
    w = [...(SRC[name] ?? []), ...(name === 'link' ? ['rel', 'href'] : name === 'base' ? ['href'] : []), 'srcset', 'style'];
    if (WANTED.size < 1024) WANTED.set(name, w);
  }
  return w;
}

export function resourceUrls(html: string, base: string): string[] {
  const found = new Set<string>();
  let baseUrl = base;
  const add = (v: string | undefined) => {
    if (!v || /^(data|blob|javascript|about|mailto):/i.test(v.trim())) return;
    try {
      const u = new URL(v.trim(), baseUrl);
      if (/^https?:$/.test(u.protocol)) found.add(u.href.replace(/#.*$/, ''));
    } catch {
      // not a URL
    }
  };
  const css = (text: string) => {
    // The url()s the replay rewrites, found as it finds them (css-urls.ts: a regular expression
    // of its own here was quadratic in a run of `url(` without a `)`).
    replaceCssUrls(text, (whole, _q, value) => {
      add(value);
      return whole;
    });
    for (const m of text.matchAll(/@import\s+["']([^"']+)["']/gi)) add(m[1]);
  };
  // nwax's HTML scanner (htmlparser2's events at a fraction of its cost: an export reads every
  // page for what it embeds): only the attributes that name resources are sliced.
  let inStyle = false;
  const scanner = new HtmlScanner({
    get wantsText() {
      return inStyle;
    },
    wantsAttributes,
    onOpen(name, attrs) {
      if (name === 'base' && attrs.href) {
        try {
          baseUrl = new URL(attrs.href, base).href;
        } catch {
          // keep the page's URL
        }
      }
      for (const a of SRC[name] ?? []) add(attrs[a]);
      if (name === 'link' && /stylesheet|icon/i.test(attrs.rel ?? '')) add(attrs.href);
      if (attrs.srcset) for (const c of attrs.srcset.split(',')) add(c.trim().split(/\s+/)[0]);
      if (attrs.style) css(attrs.style);
      if (name === 'style') inStyle = true;
    },
    onText(text, start, end) {
      if (inStyle) css(text.slice(start, end));
    },
    onClose(name) {
      if (name === 'style') inStyle = false;
    },
  });
  scanner.write(html);
  scanner.end();
  found.delete(base);
  return [...found];
}
