/**
 * Tag and attribute names read in place: the lower-case name of `s[start, end)` without a new
 * string for a name seen before. Pages repeat a few dozen names millions of times (8.5M open
 * tags in the bench corpus); slicing each one and looking the slice up in a Map was a tenth of
 * the scanner's time. The caller hashes the name as it finds its end (`nameHash` step), and
 * the table compares the characters where they are.
 *
 * Only ASCII names are kept: for them lower case is `c | 0x20` on A-Z, so a name in any case
 * matches its entry; any other name is sliced and lower-cased by `toLowerCase` every time
 * (what HTML parsers do for them too), and never matches a kept one.
 */

/** A name character in lower case, as the hash and the comparison take it (A-Z only). */
export function lowerAscii(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}

/** The hash of a name so far with one more character. */
export function hashStep(h: number, c: number): number {
  return (Math.imul(h, 31) + lowerAscii(c)) | 0;
}

/** The hash of the name `s[start, end)`. */
export function nameHash(s: string, start: number, end: number): number {
  let h = 0;
  for (let i = start; i < end; i++) h = hashStep(h, s.charCodeAt(i));
  return h;
}

/** Slots of the table (a power of two), and names kept at most (the rest are sliced each time). */
const SLOTS = 8192;
const KEPT = 4096;

export class NameTable {
  private readonly slots: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);
  private kept = 0;

  /** The lower-case name `s[start, end)`, whose hash is `hash` (`nameHash`). */
  get(s: string, start: number, end: number, hash: number): string {
    const n = end - start;
    let i = hash & (SLOTS - 1);
    for (let name = this.slots[i]; name !== undefined; name = this.slots[i]) {
      if (name.length === n && sameName(s, start, name)) return name;
      i = (i + 1) & (SLOTS - 1);
    }
    const raw = s.slice(start, end);
    const name = raw.toLowerCase();
    if (this.kept < KEPT && isAscii(raw)) {
      this.slots[i] = name;
      this.kept++;
    }
    return name;
  }
}

/** Whether `s` from `start` reads as `name` (lower case, ASCII) in any case. */
function sameName(s: string, start: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) if (lowerAscii(s.charCodeAt(start + k)) !== name.charCodeAt(k)) return false;
  return true;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Which of `names` (lower case, ASCII) the name `s[start, end)` is, in any case, or undefined.
 * A name with other characters is lower-cased as a whole first, as `toLowerCase` would read
 * it (U+212A, the Kelvin sign, lower-cases to an ASCII `k`).
 */
export function matchName(s: string, start: number, end: number, names: readonly string[]): string | undefined {
  const n = end - start;
  for (const name of names) if (name.length === n && sameName(s, start, name)) return name;
  for (let i = start; i < end; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      const lower = s.slice(start, end).toLowerCase();
      return names.find((name) => name === lower);
    }
  }
  return undefined;
}
