/**
 * HTML to what the index needs, streaming (html-scanner.ts, fed chunk by chunk): title, visible
 * text (no script, style, template or noscript content), meta description and robots, and the
 * outlinks with their anchor text, resolved against `<base href>` as a browser resolves them.
 * Text past the limit is dropped, but links and meta are still read to the end of the input.
 */
import { HtmlScanner, type HtmlHandler } from './html-scanner.js';
import { decodeUtf8Page, eventString, nativeHtml, nativeHtmlUtf8, type NativeHtml } from './native-html.js';
import { EV_A, EV_BASE, EV_CLOSE_A, EV_FIELDS, EV_IMG, EV_LINK, EV_META, TITLE_CHARS } from '../native/shared.js';
import { TAGS_WITH } from '../native/html-names.js';
import { squash, squashText } from './squash.js';
import { UrlResolver } from './url-resolver.js';

export interface Outlink {
  url: string;
  anchor: string;
}

/**
 * An image the page shows (`<img src>`) and the words that say what it is: its alt text (else
 * its title), then the words of the page's text around it (a caption, the sentence it stands
 * in). invertlinks gives them to the image as anchor text, so an image is found by the words
 * of the pages that show it.
 */
export interface PageImage {
  url: string;
  anchor: string;
}

export interface HtmlParse {
  title: string;
  text: string;
  description: string;
  outlinks: Outlink[];
  /** The images the page shows, each once, with the words around them (none past `maxImages`). */
  images: PageImage[];
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
  /** Images kept with their words (nwax.parse.images.max; default IMAGES_KEPT). */
  maxImages?: number;
}

/** Images kept per page where the options do not say. */
export const IMAGES_KEPT = 50;
/** Words of the page's text kept on each side of an image. */
export const IMAGE_CONTEXT_WORDS = 10;
/** Characters of an image's alt (or title) text kept. */
const ALT_CHARS = 256;

const HIDDEN = new Set(TAGS_WITH.hidden);
/** Elements that end a run of words: text on either side must not run together. */
const BLOCK = new Set(TAGS_WITH.block);
/** Link-bearing elements and attributes (as Nutch's DOMContentUtils, without images and scripts). */
const LINKS: Record<string, string> = Object.fromEntries([...TAGS_WITH.linkHref.map((t) => [t, 'href']), ...TAGS_WITH.linkSrc.map((t) => [t, 'src'])]);
/** The attributes read, by tag: the links' (with their text for an area or frame), and html's, base's and meta's. */
const ATTRIBUTES = new Map<string, readonly string[]>([
  ['html', ['lang']],
  ['base', ['href']],
  ['meta', ['name', 'content', 'http-equiv']],
  ['img', ['src', 'alt', 'title']],
  ...Object.entries(LINKS).map(([tag, attr]) => [tag, [attr, 'alt', 'title']] as [string, string[]]),
]);
/**
 * What a tag is to the extractor, as bits, looked up once per event: most tags (span, b, img...)
 * are none of these, and an event then costs one Map lookup, not six Set lookups.
 */
const enum Role {
  Hidden = 1,
  Block = 2,
  Link = 4,
  Other = 8,
}
const ROLES = new Map<string, number>();
for (const t of HIDDEN) ROLES.set(t, Role.Hidden);
for (const t of BLOCK) ROLES.set(t, (ROLES.get(t) ?? 0) | Role.Block);
for (const t of Object.keys(LINKS)) ROLES.set(t, (ROLES.get(t) ?? 0) | Role.Link);
for (const t of TAGS_WITH.other) ROLES.set(t, (ROLES.get(t) ?? 0) | Role.Other);

/** Characters of an anchor text kept before it is squashed (a title's: TITLE_CHARS, which the extractor shares). */
const ANCHOR_CHARS = 1024;
/**
 * Characters of a document held for the native extractor, which reads a document whole; past
 * this the chunks go to the scanner as they come (the same parse, streaming). As much as
 * nwax.import.parse.bytes gives by default: at 4 Mi, the bench corpus's largest pages went to
 * the scanner, a few pages for 2.7% of a map task. The bound stays whatever that property
 * says: held, a document costs this many characters and their UTF-16 in the addon.
 */
export const NATIVE_CHARS = 16 * 1024 * 1024;

/** White space as squash.ts sees it (a JS regex's `\s`). */
const SPACE = /\s/;

/**
 * An image's words: its alt text, then up to IMAGE_CONTEXT_WORDS words of `text` before offset
 * `at` and as many after it, squashed. White space alone separates the words, so the text as it
 * came and the squashed text give the same words around the same place.
 */
export function imageWords(alt: string, text: string, at: number): string {
  let start = at;
  for (let words = 0; words < IMAGE_CONTEXT_WORDS; words++) {
    while (start > 0 && SPACE.test(text[start - 1])) start--;
    if (start === 0) break;
    while (start > 0 && !SPACE.test(text[start - 1])) start--;
  }
  let end = at;
  for (let words = 0; words < IMAGE_CONTEXT_WORDS; words++) {
    while (end < text.length && SPACE.test(text[end])) end++;
    if (end === text.length) break;
    while (end < text.length && !SPACE.test(text[end])) end++;
  }
  return squash(`${alt} ${text.slice(start, at)} ${text.slice(at, end)}`);
}

/** What feeds an extractor its events: the scanner, or (in tests) htmlparser2. */
export interface EventSource {
  write(chunk: string): void;
  end(): void;
}

/**
 * Collects the parse of one HTML document; `write` decoded text, then `end`. Read by the native
 * extractor where the addon is built and no `source` is given, else by that source's events
 * (the scanner's by default).
 */
export class HtmlExtractor implements HtmlHandler {
  private source: EventSource | undefined;
  private readonly makeSource: (handler: HtmlHandler) => EventSource;
  /** The document so far, held for the native extractor (undefined: read by `source`). */
  private held: string[] | undefined;
  private heldLength = 0;
  private readonly urls: UrlResolver;
  private hidden = 0;
  private inTitle = false;
  private title = '';
  /** The visible text as it came, in pieces (squashed once, at the end). */
  private text: string[] = [];
  private textLength = 0;
  private truncated = false;
  private description = '';
  private noindex = false;
  private nofollow = false;
  private htmlLang = '';
  private metaLang = '';
  private readonly links: Outlink[] = [];
  /**
   * The anchors of each URL so far (one, or a Set of several): a link is kept once per URL and
   * anchor. Keyed by the URL, whose hash its string keeps (a page's repeated hrefs resolve to
   * the same string), rather than by a new `URL anchor` string to copy and hash per link.
   */
  private readonly seen = new Map<string, string | Set<string>>();
  /** Hrefs already resolved against the current base (pages repeat their links). */
  private readonly resolved = new Map<string, string | undefined>();
  /** The images so far: URL, alt text and where in the text (as it came, unsquashed) the image stands. */
  private readonly imageList: { url: string; alt: string; at: number }[] = [];
  private readonly imageUrls = new Set<string>();
  /** The open `<a>` (or area/frame) whose anchor text is being collected. */
  private anchor: { url: string; text: string } | undefined;

  constructor(
    private readonly opts: HtmlOptions,
    source?: (handler: HtmlHandler) => EventSource,
  ) {
    this.urls = new UrlResolver(opts.url);
    this.makeSource = source ?? ((h) => new HtmlScanner(h));
    if (!source && nativeHtml) this.held = [];
    else this.source = this.makeSource(this);
  }

  write(chunk: string): void {
    if (!this.held) {
      this.source!.write(chunk);
      return;
    }
    this.held.push(chunk);
    this.heldLength += chunk.length;
    if (this.heldLength > NATIVE_CHARS) this.stream();
  }

  /** Whether the whole document may come as UTF-8 bytes (endUtf8): the native extractor reads it, and no text came yet. */
  get takesUtf8(): boolean {
    return nativeHtmlUtf8 !== undefined && this.held !== undefined && this.heldLength === 0;
  }

  /**
   * `end` for a document given whole as bytes instead of `write`: ASCII up to `bomAt`, UTF-8
   * from there (native-html.ts's nativeHtmlUtf8). A document the native extractor hands back
   * is decoded here and read by the scanner.
   */
  endUtf8(bytes: Buffer, bomAt: number): HtmlParse {
    const r = nativeHtmlUtf8!(bytes, bomAt, this.opts.textLimit);
    if (r) return this.replay(r);
    this.held = [decodeUtf8Page(bytes, bomAt)];
    this.stream();
    return this.end();
  }

  /** From the native extractor to the scanner: what was held, then every chunk as it comes. */
  private stream(): void {
    const held = this.held ?? [];
    this.held = undefined;
    this.source = this.makeSource(this);
    for (const chunk of held) this.source.write(chunk);
  }

  end(): HtmlParse {
    if (this.held) {
      const html = this.held.join('');
      const r = nativeHtml!(html, this.opts.textLimit);
      if (r) return this.replay(r);
      this.held = [html];
      this.stream();
    }
    this.source!.end();
    this.closeAnchor();
    const raw = this.text.join('');
    return this.result(squashText(raw), raw);
  }

  /** `text`: the page's text, squashed; `around`: the text the images' offsets point into (squashed or not: the words are the same). */
  private result(text: string, around: string): HtmlParse {
    return {
      title: squash(this.title).slice(0, 1024),
      text,
      description: squash(this.description).slice(0, 4096),
      outlinks: this.links,
      images: this.imageList.map((i) => ({ url: i.url, anchor: imageWords(i.alt, around, i.at) })),
      noindex: this.noindex,
      nofollow: this.nofollow,
      truncated: this.truncated,
      lang: (this.htmlLang || this.metaLang).trim().slice(0, 35),
    };
  }

  /**
   * The native extractor's parse, its link, base and meta events replayed in document order
   * as onOpen and onClose would have acted on them.
   */
  private replay(r: NativeHtml): HtmlParse {
    const ev = r.events;
    let anchorStart = 0;
    const closeAnchor = (end: number): void => {
      if (!this.anchor) return;
      this.anchor.text = r.anchors.slice(anchorStart, Math.min(end, anchorStart + ANCHOR_CHARS));
      this.closeAnchor();
    };
    for (let i = 0; i < ev.length; i += EV_FIELDS) {
      const kind = ev[i];
      if (kind === EV_CLOSE_A) {
        closeAnchor(ev[i + 7]);
      } else if (kind === EV_META) {
        const attrs: Record<string, string> = {};
        for (const [k, name] of ['name', 'content', 'http-equiv'].entries()) {
          const v = eventString(r, i, k);
          if (v !== undefined) attrs[name] = v;
        }
        this.meta(attrs);
      } else if (kind === EV_BASE) {
        const b = this.resolve(eventString(r, i, 0)!);
        if (b) {
          this.urls.setBase(b);
          this.resolved.clear();
        }
      } else if (kind === EV_IMG) {
        // The offset is into the squashed text: the words around it are the same.
        const url = this.imagesFull() ? undefined : this.resolve(eventString(r, i, 0)!);
        if (url) this.addImage(url, eventString(r, i, 1) ?? eventString(r, i, 2) ?? '', ev[i + 7]);
      } else if (!this.linksFull()) {
        const url = this.resolve(eventString(r, i, 0)!);
        if (!url) continue;
        if (kind === EV_A) {
          closeAnchor(ev[i + 7]);
          this.anchor = { url, text: '' };
          anchorStart = ev[i + 7];
        } else if (kind === EV_LINK) {
          this.addLink(url, eventString(r, i, 1) ?? '');
        }
      }
    }
    closeAnchor(r.anchors.length);
    this.title = r.title;
    this.htmlLang = r.lang;
    this.truncated = r.truncated;
    return this.result(r.text, r.text);
  }

  // HtmlHandler: text inside script, style and the like is dropped unless it is the title's.
  get wantsText(): boolean {
    return this.inTitle || this.hidden === 0;
  }

  wantsAttributes(name: string): readonly string[] | false {
    return ATTRIBUTES.get(name) ?? false;
  }

  onOpen(name: string, attrs: Record<string, string>): void {
    if (name === 'img') {
      // An image in hidden content (noscript's tracking pixel, a template) is not one the page shows.
      if (this.hidden === 0 && attrs.src !== undefined && !this.imagesFull()) {
        const url = this.resolve(attrs.src);
        if (url) this.addImage(url, attrs.alt ?? attrs.title ?? '', this.textLength);
      }
      return;
    }
    const role = ROLES.get(name);
    if (role === undefined) return;
    if (name === 'title' && !this.title) this.inTitle = true;
    if (name === 'html' && attrs.lang && !this.htmlLang) this.htmlLang = attrs.lang;
    if (role & Role.Hidden) this.hidden++;
    if (name === 'base' && attrs.href) {
      const b = this.resolve(attrs.href);
      if (b) {
        this.urls.setBase(b);
        this.resolved.clear();
      }
    } else if (name === 'meta') {
      this.meta(attrs);
    }
    if (role & Role.Block) this.blockEdge();
    if (!(role & Role.Link)) return;
    const attr = LINKS[name];
    // Past db.max.outlinks.per.page links are not resolved at all (pages of thousands of links).
    if (attrs[attr] !== undefined && !this.linksFull()) {
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
    const role = ROLES.get(name);
    if (role === undefined) return;
    if (name === 'title') this.inTitle = false;
    if (role & Role.Hidden && this.hidden > 0) this.hidden--;
    if (name === 'a') this.closeAnchor();
    if (role & Role.Block) this.blockEdge();
  }

  onText(s: string, start: number, end: number): void {
    // The caps are exact, whatever pieces the text came in.
    if (this.inTitle) {
      if (this.title.length < TITLE_CHARS) this.title += s.slice(start, Math.min(end, start + TITLE_CHARS - this.title.length));
      return;
    }
    if (this.hidden > 0) return;
    if (this.anchor && this.anchor.text.length < ANCHOR_CHARS)
      this.anchor.text += s.slice(start, Math.min(end, start + ANCHOR_CHARS - this.anchor.text.length));
    this.addText(s, start, end);
  }

  private addText(s: string, start: number, end: number): void {
    if (this.truncated) return;
    const room = this.opts.textLimit - this.textLength;
    if (end - start > room) {
      this.push(s, start, start + room);
      this.textLength += room;
      this.truncated = true;
      return;
    }
    this.push(s, start, end);
    this.textLength += end - start;
  }

  /** A block element's edge: a space, counted against the limit as the text is. */
  private blockEdge(): void {
    this.addText(' ', 0, 1);
  }

  /**
   * Text kept as it came, up to the limit, and squashed as a whole at the end: one pass of a
   * regular expression over the page's text, where squashing each piece (ten million of them
   * in the bench corpus, half of them indentation) was a quarter of the extraction.
   */
  private push(s: string, start: number, end: number): void {
    if (start < end) this.text.push(start === 0 && end === s.length ? s : s.slice(start, end));
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

  private imagesFull(): boolean {
    return this.imageList.length >= (this.opts.maxImages ?? IMAGES_KEPT);
  }

  /** An image, once per URL (its first place on the page, its first alt text). */
  private addImage(url: string, alt: string, at: number): void {
    if (this.imageUrls.has(url)) return;
    this.imageUrls.add(url);
    this.imageList.push({ url, alt: squash(alt.slice(0, ALT_CHARS)), at });
  }

  private linksFull(): boolean {
    return this.opts.maxOutlinks >= 0 && this.links.length >= this.opts.maxOutlinks;
  }

  private addLink(url: string, anchor: string): void {
    if (this.linksFull()) return;
    const text = squash(anchor);
    const had = this.seen.get(url);
    if (had === undefined) this.seen.set(url, text);
    else if (typeof had === 'string') {
      if (had === text) return;
      this.seen.set(url, new Set([had, text]));
    } else {
      if (had.has(text)) return;
      had.add(text);
    }
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
