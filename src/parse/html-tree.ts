/**
 * htmlparser2's tree rules (Parser: readTagName, emitOpenTag, endOpenTag, onclosetag,
 * popElement) for the HTML scanner (html-scanner.ts tokenizes, this keeps the open elements):
 * implied closes, void elements, the SVG and MathML contexts and their tag names, a second
 * `<form>` ignored, `</p>` with no open p an empty paragraph, `</br>` a line break.
 */
import { IMPLIED_CLOSES, SVG_NAMES as SVG_NAME_LIST, TAGS_WITH } from '../native/html-names.js';

export interface HtmlHandler {
  /** Whether text is wanted now: when false, text is passed over without being sliced or decoded. */
  readonly wantsText: boolean;
  /**
   * The attributes `onOpen` needs of this tag: their names (lower case, ASCII), true for all of
   * them, false for none (it gets an empty object). Attributes not asked for are not sliced.
   */
  wantsAttributes(name: string): readonly string[] | boolean;
  onOpen(name: string, attrs: Record<string, string>): void;
  onClose(name: string): void;
  /**
   * Text: `text` from `start` to `end` (the scanner's buffer, not sliced, so that the many runs
   * of white space between tags cost no string; or text with its entities decoded).
   */
  onText(text: string, start: number, end: number): void;
}

export const NO_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;

// The tag names the rules treat apart, written once for this and the C extractor
// (native/html-names.json).
/** The open elements a tag's start closes (htmlparser2's openImpliesClose). */
const OPEN_IMPLIES_CLOSE = new Map(Object.entries(IMPLIED_CLOSES).map(([tag, closes]) => [tag, new Set(closes)]));
const VOID = new Set(TAGS_WITH.void);
const INTEGRATION = new Set(TAGS_WITH.integration);
const SVG_NAMES = new Map(SVG_NAME_LIST.map((n) => [n.toLowerCase(), n]));

export const enum Context {
  Html,
  Svg,
  MathML,
}

/** The open elements, innermost last, and the contexts (HTML, SVG, MathML) they make. */
export class HtmlTree {
  private readonly stack: string[] = [];
  /**
   * How many of each name the stack holds: whether one is open is then one lookup, not a walk
   * down the stack (`<div>` a million times and then as many `</span>` took time quadratic in
   * the page's size).
   */
  private readonly open = new Map<string, number>();
  private readonly contexts: Context[] = [Context.Html];
  /** The tag whose attributes are being read (htmlparser2's `tagname`; '' for a second `<form>`). */
  tag = '';

  constructor(private readonly handler: HtmlHandler) {}

  /** Whether the innermost context is foreign (SVG or MathML). */
  get inForeign(): boolean {
    return this.contexts[this.contexts.length - 1] !== Context.Html;
  }

  /** The innermost open element (undefined for none). */
  get top(): string | undefined {
    return this.stack[this.stack.length - 1];
  }

  /** Every element still open closed, innermost first (the end of the page). */
  closeAll(): void {
    for (let i = this.stack.length - 1; i >= 0; i--) this.handler.onClose(this.stack[i]);
  }

  /** A tag's name as htmlparser2 reads it: `name` is lower case already (NameTable). */
  tagName(name: string): string {
    const ctx = this.contexts[this.contexts.length - 1];
    if (ctx === Context.Svg) return SVG_NAMES.get(name) ?? name;
    if (this.contexts.length > 1) {
      const adjusted = SVG_NAMES.get(name);
      if (adjusted !== undefined && this.isOpen(adjusted)) return adjusted;
    }
    if (ctx === Context.Html) return name === 'image' ? 'img' : name;
    return name;
  }

  openName(name: string): void {
    this.tag = name;
    // A second <form> while one is open is ignored, as the HTML spec says.
    if (name === 'form' && this.isOpen('form')) {
      this.tag = '';
      return;
    }
    const implied = OPEN_IMPLIES_CLOSE.get(name);
    if (implied) while (this.stack.length > 0 && implied.has(this.stack[this.stack.length - 1])) this.pop();
    if (!VOID.has(name)) {
      this.stack.push(name);
      this.open.set(name, (this.open.get(name) ?? 0) + 1);
      if (name === 'svg') this.contexts.push(Context.Svg);
      else if (name === 'math') this.contexts.push(Context.MathML);
      else if (INTEGRATION.has(name)) this.contexts.push(Context.Html);
    }
  }

  endOpen(attrs: Record<string, string> | undefined): void {
    const name = this.tag;
    this.tag = '';
    if (name === '') return;
    this.handler.onOpen(name, attrs ?? NO_ATTRIBUTES);
    if (VOID.has(name)) this.handler.onClose(name);
  }

  endTag(name: string): void {
    if (!VOID.has(name)) {
      // Found or not in one lookup; where found, the walk down is paid for by the pops.
      const at = this.isOpen(name) ? this.stack.lastIndexOf(name) : -1;
      if (at !== -1) {
        while (this.stack.length > at) this.pop();
      } else if (name === 'p') {
        // `</p>` with no open p: an empty paragraph.
        this.openName('p');
        this.endOpen(undefined);
        if (this.stack[this.stack.length - 1] === 'p') this.pop();
      }
    } else if (name === 'br') {
      // `</br>` is a line break.
      this.handler.onOpen('br', NO_ATTRIBUTES);
      this.handler.onClose('br');
    }
  }

  isOpen(name: string): boolean {
    return (this.open.get(name) ?? 0) > 0;
  }

  pop(): void {
    const name = this.stack.pop()!;
    this.open.set(name, this.open.get(name)! - 1);
    if (name === 'svg' || name === 'math' || INTEGRATION.has(name)) this.contexts.pop();
    this.handler.onClose(name);
  }
}
