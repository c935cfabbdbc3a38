/**
 * White space squashed: every run of it (what `\s` matches in a JS regex) one space, none at
 * either end; the result of `s.replace(/\s+/g, ' ').trim()`, in about half its time on the
 * extracted text of the bench corpus (most runs there are one space, kept as they are), and the
 * string itself when nothing changes.
 */
/** Whether `c` is white space to a JS regex's `\\s`. */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  return c >= 0xa0 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029
    || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff);
}

export function squash(s: string): string {
  return squashRange(s, 0, s.length);
}

/** `squash(s.slice(start, end))`, without the slice where the text is squashed already. */
export function squashRange(s: string, start: number, end: number): string {
  while (start < end && isSpace(s.charCodeAt(start))) start++;
  while (end > start && isSpace(s.charCodeAt(end - 1))) end--;
  let out = '';
  let from = start;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if ((c > 32 && c < 0xa0) || !isSpace(c)) continue;
    let j = i + 1;
    while (j < end && isSpace(s.charCodeAt(j))) j++;
    if (c === 32 && j === i + 1) continue; // one space: kept as it is
    out += s.slice(from, i) + ' ';
    from = j;
    i = j - 1;
  }
  if (from === start) return start === 0 && end === s.length ? s : s.slice(start, end);
  return out + s.slice(from, end);
}

/**
 * `squash` for a long text (a page's): one regular expression replaces the runs that change
 * (two or more white space characters, or one that is not a space) and leaves the rest of the
 * text alone, where `squash` looks at every character in JavaScript.
 */
const CHANGED_SPACE = /\s{2,}|[\t\n\v\f\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/g;

export function squashText(s: string): string {
  return s.replace(CHANGED_SPACE, ' ').trim();
}
