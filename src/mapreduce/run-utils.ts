/** Small pieces shared by the external sort and its spill worker. */

/** Drops repeated lines of a sorted array, in place. */
export function dedupeSorted(lines: string[]): string[] {
  let w = 0;
  for (let i = 0; i < lines.length; i++) {
    if (w === 0 || lines[i] !== lines[w - 1]) lines[w++] = lines[i];
  }
  lines.length = w;
  return lines;
}
