/**
 * The CDX `M` field: robot flags from `<meta name="robots" content="...">` in an HTML page, as
 * IA's CDX-Writer writes them: A (noarchive), F (nofollow), I (noindex); `-` when none. Only
 * the first bytes of the page are scanned (meta tags belong in the head), so it stays cheap.
 */
const META_TAG = /<meta\b[^>]*>/gi;
// One \s* where no quote stands between (`\s*["']?\s*` split a run of spaces every way: 64 kB
// of them in a tag took seconds).
const NAME_ROBOTS = /\bname\s*=\s*(?:["']\s*)?robots\b/i;
const CONTENT = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*))/i;

const HEAD_ENDS = ['</head', '</HEAD', '<body', '<BODY'].map((s) => Buffer.from(s));

export function robotFlags(page: Buffer): string {
  // Meta tags belong in the head: look no further than its end, where there is one.
  let end = page.length;
  for (const h of HEAD_ENDS) {
    const i = page.subarray(0, end).indexOf(h);
    if (i >= 0) end = i;
  }
  const html = page.subarray(0, end);
  // Most pages have no robots meta tag: a native byte search says so without making a string.
  if (html.indexOf('obots') < 0 && html.indexOf('OBOTS') < 0) return '-';
  const text = html.toString('latin1');
  if (!/robots/i.test(text)) return '-';
  let a = false;
  let f = false;
  let i = false;
  for (const m of text.matchAll(META_TAG)) {
    const tag = m[0];
    if (!NAME_ROBOTS.test(tag)) continue;
    const c = CONTENT.exec(tag);
    const content = (c?.[1] ?? c?.[2] ?? c?.[3] ?? '').toLowerCase();
    for (const token of content.split(/[\s,]+/)) {
      if (token === 'noarchive') a = true;
      else if (token === 'nofollow') f = true;
      else if (token === 'noindex') i = true;
      else if (token === 'none') f = i = true;
    }
  }
  const flags = (a ? 'A' : '') + (f ? 'F' : '') + (i ? 'I' : '');
  return flags || '-';
}
