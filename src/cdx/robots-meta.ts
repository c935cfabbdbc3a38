/**
 * The CDX `M` field: robot flags from `<meta name="robots" content="...">` in an HTML page, as
 * IA's CDX-Writer writes them: A (noarchive), F (nofollow), I (noindex); `-` when none. Only
 * the first bytes of the page are scanned (meta tags belong in the head), so it stays cheap.
 */
const META_TAG = /<meta\b[^>]*>/gi;
const NAME_ROBOTS = /\bname\s*=\s*["']?\s*robots\b/i;
const CONTENT = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*))/i;

export function robotFlags(html: Buffer): string {
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
