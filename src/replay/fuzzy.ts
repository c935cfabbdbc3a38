/**
 * The fuzzy rule of replay lookups, after pywb's default rules (rules.yaml): a URL whose exact
 * capture is missing is looked up again without the parameters that change on every load and
 * say nothing of the content: cache-busters (`_`, `cb`, `uncache`, `nocache`, `rand`), jsonp
 * callbacks and tracking (`utm_*`, `fbclid`, `gclid`).
 */
const NOISE = /^(?:_|cb|uncache|nocache|rand|random|callback|jsonp|fbclid|gclid|utm_[a-z]+)$/i;

/** `url` without its noise parameters (the rest in their order); `url` itself when it has none. */
export function withoutNoiseParams(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const kept = query.split('&').filter((p) => p !== '' && !NOISE.test(decodeName(p.split('=')[0])));
  const base = url.slice(0, q);
  return kept.length ? `${base}?${kept.join('&')}` : base;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
