/**
 * Archival URLs in pywb's scheme, under `/replay/`:
 *
 *   /replay/{coll}/{ts}/{url}              the framed page with the banner
 *   /replay/{coll}/{ts}{mod}/{url}         mp_ the rewritten capture; id_ the payload as archived;
 *                                          js_ / cs_ force the script / stylesheet rewriter;
 *                                          im_ oe_ if_ fr_ are hints, served as mp_
 *   /replay/{coll}/*\/{url}                 every capture of the URL on a timeline
 *   /replay/{coll}/timemap/{link|json}/{url}   Memento TimeMap
 *   /replay/{coll}/{url}                   Memento TimeGate (Accept-Datetime)
 *   /replay/{coll}/coherence/{ts}/{url}    JSON: which capture each resource of the page comes from
 *
 * `ts` is 1 to 14 digits (padded: `2007` is the first second of 2007). The URL is taken from the
 * raw request target, query string included, as pywb does: `http:/x` (a slash folded away by
 * a client) and a URL without a scheme are read as http.
 */
export type Modifier = '' | 'mp_' | 'id_' | 'js_' | 'cs_' | 'im_' | 'oe_' | 'if_' | 'fr_';

const MODIFIERS = new Set<string>(['mp_', 'id_', 'js_', 'cs_', 'im_', 'oe_', 'if_', 'fr_']);

export type ReplayRoute =
  | { kind: 'memento'; coll: string; ts: string; mod: Modifier; url: string }
  | { kind: 'timeline'; coll: string; url: string }
  | { kind: 'timemap'; coll: string; format: 'link' | 'json'; url: string }
  | { kind: 'timegate'; coll: string; url: string }
  | { kind: 'coherence'; coll: string; ts: string; url: string }
  | { kind: 'static'; name: string };

/** A client's mistake in the archival URL: answered 400 with the message. */
export class ArchivalUrlError extends Error {}

export const REPLAY_PREFIX = '/replay/';
export const STATIC_PREFIX = '/replay/_static/';

/** The archived URL as given, made absolute: scheme restored, `http:/x` mended. */
export function archivedUrl(raw: string): string {
  let u = raw.trim();
  if (u === '') throw new ArchivalUrlError('no URL after the timestamp: /replay/COLLECTION/TIMESTAMP/URL');
  const m = /^([a-z][a-z0-9+.-]*):\/*/i.exec(u);
  if (m && /^https?$/i.test(m[1])) u = `${m[1].toLowerCase()}://${u.slice(m[0].length)}`;
  // No scheme, or a host with a port (`example.org:8080/`): http.
  else if (!m || (m[1].includes('.') && /^\d/.test(u.slice(m[1].length + 1)))) u = `http://${u.replace(/^\/+/, '')}`;
  else throw new ArchivalUrlError(`${JSON.stringify(u.slice(0, 100))}: only http and https URLs are replayed`);
  let parsed: URL;
  try {
    parsed = new URL(u);
  } catch {
    throw new ArchivalUrlError(`${JSON.stringify(u.slice(0, 100))}: not a URL`);
  }
  if (!parsed.hostname) throw new ArchivalUrlError(`${JSON.stringify(u.slice(0, 100))}: no host in the URL`);
  return u;
}

/** A timestamp of 1-14 digits padded to 14 (to the first second of its period). */
export function padTs(ts: string): string {
  return ts + '10000101000000'.slice(ts.length);
}

/** Parses the target of a request under /replay/ (path and query as sent). */
export function parseReplayTarget(target: string): ReplayRoute {
  if (target.startsWith(STATIC_PREFIX)) return { kind: 'static', name: target.slice(STATIC_PREFIX.length).split('?')[0] };
  const rest = target.slice(REPLAY_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) throw new ArchivalUrlError('expected /replay/COLLECTION/TIMESTAMP/URL (COLLECTION may be *)');
  let coll: string;
  try {
    coll = decodeURIComponent(rest.slice(0, slash));
  } catch {
    throw new ArchivalUrlError('bad percent-encoding in the collection name');
  }
  if (!/^[\w.*-]{1,100}$/.test(coll)) throw new ArchivalUrlError(`${JSON.stringify(coll.slice(0, 100))}: not a collection name (letters, digits, . _ -, or *)`);
  const after = rest.slice(slash + 1);
  const step = /^([^/]*)\//.exec(after);
  const head = step?.[1] ?? '';
  const tail = step ? after.slice(step[0].length) : '';
  if (head === '*') return { kind: 'timeline', coll, url: archivedUrl(tail) };
  if (head === 'timemap') {
    const f = /^(link|json)\/(.*)$/s.exec(tail);
    if (!f) throw new ArchivalUrlError('expected /replay/COLLECTION/timemap/link/URL or .../timemap/json/URL');
    return { kind: 'timemap', coll, format: f[1] as 'link' | 'json', url: archivedUrl(f[2]) };
  }
  if (head === 'coherence') {
    const c = /^(\d{1,14})\/(.*)$/s.exec(tail);
    if (!c) throw new ArchivalUrlError('expected /replay/COLLECTION/coherence/TIMESTAMP/URL');
    return { kind: 'coherence', coll, ts: padTs(c[1]), url: archivedUrl(c[2]) };
  }
  const t = /^(\d+)([a-z]{2}_)?$/.exec(head);
  if (t) {
    if (t[1].length > 14) throw new ArchivalUrlError(`${t[1]}: a timestamp has at most 14 digits (yyyyMMddHHmmss)`);
    const mod = (t[2] ?? '') as Modifier;
    if (mod && !MODIFIERS.has(mod)) throw new ArchivalUrlError(`${mod}: not a replay modifier (mp_, id_, js_, cs_, im_, oe_, if_, fr_)`);
    return { kind: 'memento', coll, ts: padTs(t[1]), mod, url: archivedUrl(tail) };
  }
  if (/^\d*[a-z]{2}_$/.test(head) || /^\d{15,}/.test(head))
    throw new ArchivalUrlError(`${JSON.stringify(head)}: not a timestamp (1-14 digits) with an optional modifier`);
  // No timestamp: the TimeGate of the URL.
  return { kind: 'timegate', coll, url: archivedUrl(after) };
}

/** The archival URL of a capture, as a path on the replay origin. */
export function archivalPath(coll: string, ts: string, mod: Modifier, url: string): string {
  return `${REPLAY_PREFIX}${coll === '*' ? '*' : encodeURIComponent(coll)}/${ts}${mod}/${url}`;
}
