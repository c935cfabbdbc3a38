/**
 * `url(...)` in a stylesheet, found as the regular expression below finds it, in linear time.
 * The expression alone, over a stylesheet of many `url(` that no `)` follows (a hostile archive
 * can hold one), scanned from each to the next quote or the end: 80 kB took 5 s, a megabyte
 * would take a quarter of an hour of the replay server's thread. Here each `url(` is first
 * checked for the `)` a match must end at, and the expression runs only on the text up to it.
 */

/** The pattern, as pywb and wabac.js have it: an optional quote (or `&quot;`), the URL, `)`. */
const URL_FN = /url\(\s*(["']|&quot;)?([^"'()\s]*?|[^"']*?)\1\s*\)/iy;
const URL_START = /url\(/gi;

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

/** `css` with each `url(...)` replaced by `replace(whole, quote, value)`, as String.replace would. */
export function replaceCssUrls(css: string, replace: (whole: string, quote: string | undefined, value: string) => string): string {
  const quote = nextFinder(css, /["']/g);
  const close = nextFinder(css, /\)/g);
  const quotClose = nextFinder(css, /&quot;\s*\)/gi);
  let out = '';
  let last = 0;
  URL_START.lastIndex = 0;
  for (let m = URL_START.exec(css); m; m = URL_START.exec(css)) {
    const at = m.index;
    let v = at + 4;
    while (v < css.length && /\s/.test(css[v])) v++;
    // Where a match would have to end (every match ends at a `)`, none crosses a third quote).
    let end: number;
    const q1 = quote(at + 4);
    if (q1 && q1.index === v) {
      // A quoted URL: up to the next quote, then white space and `)`.
      const q2 = quote(v + 1);
      const c = q2 && close(q2.index + 1);
      if (!c) continue;
      end = c.end;
    } else {
      // Unquoted (or &quot;): a `)` before any quote, else no match.
      const c = close(at + 4);
      if (!c || (q1 && q1.index < c.index)) continue;
      end = c.end;
      if (css.slice(v, v + 6).toLowerCase() === '&quot;') {
        const e = quotClose(v + 6);
        if (e && (!q1 || e.end <= q1.index)) end = Math.max(end, e.end);
      }
    }
    URL_FN.lastIndex = 0;
    const found = URL_FN.exec(css.slice(at, end));
    if (!found) continue;
    out += css.slice(last, at) + replace(found[0], found[1], found[2]);
    last = at + found[0].length;
    URL_START.lastIndex = last;
  }
  return last === 0 ? css : out + css.slice(last);
}
