/**
 * An archived HTML page rewritten as a stream, so that what it loads comes from the archive:
 * the URL attributes of each tag (the table below, after wabac.js's), `srcset`, `style`
 * attributes and `<style>` elements (rewrite-css.ts), `<base href>`, meta refresh; archived
 * `integrity` and CSP meta tags disarmed (a rewritten resource no longer matches its hash, and
 * an archived policy would block the archive itself). The client-side shim (static/replay/
 * shim.js) is put at the start of the head.
 *
 * parse5's tokenizer (parse5-html-rewriting-stream, as wabac.js uses) re-emits every token it is
 * not asked to change as its source text, and a changed tag is spliced: only the changed
 * attributes are written anew. The bytes are read as latin1 and written back as latin1, so the
 * page keeps its own bytes, whatever its charset. Memory is bounded by the largest tag and a
 * `<style>` element (held to rewrite it whole, up to 4 MiB; past that it passes unchanged).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { RewritingStream } from 'parse5-html-rewriting-stream';
import type { StartTag } from 'parse5-sax-parser';
import type { Modifier } from './archival-url.js';
import { rewriteCss } from './rewrite-css.js';
import { absoluteUrl, rewriteUrl, type RewriteContext } from './url-rewriter.js';

/** Attributes that hold URLs, by tag, and the modifier their archival URL gets. */
const URL_ATTRS: Record<string, Record<string, Modifier>> = {
  a: { href: 'mp_' }, area: { href: 'mp_' }, base: { href: 'mp_' },
  form: { action: 'mp_' }, button: { formaction: 'mp_' }, input: { src: 'im_', formaction: 'mp_' },
  img: { src: 'im_', srcset: 'im_', longdesc: 'mp_' }, picture: {}, source: { src: 'oe_', srcset: 'im_' },
  video: { src: 'oe_', poster: 'im_' }, audio: { src: 'oe_' }, track: { src: 'oe_' }, embed: { src: 'oe_' },
  object: { data: 'oe_', codebase: 'oe_' }, applet: { code: 'oe_', codebase: 'oe_', archive: 'oe_' },
  script: { src: 'js_' }, iframe: { src: 'if_' }, frame: { src: 'fr_' }, link: { href: 'oe_' },
  body: { background: 'im_' }, table: { background: 'im_' }, td: { background: 'im_' }, th: { background: 'im_' },
  blockquote: { cite: 'mp_' }, q: { cite: 'mp_' }, ins: { cite: 'mp_' }, del: { cite: 'mp_' },
  image: { href: 'im_', 'xlink:href': 'im_' }, use: { href: 'im_', 'xlink:href': 'im_' },
};

/** A stylesheet link's href is a stylesheet; an icon's an image; a preload's what it says. */
function linkModifier(tag: StartTag): Modifier {
  const rel = (attr(tag, 'rel') ?? '').toLowerCase();
  if (/\bstylesheet\b/.test(rel)) return 'cs_';
  if (/\bicon\b|apple-touch/.test(rel)) return 'im_';
  if (/\bmodulepreload\b/.test(rel)) return 'js_';
  const as = (attr(tag, 'as') ?? '').toLowerCase();
  return as === 'script' ? 'js_' : as === 'style' ? 'cs_' : as === 'image' ? 'im_' : 'oe_';
}

function attr(tag: StartTag, name: string): string | undefined {
  return tag.attrs.find((a) => a.name === name)?.value;
}

const MAX_STYLE = 4 << 20;

interface Change {
  start: number;
  end: number;
  text: string;
}

/** One attribute's source text split into name, `=`, quote and value. */
function splitAttr(raw: string): { name: string; quote: string; value: string } | undefined {
  const m = /^([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*))$/s.exec(raw);
  if (!m) return undefined;
  return m[2] !== undefined ? { name: m[1], quote: '"', value: m[2] } : m[3] !== undefined ? { name: m[1], quote: "'", value: m[3] } : { name: m[1], quote: '', value: m[4] };
}

function quoted(quote: string, value: string): string {
  const q = quote || '"';
  return `${q}${q === '"' ? value.replace(/"/g, '&quot;') : value}${q}`;
}

export class HtmlRewriter extends Transform {
  private readonly rs = new RewritingStream();
  private readonly ctx: RewriteContext;
  private inserted = false;
  private inStyle = false;
  private style = '';
  private styleOverflow = false;

  /** `headInsert`: the markup put at the start of the head (the shim's script tag). */
  constructor(ctx: RewriteContext, private readonly headInsert: string) {
    super();
    this.ctx = { ...ctx, html: true };
    this.rs.on('data', (s: string) => this.push(Buffer.from(s, 'latin1')));
    this.rs.on('startTag', (tag, raw) => this.startTag(tag, raw));
    this.rs.on('endTag', (tag, raw) => {
      if (this.inStyle && tag.tagName === 'style') this.flushStyle();
      this.rs.emitRaw(raw);
    });
    this.rs.on('text', (_t, raw) => this.text(raw));
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.rs.write(chunk.toString('latin1'));
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    this.rs.once('error', done);
    this.rs.once('end', () => {
      // An unclosed <style> at the end, and a page with no content at all (it still gets the shim).
      if (this.inStyle) this.push(Buffer.from(this.styleOverflow ? this.style : rewriteCss(this.style, { ...this.ctx, html: false }), 'latin1'));
      if (!this.inserted) this.push(Buffer.from(this.headInsert, 'latin1'));
      done();
    });
    this.rs.end();
  }

  private insert(): void {
    if (this.inserted) return;
    this.inserted = true;
    this.rs.emitRaw(this.headInsert);
  }

  private text(raw: string): void {
    if (this.inStyle) {
      if (this.styleOverflow) return this.rs.emitRaw(raw);
      this.style += raw;
      if (this.style.length > MAX_STYLE) {
        // Too large to hold: what came passes unchanged.
        this.styleOverflow = true;
        this.rs.emitRaw(this.style);
        this.style = '';
      }
      return;
    }
    if (!this.inserted && /\S/.test(raw)) this.insert();
    this.rs.emitRaw(raw);
  }

  private flushStyle(): void {
    this.rs.emitRaw(this.styleOverflow ? this.style : rewriteCss(this.style, { ...this.ctx, html: false }));
    this.style = '';
    this.inStyle = false;
    this.styleOverflow = false;
  }

  private startTag(tag: StartTag, raw: string): void {
    const name = tag.tagName;
    if (!this.inserted && name !== 'html') {
      if (name === 'head') {
        this.rs.emitRaw(this.rewriteTag(tag, raw));
        this.insert();
        return;
      }
      this.insert();
    }
    this.rs.emitRaw(this.rewriteTag(tag, raw));
    if (name === 'style' && !tag.selfClosing) this.inStyle = true;
  }

  /** The tag's source with its URL attributes rewritten (unchanged when there are none). */
  private rewriteTag(tag: StartTag, raw: string): string {
    // A start tag's location holds its attributes' (parse5's LocationWithAttributes).
    const loc = tag.sourceCodeLocation as (typeof tag.sourceCodeLocation & { attrs?: Record<string, { startOffset: number; endOffset: number }> }) | undefined;
    if (!loc?.attrs || tag.attrs.length === 0) return raw;
    const table = URL_ATTRS[tag.tagName];
    const changes: Change[] = [];
    for (const a of tag.attrs) {
      const at = loc.attrs[a.name];
      if (!at) continue;
      const start = at.startOffset - loc.startOffset!;
      const end = at.endOffset - loc.startOffset!;
      const parts = splitAttr(raw.slice(start, end));
      if (!parts) continue;
      const out = this.rewriteAttr(tag, a.name, parts.value, table);
      if (out !== undefined) changes.push({ start, end, text: out === null ? `_${raw.slice(start, end)}` : `${parts.name}=${quoted(parts.quote, out)}` });
    }
    if (!changes.length) return raw;
    let s = '';
    let at = 0;
    for (const c of changes.sort((x, y) => x.start - y.start)) {
      s += raw.slice(at, c.start) + c.text;
      at = c.end;
    }
    return s + raw.slice(at);
  }

  /** The new raw value; undefined: unchanged; null: the attribute disarmed (renamed `_name`). */
  private rewriteAttr(tag: StartTag, name: string, raw: string, table: Record<string, Modifier> | undefined): string | null | undefined {
    if (name === 'style') return rewriteCss(raw, this.ctx);
    if (name === 'integrity' || name === 'nonce') return null;
    if (tag.tagName === 'meta') return this.metaAttr(tag, name, raw);
    if (name === 'srcset') return raw.split(/,(?=\s)|,(?=[^\s,]+(?:\s|$))/).map((c) => {
      const m = /^(\s*)(\S+)(.*)$/s.exec(c);
      const out = m ? rewriteUrl(m[2], 'im_', this.ctx) : undefined;
      return m && out !== undefined ? m[1] + out + m[3] : c;
    }).join(',');
    const mod = tag.tagName === 'link' && name === 'href' ? linkModifier(tag) : table?.[name];
    if (!mod) return undefined;
    const out = rewriteUrl(raw, mod, this.ctx);
    if (tag.tagName === 'base' && name === 'href') {
      // Later relative URLs resolve against the archived base.
      const abs = absoluteUrl(raw.replace(/&amp;/g, '&'), this.ctx.base);
      if (abs) this.ctx.base = abs;
    }
    return out;
  }

  private metaAttr(tag: StartTag, name: string, raw: string): string | null | undefined {
    const equiv = (attr(tag, 'http-equiv') ?? '').toLowerCase();
    if (name === 'http-equiv' && /^content-security-policy/.test(equiv)) return `x-archive-orig-${raw}`;
    if (name === 'content' && equiv === 'refresh') {
      const m = /^(\s*[\d.]*\s*[;,]\s*(?:url\s*=\s*)?)(["']?)(.*?)\2\s*$/is.exec(raw);
      const out = m ? rewriteUrl(m[3], 'mp_', this.ctx) : undefined;
      return m && out !== undefined ? `${m[1]}${m[2]}${out}${m[2]}` : undefined;
    }
    return undefined;
  }
}
