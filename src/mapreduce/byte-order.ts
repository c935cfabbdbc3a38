/**
 * Byte-order comparison of strings as their UTF-8 encodings compare (LC_ALL=C sort). JS
 * compares UTF-16 code units, which agrees with UTF-8 byte order except between a surrogate
 * (U+D800-DFFF, characters past U+FFFF) and U+E000-FFFF; only lines that hold such characters
 * need the slow path.
 */
export function hasHighChars(s: string): boolean {
  return /[\ud800-\uffff]/.test(s);
}

function fix(c: number): number {
  return c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c;
}

export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const ca = a.charCodeAt(i);
  const cb = b.charCodeAt(i);
  if (ca < 0xd800 && cb < 0xd800) return ca - cb;
  return fix(ca) - fix(cb);
}
