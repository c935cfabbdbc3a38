/**
 * A streaming HTML scanner for text extraction: the events of htmlparser2's Parser (open tag
 * with attributes, close tag, text), with its tokenizer's rules and its tree rules (implied
 * closes, void elements, SVG and MathML contexts, `</p>` and `</br>`), at a fraction of its cost.
 *
 * Why not htmlparser2 itself: import spent half its time in it (profile of the bench corpus),
 * tokenizing every byte of every script, and building an attribute object for every tag. This
 * scanner jumps with indexOf and a regex to the next `<`, the end of a comment or of a
 * script, slices text only when the handler wants it, builds attributes only for the tags the
 * handler names, and decodes entities (the `entities` package, htmlparser2's own decoder) only
 * in text that holds an `&`. The events are the same as htmlparser2 12's on every fixture and
 * on the bench corpus, and on generated tag soup cut into chunks at random
 * (test/html-scanner.test.ts compares them).
 *
 * Streaming: `write` scans what is complete and keeps only the unfinished construct (a tag, a
 * comment or a script still open at the chunk's end); its size is bounded by what the caller
 * feeds (nwax.import.parse.bytes).
 */
import { decodeHTML, decodeHTMLAttribute, DecodingMode } from 'entities/decode';
import { hashStep, matchName, nameHash, NameTable } from './tag-names.js';
import { HtmlTree, type HtmlHandler } from './html-tree.js';
import { TAGS_WITH } from '../native/html-names.js';

export type { HtmlHandler } from './html-tree.js';

/** Elements whose content is text up to their end tag: raw, or with entities decoded (RCDATA). */
const RAW_TEXT = new Set(TAGS_WITH.raw);
const RCDATA = new Set(TAGS_WITH.rcdata);

const GT = 0x3e,
  SLASH = 0x2f,
  BANG = 0x21,
  QUESTION = 0x3f,
  DASH = 0x2d,
  EQ = 0x3d,
  DQ = 0x22,
  SQ = 0x27,
  LBRACKET = 0x5b;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

function isEndOfName(c: number): boolean {
  return c === SLASH || c === GT || isSpace(c);
}

function isAlpha(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/** Tag names seen, lower-cased: pages repeat a few dozen names thousands of times. */
const names = new NameTable();

/** End of the current markup construct, or NEED_MORE when the input so far does not hold it. */
const NEED_MORE = -1;
const TEXT = -2;
const MARKUP = -3;

/** An end tag `</name` followed by what ends a tag name, for each raw-text element. */
const endTagPatterns = new Map<string, RegExp>();
function endTagPattern(name: string): RegExp {
  let re = endTagPatterns.get(name);
  if (!re) endTagPatterns.set(name, (re = new RegExp(`</${name}[\\t\\n\\f\\r />]`, 'ig')));
  return re;
}

/**
 * RCDATA text (a title's, a textarea's) with its entities decoded, but for an `&` right after
 * a part of the element's end tag (`</ti&amp;`), which htmlparser2's end-tag matcher reads as
 * it is.
 */
export function decodeRcdata(t: string, name: string): string {
  const end = `</${name}`;
  let out = '';
  let from = 0;
  for (let k = t.indexOf('&'); k >= 0; k = t.indexOf('&', k + 1)) {
    // The nearest `<` before the `&`, looked for only as far as a cut end tag reaches (a
    // lastIndexOf from every `&` of a title of `&`s with no `<` was quadratic: 256 kB, 30 s).
    let j = k - 1;
    while (j >= 0 && j > k - end.length && t.charCodeAt(j) !== 0x3c) j--;
    if (j < 0 || k - j >= end.length) continue;
    let prefix = true;
    for (let i = j + 1; i < k && prefix; i++) prefix = (t.charCodeAt(i) | 0x20) === end.charCodeAt(i - j);
    if (!prefix) continue;
    out += `${decodeHTML(t.slice(from, k), DecodingMode.Legacy)}&`;
    from = k + 1;
  }
  return from === 0 ? decodeHTML(t, DecodingMode.Legacy) : out + decodeHTML(t.slice(from), DecodingMode.Legacy);
}

export class HtmlScanner {
  private buf = '';
  /** The open elements and their contexts (html-tree.ts). */
  private readonly tree: HtmlTree;
  /** Raw-text or RCDATA element whose content is being read ('' for none; 'plaintext' to the end). */
  private raw = '';
  private ended = false;

  constructor(private readonly handler: HtmlHandler) {
    this.tree = new HtmlTree(handler);
  }

  write(chunk: string): void {
    this.buf = this.buf.length ? this.buf + chunk : chunk;
    this.scan(false);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.scan(true);
    this.buf = '';
    // htmlparser2 closes what is still open, innermost first (without popping its contexts).
    this.tree.closeAll();
  }

  /** Reads what the buffer holds; keeps an unfinished construct for the next write unless `final`. */
  private scan(final: boolean): void {
    const s = this.buf;
    this.nextAmp = NaN;
    const len = s.length;
    let pos = 0;
    while (pos < len) {
      if (this.raw) {
        const next = this.rawText(s, pos, final);
        if (next === NEED_MORE) break;
        pos = next;
        continue;
      }
      // Text up to the next markup; a '<' that starts none is text.
      let lt = s.indexOf('<', pos);
      let kind = 0;
      while (lt >= 0 && (kind = this.classify(s, lt, final)) === TEXT) lt = s.indexOf('<', lt + 1);
      if (lt < 0) {
        // No markup: the text so far, but an entity the next chunk may finish is held back.
        const cut = final ? len : this.textCut(s, pos, len);
        this.text(s, pos, cut, DecodingMode.Legacy);
        pos = cut;
        break;
      }
      this.text(s, pos, lt, DecodingMode.Legacy);
      pos = lt;
      if (kind === NEED_MORE) break;
      const end = this.markup(s, lt, final);
      if (end === NEED_MORE) break;
      pos = end;
    }
    this.buf = pos >= len ? '' : s.slice(pos);
  }

  /** Whether the '<' at `lt` starts markup (MARKUP), is text (TEXT), or the input ends first. */
  private classify(s: string, lt: number, final: boolean): number {
    if (lt + 1 >= s.length) return final ? TEXT : NEED_MORE;
    const c = s.charCodeAt(lt + 1);
    if (isAlpha(c) || c === BANG || c === QUESTION) return MARKUP;
    if (c !== SLASH) return TEXT;
    // `</` at the very end of the input is text.
    if (lt + 2 >= s.length) return final ? TEXT : NEED_MORE;
    return MARKUP;
  }

  /** Where held-back text starts: at a trailing `&` that may begin an entity. */
  private textCut(s: string, from: number, len: number): number {
    const amp = s.lastIndexOf('&', len - 1);
    return amp >= from && len - amp < 64 ? amp : len;
  }

  private text(s: string, start: number, end: number, mode: DecodingMode | undefined, rcdata = ''): void {
    if (end <= start || !this.handler.wantsText) return;
    if (mode === undefined || !this.ampWithin(s, start, end)) {
      this.handler.onText(s, start, end);
      return;
    }
    const raw = s.slice(start, end);
    const t = rcdata ? decodeRcdata(raw, rcdata) : decodeHTML(raw, mode);
    this.handler.onText(t, 0, t.length);
  }

  /** The next `&` in the buffer being scanned at or past the last text's start (-1: none; NaN: not looked for). */
  private nextAmp = NaN;

  /**
   * Whether s[start, end) holds an `&`. Text ranges come in increasing order within a scan,
   * so the buffer is searched once however many ranges it holds (`includes` on each range's
   * slice cost a string per range).
   */
  private ampWithin(s: string, start: number, end: number): boolean {
    if (!(this.nextAmp >= start) && this.nextAmp !== -1) this.nextAmp = s.indexOf('&', start);
    return this.nextAmp >= start && this.nextAmp < end;
  }

  /**
   * Acts on the markup at `lt` and returns where it ends (past its '>'), or NEED_MORE, having
   * done nothing, when the input so far does not hold all of it.
   */
  private markup(s: string, lt: number, final: boolean): number {
    const c = s.charCodeAt(lt + 1);
    if (isAlpha(c)) return this.openTag(s, lt, final);
    if (c === SLASH) return this.closeTag(s, lt, final);
    if (c === BANG) return this.declaration(s, lt, final);
    return this.skipTo(s, lt + 2, GT, final); // `<?`: a bogus comment
  }

  /** Past the next `c` from `from`; at the end of the input that is the end. */
  private skipTo(s: string, from: number, c: number, final: boolean): number {
    const at = s.indexOf(String.fromCharCode(c), from);
    if (at >= 0) return at + 1;
    return final ? s.length : NEED_MORE;
  }

  /** `<!...`: a comment, CDATA, a doctype or a bogus comment. */
  private declaration(s: string, lt: number, final: boolean): number {
    const len = s.length;
    const p = lt + 2;
    if (p >= len) return final ? len : NEED_MORE;
    const c = s.charCodeAt(p);
    if (c === LBRACKET) {
      // `<![CDATA[`, exactly; anything else a bogus comment from the first mismatch.
      const seq = 'CDATA[';
      for (let i = 0; i < seq.length; i++) {
        if (p + 1 + i >= len) return final ? len : NEED_MORE;
        if (s[p + 1 + i] !== seq[i]) return s.charCodeAt(p + 1 + i) === GT ? p + 2 + i : this.skipTo(s, p + 2 + i, GT, final);
      }
      const start = p + 1 + seq.length;
      const close = s.indexOf(']]>', start);
      if (close < 0) return final ? len : NEED_MORE;
      // Text inside SVG or MathML, a comment elsewhere.
      if (this.tree.inForeign) this.text(s, start, close, undefined);
      return close + 3;
    }
    if ((c | 0x20) === 0x64) {
      // `<!doctype`, case-insensitive, then up to '>'; a mismatch is a bogus comment.
      const seq = 'doctype';
      for (let i = 1; i < seq.length; i++) {
        if (p + i >= len) return final ? len : NEED_MORE;
        const d = s.charCodeAt(p + i);
        if ((d | 0x20) !== seq.charCodeAt(i)) return d === GT ? p + i + 1 : this.skipTo(s, p + i + 1, GT, final);
      }
      return this.skipTo(s, p + seq.length, GT, final);
    }
    if (c === GT) return p + 1;
    if (c === DASH) {
      if (p + 1 >= len) return final ? len : NEED_MORE;
      const d = s.charCodeAt(p + 1);
      if (d === DASH) return this.commentEnd(s, p + 2, final);
      if (d === GT) return p + 2;
      return this.skipTo(s, p + 2, GT, final);
    }
    return this.skipTo(s, p + 1, GT, final);
  }

  /** Past the end of a comment whose text starts at `p`: `-->` or `--!>` (htmlparser2's matcher). */
  private commentEnd(s: string, p: number, final: boolean): number {
    const len = s.length;
    const END = '--!>';
    let seq = 0;
    for (let i = p; i < len; i++) {
      const c = s[i];
      if (seq <= 1 && i === p + seq && c === '>') return i + 1; // `<!-->`, `<!--->`
      if (seq === 2 && c === '>') return i + 1;
      if (seq === 3 && c !== '>') {
        seq = c === '-' ? 1 : 0;
      } else if (c === END[seq]) {
        if (++seq === END.length) return i + 1;
      } else if (seq === 0) {
        const dash = s.indexOf('-', i + 1);
        if (dash < 0) break;
        i = dash;
        seq = 1;
      } else if (c !== END[seq - 1]) {
        seq = 0;
      }
    }
    return final ? len : NEED_MORE;
  }

  /** `</...`: an end tag, `</>` (nothing), or a bogus comment. */
  private closeTag(s: string, lt: number, final: boolean): number {
    const len = s.length;
    const p = lt + 2;
    const c = s.charCodeAt(p);
    if (c === GT) return p + 1;
    if (!isAlpha(c)) return this.skipTo(s, p + 1, GT, final);
    let h = hashStep(0, c);
    let e = p + 1;
    for (let d; e < len && !isEndOfName((d = s.charCodeAt(e))); e++) h = hashStep(h, d);
    if (e >= len) return final ? len : NEED_MORE; // an unfinished end tag is dropped
    const gt = s.charCodeAt(e) === GT ? e : s.indexOf('>', e);
    if (gt < 0 && !final) return NEED_MORE;
    this.tree.endTag(this.tree.tagName(names.get(s, p, e, h)));
    return gt < 0 ? len : gt + 1;
  }

  /** `<name ...>`: the open tag, its attributes, and a raw-text element's content mode. */
  private openTag(s: string, lt: number, final: boolean): number {
    const len = s.length;
    let h = hashStep(0, s.charCodeAt(lt + 1));
    let e = lt + 2;
    for (let d; e < len && !isEndOfName((d = s.charCodeAt(e))); e++) h = hashStep(h, d);
    // A tag name cut by the end of the input is dropped (as htmlparser2 does).
    if (e >= len) return final ? len : NEED_MORE;
    const lower = names.get(s, lt + 1, e, h);
    // Raw text and the name's case are decided before this tag changes the context.
    const inForeign = this.tree.inForeign;
    const name = this.tree.tagName(lower);
    const special = !inForeign && (RAW_TEXT.has(lower) || RCDATA.has(lower) || lower === 'plaintext') ? lower : '';
    const ignored = name === 'form' && this.tree.isOpen('form');
    const wanted = ignored ? false : this.handler.wantsAttributes(name);
    const attrs = wanted !== false ? ({} as Record<string, string>) : undefined;
    const end = this.attributes(s, e, attrs, wanted === true ? undefined : wanted || undefined);
    if (end < 0) {
      if (!final) return NEED_MORE;
      // Cut by the end of the input: htmlparser2 has opened it (its name), never ended it.
      this.tree.openName(name);
      return len;
    }
    this.tree.openName(name);
    if (this.selfClosing && this.tree.inForeign) {
      // A self-closing mark is honoured in SVG and MathML only.
      const tag = this.tree.tag;
      this.tree.endOpen(attrs);
      if (this.tree.top === tag) this.tree.pop();
    } else {
      this.tree.endOpen(attrs);
    }
    if (special) this.raw = special;
    return end;
  }

  /** The last tag read by `attributes` ended with `/>` (or `/ >`). */
  private selfClosing = false;

  /**
   * Reads the attributes from `i` (just past the tag name) to the tag's `>`: returns the index
   * past it, or -1 when the input ends first. Values go into `attrs` (first one wins) when given:
   * those named in `wanted`, or all.
   */
  private attributes(s: string, i: number, attrs: Record<string, string> | undefined, wanted: readonly string[] | undefined): number {
    const len = s.length;
    this.selfClosing = false;
    let slash = false; // htmlparser2's InSelfClosingTag state
    while (i < len) {
      const c = s.charCodeAt(i);
      if (c === GT) {
        this.selfClosing = slash;
        return i + 1;
      }
      if (isSpace(c)) {
        i++;
        continue;
      }
      if (c === SLASH) {
        slash = true;
        i++;
        continue;
      }
      slash = false;
      // An attribute name: its first character whatever it is, then up to '=' or a name's end.
      const nameStart = i++;
      while (i < len) {
        const d = s.charCodeAt(i);
        if (d === EQ || isEndOfName(d)) break;
        i++;
      }
      if (i >= len) return -1;
      const nameEnd = i;
      // The name as attrs keys it ('' for an attribute not asked for).
      const key = !attrs ? '' : wanted ? (matchName(s, nameStart, nameEnd, wanted) ?? '') : s.slice(nameStart, nameEnd).toLowerCase();
      while (i < len && isSpace(s.charCodeAt(i))) i++;
      if (i >= len) return -1;
      if (s.charCodeAt(i) !== EQ) {
        // No value: '/' and '>' are read again; anything else starts the next name.
        if (key) this.attribute(attrs!, key, '');
        continue;
      }
      i++;
      while (i < len && isSpace(s.charCodeAt(i))) i++;
      if (i >= len) return -1;
      const q = s.charCodeAt(i);
      if (q === DQ || q === SQ) {
        const close = s.indexOf(q === DQ ? '"' : "'", i + 1);
        if (close < 0) return -1;
        if (key) this.attribute(attrs!, key, s.slice(i + 1, close));
        i = close + 1;
      } else {
        const start = i;
        while (i < len) {
          const d = s.charCodeAt(i);
          if (d === GT || isSpace(d)) break;
          i++;
        }
        if (i >= len) return -1;
        if (key) this.attribute(attrs!, key, s.slice(start, i));
      }
    }
    return -1;
  }

  private attribute(attrs: Record<string, string>, name: string, value: string): void {
    if (Object.hasOwn(attrs, name)) return;
    attrs[name] = value.includes('&') ? decodeHTMLAttribute(value) : value;
  }

  /** Content of a raw-text or RCDATA element from `pos`: returns where its end tag ends. */
  private rawText(s: string, pos: number, final: boolean): number {
    const len = s.length;
    if (this.raw === 'plaintext') {
      this.text(s, pos, len, undefined);
      return len;
    }
    const rcdata = RCDATA.has(this.raw);
    const re = endTagPattern(this.raw);
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) {
      if (!final) {
        // The text so far, but not a partial end tag (or, in RCDATA, an entity) at its end.
        let cut = s.lastIndexOf('<', len - 1);
        if (cut < pos || len - cut > this.raw.length + 2) cut = len;
        if (rcdata) {
          const amp = this.textCut(s, pos, len);
          if (amp < cut) {
            // With the part of an end tag it may follow (decodeRcdata).
            const lt = s.lastIndexOf('<', amp - 1);
            cut = lt >= pos && amp - lt < this.raw.length + 2 ? lt : amp;
          }
        }
        this.text(s, pos, cut, rcdata ? DecodingMode.Legacy : undefined, rcdata ? this.raw : '');
        return cut > pos ? cut : NEED_MORE;
      }
      this.text(s, pos, len, rcdata ? DecodingMode.Legacy : undefined, rcdata ? this.raw : '');
      return len;
    }
    const at = m.index;
    const nameEnd = at + 2 + this.raw.length;
    const gt = s.charCodeAt(nameEnd) === GT ? nameEnd : s.indexOf('>', nameEnd);
    if (gt < 0 && !final) {
      // The end tag's '>' is yet to come: the text before it can go now.
      this.text(s, pos, at, rcdata ? DecodingMode.Legacy : undefined, rcdata ? this.raw : '');
      return at > pos ? at : NEED_MORE;
    }
    this.text(s, pos, at, rcdata ? DecodingMode.Legacy : undefined, rcdata ? this.raw : '');
    this.raw = '';
    this.tree.endTag(this.tree.tagName(names.get(s, at + 2, nameEnd, nameHash(s, at + 2, nameEnd))));
    return gt < 0 ? len : gt + 1;
  }
}
