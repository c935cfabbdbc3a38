/**
 * Snippets from a window of the stored text around the first matches (never a re-tokenized
 * page): the window starts a little before the first query word found and holds the marks of
 * every query word in it, as [start, end) offsets for the renderer to mark and escape.
 */
export interface Snippet {
  text: string;
  marks: [number, number][];
}

const WINDOW = 240;
const BEFORE = 60;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function snippetOf(text: string, highlight: string[]): Snippet {
  const terms = [...new Set(highlight)].filter(Boolean).sort((a, b) => b.length - a.length);
  if (terms.length === 0 || text.length === 0) return { text: text.slice(0, WINDOW) + (text.length > WINDOW ? ' …' : ''), marks: [] };
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${terms.map(escapeRe).join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  const first = re.exec(text);
  let start = first ? Math.max(0, first.index - BEFORE) : 0;
  // Start and end at word boundaries where there is one nearby.
  if (start > 0) {
    const sp = text.indexOf(' ', start);
    if (sp >= 0 && sp < (first?.index ?? start + 20)) start = sp + 1;
  }
  let end = Math.min(text.length, start + WINDOW);
  if (end < text.length) {
    const sp = text.lastIndexOf(' ', end);
    if (sp > start + WINDOW / 2) end = sp;
  }
  const prefix = start > 0 ? '… ' : '';
  const window = text.slice(start, end);
  const marks: [number, number][] = [];
  re.lastIndex = 0;
  for (let m = re.exec(window); m; m = re.exec(window)) marks.push([prefix.length + m.index, prefix.length + m.index + m[0].length]);
  return { text: prefix + window + (end < text.length ? ' …' : ''), marks };
}

/** The snippet with its marks between `open` and `close`, every piece passed through `escape`. */
export function markSnippet(s: Snippet, open: string, close: string, escape: (t: string) => string = (t) => t): string {
  let out = '';
  let at = 0;
  for (const [a, b] of s.marks) {
    out += escape(s.text.slice(at, a)) + open + escape(s.text.slice(a, b)) + close;
    at = b;
  }
  return out + escape(s.text.slice(at));
}
