/**
 * A URL as a header (`Location`, `Content-Location`) or a link-format `<…>` (RFC 8288's Link
 * header, a TimeMap) can hold it: every character RFC 3986 does not allow in a URI reference
 * (`"`, `<`, `>`, space, `\`, `^`, `` ` ``, `{`, `|`, `}`, controls, anything past ASCII)
 * percent-encoded as UTF-8; what is allowed, `%` included, is left as it is, so a URL already
 * encoded is not encoded twice. Archived URLs hold all of these, and a Memento client parsing
 * a Link header would otherwise cut a link at its first `>` or `"`.
 */

/** RFC 3986's unreserved and reserved characters, and `%`. */
function allowed(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || URI_PUNCTUATION.has(c);
}

const URI_PUNCTUATION = new Set([..."-._~:/?#[]@!$&'()*+,;=%"].map((ch) => ch.charCodeAt(0)));

export function uriForHeader(url: string): string {
  let i = 0;
  while (i < url.length && allowed(url.charCodeAt(i))) i++;
  if (i === url.length) return url;
  let out = url.slice(0, i);
  for (const ch of url.slice(i)) {
    const c = ch.charCodeAt(0);
    if (ch.length === 1 && allowed(c)) {
      out += ch;
      continue;
    }
    // A lone surrogate has no UTF-8: it goes as U+FFFD, as a browser sends it.
    const bytes = Buffer.from(ch.length === 1 && c >= 0xd800 && c <= 0xdfff ? '\ufffd' : ch, 'utf8');
    for (const b of bytes) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
