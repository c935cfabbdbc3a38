/**
 * The resources a page names in its markup (images, scripts, stylesheets, frames, media, and
 * the url()s of its style attributes and elements), as absolute URLs: what the coherence
 * report looks up. Scripts may load more; those the browser reports (banner.js).
 */
import { HtmlScanner } from '../parse/html-scanner.js';
import { eventString, nativeResources, type NativeHtml } from '../parse/native-html.js';
import { EV_BASE, EV_FIELDS, EV_RESOURCE, EV_SRCSET, EV_STYLE, EV_STYLESHEET } from '../native/shared.js';
import { replaceCssUrls } from './css-urls.js';

/** The attributes naming a resource, by tag (native/html-extract.c's RESOURCE_TAGS: the same). */
const SRC = new Map<string, string[]>([
  ['img', ['src']],
  ['script', ['src']],
  ['iframe', ['src']],
  ['frame', ['src']],
  ['embed', ['src']],
  ['source', ['src']],
  ['video', ['src', 'poster']],
  ['audio', ['src']],
  ['track', ['src']],
  ['input', ['src']],
  ['object', ['data']],
  ['body', ['background']],
  ['table', ['background']],
  ['td', ['background']],
]);

/** The attributes read of a tag, made once per tag name (a page asks for every tag it opens). */
const WANTED = new Map<string, string[]>();
function wantsAttributes(name: string): string[] {
  let w = WANTED.get(name);
  if (!w) {
    w = [...(SRC.get(name) ?? []), ...(name === 'link' ? ['rel', 'href'] : name === 'base' ? ['href'] : []), 'srcset', 'style'];
    if (WANTED.size < 1024) WANTED.set(name, w);
  }
  return w;
}

/**
 * References resolved before, by the base's directory and the reference: a site's pages name
 * the same stylesheets, scripts and images, and a URL parse cost more than the native scan of
 * what named them (an export resolves every page's). Only a reference whose result depends on
 * the base through its directory alone is kept: one that starts with neither `?` nor `#` (the
 * base's last segment and query count for those) nor a character the URL parser strips.
 */
const RESOLVED = new Map<string, string | null>();
const RESOLVED_MAX = 50_000;

/** An http(s) URL's href up to the last `/` of its path (what a relative reference's resolution reads of it); undefined for another. */
function directoryOf(href: string): string | undefined {
  if (!/^https?:\/\//.test(href)) return undefined;
  let end = href.length;
  const query = href.indexOf('?');
  const fragment = href.indexOf('#');
  if (query >= 0) end = query;
  if (fragment >= 0 && fragment < end) end = fragment;
  return href.slice(0, href.lastIndexOf('/', end - 1) + 1);
}

/** `ref` resolved against `base`: its http(s) URL without the fragment, or null. */
function resolve(ref: string, base: string): string | null {
  try {
    const u = new URL(ref, base);
    return /^https?:$/.test(u.protocol) ? u.href.replace(/#.*$/, '') : null;
  } catch {
    return null; // not a URL
  }
}

/** What a page names, gathered: URLs resolved against its base (a <base href> changes it) and kept once. */
class Found {
  readonly urls = new Set<string>();
  private baseUrl: string;
  /** The base's directory (directoryOf), '' before it is needed, undefined where references are not kept. */
  private directory: string | undefined = '';

  constructor(private readonly page: string) {
    this.baseUrl = page;
  }

  base(href: string | undefined): void {
    if (!href) return;
    try {
      this.baseUrl = new URL(href, this.page).href;
      this.directory = '';
    } catch {
      // keep the page's URL
    }
  }

  add(v: string | undefined): void {
    if (!v || /^(data|blob|javascript|about|mailto):/i.test(v.trim())) return;
    const ref = v.trim();
    const first = ref.charCodeAt(0);
    if (this.directory === '') this.directory = directoryOf(resolve(this.baseUrl, this.baseUrl) ?? '');
    if (this.directory === undefined || !(first > 0x20) || first === 0x3f || first === 0x23) {
      const url = resolve(ref, this.baseUrl);
      if (url !== null) this.urls.add(url);
      return;
    }
    const key = `${this.directory}\u0000${ref}`;
    let url = RESOLVED.get(key);
    if (url === undefined) {
      url = resolve(ref, this.baseUrl);
      if (RESOLVED.size >= RESOLVED_MAX) RESOLVED.clear();
      RESOLVED.set(key, url);
    }
    if (url !== null) this.urls.add(url);
  }

  /** A <link>: a stylesheet's or an icon's href. */
  link(href: string | undefined, rel: string | undefined): void {
    if (/stylesheet|icon/i.test(rel ?? '')) this.add(href);
  }

  srcset(v: string): void {
    for (const c of v.split(',')) this.add(c.trim().split(/\s+/)[0]);
  }

  css(text: string): void {
    // The url()s the replay rewrites, found as it finds them (css-urls.ts: a regular expression
    // of its own here was quadratic in a run of `url(` without a `)`).
    replaceCssUrls(text, (whole, _q, value) => {
      this.add(value);
      return whole;
    });
    for (const m of text.matchAll(/@import\s+["']([^"']+)["']/gi)) this.add(m[1]);
  }
}

/** What the extractor's resources mode returns. */
type ResourceEvents = Pick<NativeHtml, 'events' | 'pool'>;

/** The extractor's resource events replayed, in document order (native/html-extract.c's resources mode). */
function fromEvents(r: ResourceEvents, found: Found): void {
  const ev = r.events;
  for (let i = 0; i < ev.length; i += EV_FIELDS) {
    const value = eventString(r, i, 0);
    switch (ev[i]) {
      case EV_BASE:
        found.base(value);
        break;
      case EV_RESOURCE:
        found.add(value);
        break;
      case EV_STYLESHEET:
        found.link(value, eventString(r, i, 1));
        break;
      case EV_SRCSET:
        if (value) found.srcset(value);
        break;
      case EV_STYLE:
        if (value) found.css(value);
        break;
    }
  }
}

/** The same found by nwax's HTML scanner: only the attributes that name resources are sliced. */
function fromScanner(html: string, found: Found): void {
  let inStyle = false;
  const scanner = new HtmlScanner({
    get wantsText() {
      return inStyle;
    },
    wantsAttributes,
    onOpen(name, attrs) {
      if (name === 'base') found.base(attrs.href);
      for (const a of SRC.get(name) ?? []) found.add(attrs[a]);
      if (name === 'link') found.link(attrs.href, attrs.rel);
      if (attrs.srcset) found.srcset(attrs.srcset);
      if (attrs.style) found.css(attrs.style);
      if (name === 'style') inStyle = true;
    },
    onText(text, start, end) {
      if (inStyle) found.css(text.slice(start, end));
    },
    onClose(name) {
      if (name === 'style') inStyle = false;
    },
  });
  scanner.write(html);
  scanner.end();
}

/**
 * The resources `html` embeds (its text, or its bytes read as latin1), as absolute URLs. An export reads every page for them: the
 * addon's extractor reads a page in one call where it is built (a tenth of the scanner's time),
 * the scanner reads the pages it hands back (SVG, MathML, names that are not ASCII).
 */
export function resourceUrls(html: string | Buffer, base: string, opts: { native?: boolean } = {}): string[] {
  const found = new Found(base);
  const native = opts.native !== false ? nativeResources?.(html) : undefined;
  if (native) fromEvents(native, found);
  else fromScanner(typeof html === 'string' ? html : html.toString('latin1'), found);
  found.urls.delete(base);
  return [...found.urls];
}
