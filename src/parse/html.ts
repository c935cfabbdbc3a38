/**
 * HTML to what the index needs, streaming (html-scanner.ts, fed chunk by chunk): title, visible
 * text (no script, style, template or noscript content), meta description and robots, and the
 * outlinks with their anchor text, resolved against `<base href>` as a browser resolves them.
 * Text past the limit is dropped, but links and meta are still read to the end of the input.
 */
import { HtmlScanner, type HtmlHandler } from './html-scanner.js';
import { isSpace, squash } from './squash.js';
import { UrlResolver } from './url-resolver.js';

export interface Outlink {
  url: string;
  anchor: string;
}

export interface HtmlParse {
  title: string;
  text: string;
  description: string;
  outlinks: Outlink[];
  noindex: boolean;
  nofollow: boolean;
  /** The text was cut at the limit. */
  truncated: boolean;
  /** The language the page declares: `<html lang>`, else `<meta http-equiv=content-language>` ('' for none). */
  lang: string;
}

export interface HtmlOptions {
  /** The document's URL: relative links resolve against it (or its `<base href>`). */
  url: string;
  /** Characters of text kept. */
  textLimit: number;
  /** Outlinks kept (Nutch's db.max.outlinks.per.page; negative: all). */
  maxOutlinks: number;
}

const HIDDEN = new Set(['script', 'style', 'template', 'noscript', 'svg', 'math']);
/** Elements that end a run of words: text on either side must not run together. */
const BLOCK = new Set(['p', 'div', 'br', 'li', 'ul', 'ol', 'tr', 'td', 'th', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'section', 'article', 'header', 'footer', 'nav', 'aside', 'blockquote', 'pre', 'hr', 'dd', 'dt', 'dl', 'form', 'option', 'title', 'body', 'main', 'figure', 'figcaption', 'address', 'center']);
/** Link-bearing elements and attributes (as Nutch's DOMContentUtils, without images and scripts). */
const LINKS: Record<string, string> = { a: 'href', area: 'href', frame: 'src', iframe: 'src' };
/** Tags whose attributes are read: the links, and html, base and meta. */
const WITH_ATTRIBUTES = new Set(['html', 'base', 'meta', ...Object.keys(LINKS)]);
/** Characters of a title and of an anchor text kept before they are squashed. */
const TITLE_CHARS = 4096;
const ANCHOR_CHARS = 1024;

/** What feeds an extractor its events: the scanner, or (in tests) htmlparser2. */
export interface EventSource {
  write(chunk: string): void;
  end(): void;
}

/** Collects the parse of one HTML document; `write` decoded text, then `end`. */
export class HtmlExtractor implements HtmlHandler {
  private readonly source: EventSource;
  private readonly urls: UrlResolver;
  private hidden = 0;
  private inTitle = false;
  private title = '';
  private text: string[] = [];
  private textLength = 0;
  /** White space came after the last words pushed. */
  private spaceOwed = false;
  private truncated = false;
  private description = '';
  private noindex = false;
  private nofollow = false;
  private htmlLang = '';
  private metaLang = '';
  private readonly links: Outlink[] = [];
  private readonly seen = new Set<string>();
  /** Hrefs already resolved against the current base (pages repeat their links). */
  private readonly resolved = new Map<string, string | undefined>();
  /** The open `<a>` (or area/frame) whose anchor text is being collected. */
  private anchor: { url: string; text: string } | undefined;

  constructor(private readonly opts: HtmlOptions, source: (handler: HtmlHandler) => EventSource = (h) => new HtmlScanner(h)) {
    this.urls = new UrlResolver(opts.url);
    this.source = source(this);
  }

  write(chunk: string): void {
    this.source.write(chunk);
  }

  end(): HtmlParse {
    this.source.end();
    this.closeAnchor();
    return {
      title: squash(this.title).slice(0, 1024),
      text: this.text.join(''),
      description: squash(this.description).slice(0, 4096),
      outlinks: this.links,
      noindex: this.noindex,
      nofollow: this.nofollow,
      truncated: this.truncated,
      lang: (this.htmlLang || this.metaLang).trim().slice(0, 35),
    };
  }

  // HtmlHandler: text inside script, style and the like is dropped unless it is the title's.
  get wantsText(): boolean {
    return this.inTitle || this.hidden === 0;
  }

  wantsAttributes(name: string): boolean {
    return WITH_ATTRIBUTES.has(name);
  }

  onOpen(name: string, attrs: Record<string, string>): void {
    if (name === 'title' && !this.title) this.inTitle = true;
    if (name === 'html' && attrs.lang && !this.htmlLang) this.htmlLang = attrs.lang;
    if (HIDDEN.has(name)) this.hidden++;
    if (name === 'base' && attrs.href) {
      const b = this.resolve(attrs.href);
      if (b) {
        this.urls.setBase(b);
        this.resolved.clear();
      }
    } else if (name === 'meta') {
      this.meta(attrs);
    }
    if (BLOCK.has(name)) this.addText(' ');
    const attr = LINKS[name];
    // Past db.max.outlinks.per.page links are not resolved at all (pages of thousands of links).
    if (attr && attrs[attr] !== undefined && !this.linksFull()) {
      const url = this.resolve(attrs[attr]);
      if (url) {
        if (name === 'a') {
          this.closeAnchor();
          this.anchor = { url, text: '' };
        } else this.addLink(url, attrs.alt ?? attrs.title ?? '');
      }
    }
  }

  onClose(name: string): void {
    if (name === 'title') this.inTitle = false;
    if (HIDDEN.has(name) && this.hidden > 0) this.hidden--;
    if (name === 'a') this.closeAnchor();
    if (BLOCK.has(name)) this.addText(' ');
  }

  onText(t: string): void {
    // The caps are exact, whatever pieces the text came in.
    if (this.inTitle) {
      if (this.title.length < TITLE_CHARS) this.title += t.slice(0, TITLE_CHARS - this.title.length);
      return;
    }
    if (this.hidden > 0) return;
    if (this.anchor && this.anchor.text.length < ANCHOR_CHARS) this.anchor.text += t.slice(0, ANCHOR_CHARS - this.anchor.text.length);
    this.addText(t);
  }

  private addText(t: string): void {
    if (this.truncated) return;
    const room = this.opts.textLimit - this.textLength;
    if (t.length > room) {
      this.push(t.slice(0, room));
      this.textLength += room;
      this.truncated = true;
      return;
    }
    this.push(t);
    this.textLength += t.length;
  }

  /**
   * Text squashed as it comes (the limit counts it as it came): the pieces joined are what
   * squashing their join gives, without building the unsquashed whole (pages are indented).
   */
  private push(raw: string): void {
    if (!raw) return;
    const core = squash(raw);
    if (!core) {
      this.spaceOwed = true;
      return;
    }
    if ((this.spaceOwed || isSpace(raw.charCodeAt(0))) && this.text.length) this.text.push(' ');
    this.text.push(core);
    this.spaceOwed = isSpace(raw.charCodeAt(raw.length - 1));
  }

  private meta(attrs: Record<string, string>): void {
    const name = (attrs.name ?? '').toLowerCase();
    const content = attrs.content ?? '';
    if (name === 'robots') {
      const words = content.toLowerCase().split(/[\s,]+/);
      if (words.includes('noindex') || words.includes('none')) this.noindex = true;
      if (words.includes('nofollow') || words.includes('none')) this.nofollow = true;
    } else if (name === 'description' && !this.description) {
      this.description = content;
    } else if ((attrs['http-equiv'] ?? '').toLowerCase() === 'content-language' && !this.metaLang) {
      this.metaLang = content;
    }
  }

  private closeAnchor(): void {
    if (!this.anchor) return;
    this.addLink(this.anchor.url, this.anchor.text);
    this.anchor = undefined;
  }

  private linksFull(): boolean {
    return this.opts.maxOutlinks >= 0 && this.links.length >= this.opts.maxOutlinks;
  }

  private addLink(url: string, anchor: string): void {
    if (this.linksFull()) return;
    const text = squash(anchor);
    const id = `${url} ${text}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.links.push({ url, anchor: text });
  }

  /** An absolute http(s) URL without its fragment, or undefined. */
  private resolve(href: string): string | undefined {
    let h = href.trim();
    // The fragment goes before parsing: a '#' always starts it.
    const hash = h.indexOf('#');
    if (hash >= 0) h = h.slice(0, hash);
    if (!h || /^(javascript|mailto|data|tel):/i.test(h)) return undefined;
    if (this.resolved.has(h)) return this.resolved.get(h);
    let out = this.urls.resolve(h);
    if (out !== undefined && !out.startsWith('http:') && !out.startsWith('https:')) out = undefined;
    this.resolved.set(h, out);
    return out;
  }
}
