/**
 * Trims by a loop, for text an archive or a request supplies. A regular expression for a run at
 * the end (`/\s+$/`, `/\/+$/`) is tried at every start in a run that is not at the end, each
 * try running to the run's end: the time grows with the square of the run, and a 60 kB URL of
 * spaces took 5 s to canonicalize, a megabyte half an hour.
 */

/** `s` without the characters `drop` accepts at either end (`start`, `end`: which ends). */
export function trimWhere(s: string, drop: (code: number) => boolean, ends: { start?: boolean; end?: boolean } = { start: true, end: true }): string {
  let a = 0;
  let b = s.length;
  if (ends.start !== false) while (a < b && drop(s.charCodeAt(a))) a++;
  if (ends.end !== false) while (b > a && drop(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/** `s` without a run of `ch` at its end. */
export function trimEndChar(s: string, ch: string): string {
  const code = ch.charCodeAt(0);
  return trimWhere(s, (c) => c === code, { start: false });
}

/** `s` from the first `#` that no line terminator follows: what `s.replace(/#.*$/, '')` cuts. */
export function cutFragment(s: string): string {
  const lt = Math.max(s.lastIndexOf('\n'), s.lastIndexOf('\r'), s.lastIndexOf('\u2028'), s.lastIndexOf('\u2029'));
  const hash = s.indexOf('#', lt + 1);
  return hash < 0 ? s : s.slice(0, hash);
}
