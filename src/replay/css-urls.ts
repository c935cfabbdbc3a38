/**
 * `url(...)` in a stylesheet, found as the regular expression pywb and wabac.js use finds it:
 *
 *     /url\(\s*(["']|&quot;)?([^"'()\s]*?|[^"']*?)\1\s*\)/gi
 *
 * but in linear time. Run by V8 over text an archive supplies, that expression is quadratic
 * twice over: from each of many `url(` without a `)` it scans to the next quote or the end (80
 * kB of `url(`: 5 s of the replay server's thread, a megabyte a quarter of an hour), and inside
 * one `url(a    b)` its lazy value retries the run of spaces at every length. What it matches,
 * worked out from its backtracking order (test/rewrite.test.ts holds this to the expression
 * itself on random stylesheets), at the first character `v` past `url(` and its white space:
 * - a quote: the URL runs to the next quote of either kind, which must be the same one, then
 *   white space and `)`; nothing else is tried;
 * - `&quot;` (any case): the URL runs to the first `&quot;`, white space and `)` with no quote
 *   before its end; failing that, as below;
 * - anything else: the URL runs to the first `)`, less the white space before it, if no quote
 *   comes first.
 */

const URL_START = /url\(/gi;
const SPACE = /\s/;

/** The first match of a global `re` at or after a position, remembered while it stays ahead. */
function nextFinder(s: string, re: RegExp): (pos: number) => { index: number; end: number } | undefined {
  let from = -1;
  let found: { index: number; end: number } | undefined;
  return (pos) => {
    if (from < 0 || pos < from || (found && found.index < pos)) {
      re.lastIndex = pos;
      const m = re.exec(s);
      from = pos;
      found = m ? { index: m.index, end: m.index + m[0].length } : undefined;
    }
    return found;
  };
}

interface Found {
  quote: string | undefined;
  value: string;
  end: number;
}

/** `css` with each `url(...)` replaced by `replace(whole, quote, value)`, as String.replace would. */
export function replaceCssUrls(css: string, replace: (whole: string, quote: string | undefined, value: string) => string): string {
  const nextQuote = nextFinder(css, /["']/g);
  const nextClose = nextFinder(css, /\)/g);
  const nextQuotClose = nextFinder(css, /&quot;\s*\)/gi);
  const isSpace = (i: number) => i < css.length && SPACE.test(css[i]);

  const matchAt = (v: number): Found | undefined => {
    const c = css[v];
    if (c === '"' || c === "'") {
      const close = nextQuote(v + 1);
      if (!close || css[close.index] !== c) return undefined;
      let w = close.index + 1;
      while (isSpace(w)) w++;
      return css[w] === ')' ? { quote: c, value: css.slice(v + 1, close.index), end: w + 1 } : undefined;
    }
    if (css.slice(v, v + 6).toLowerCase() === '&quot;') {
      const e = nextQuotClose(v + 6);
      const q = nextQuote(v + 6);
      if (e && (!q || e.end <= q.index)) return { quote: css.slice(v, v + 6), value: css.slice(v + 6, e.index), end: e.end };
    }
    const paren = nextClose(v);
    const q = nextQuote(v);
    if (!paren || (q && q.index < paren.index)) return undefined;
    let p = paren.index;
    while (p > v && isSpace(p - 1)) p--;
    return { quote: undefined, value: css.slice(v, p), end: paren.end };
  };

  let out = '';
  let last = 0;
  URL_START.lastIndex = 0;
  for (let m = URL_START.exec(css); m; m = URL_START.exec(css)) {
    let v = m.index + 4;
    while (isSpace(v)) v++;
    const found = matchAt(v);
    if (!found) continue;
    out += css.slice(last, m.index) + replace(css.slice(m.index, found.end), found.quote, found.value);
    last = found.end;
    URL_START.lastIndex = last;
  }
  return last === 0 ? css : out + css.slice(last);
}
