/** UTF-8 at the edges of chunks. */

/** Where the last complete UTF-8 character of `b` ends (a sequence cut by the chunk end is left out). */
export function completeUtf8(b: Buffer): number {
  const n = b.length;
  for (let back = 1; back <= 3 && back <= n; back++) {
    const c = b[n - back];
    if ((c & 0xc0) === 0x80) continue; // continuation byte: look further back
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}
