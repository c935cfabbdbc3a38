/**
 * From a URL and a time to the records a memento is served from: the closest capture that can
 * be replayed, read from its archive at its offset. Passed over on the way, as pywb and
 * wabac.js do: self-redirects (a 3xx to the same URL but for scheme, `www.` and a trailing
 * slash: replaying one loops), records that are not captures (metadata and request records
 * share their page's URL), server errors while a better capture exists, and captures whose
 * archive cannot be read. A revisit is served from the capture it repeats: the same URL's
 * with the same digest, else the one its WARC-Refers-To-Target-URI and -Date name; a 3xx
 * revisit replays from its own headers.
 */
import { hidePaths } from '../util/hide-paths.js';
import { ArchiveReader } from '../archive/reader.js';
import { openByteRange, type ByteSource } from '../archive/byte-source.js';
import type { ArchiveRecord } from '../archive/record.js';
import { warcDateTo14 } from '../archive/dates.js';
import type { Capture, CaptureIndex } from './captures.js';
import { tsToMs } from './captures.js';
import { cutFragment, trimEndChar } from '../util/trim.js';

export interface Loaded {
  record: ArchiveRecord;
  source: ByteSource;
}

export interface Resolved {
  /** The memento: its time is the Memento-Datetime. */
  capture: Capture;
  /** Status and headers come from here. */
  head: ArchiveRecord;
  /** The payload comes from here (the original of a revisit); undefined: none (a redirect). */
  body: ArchiveRecord | undefined;
  /** Whether the capture was found by the fuzzy rule. */
  fuzzy: boolean;
  close(): void;
}

export type Resolution = Resolved | { missing: true; reasons: string[] };

const NOT_CAPTURES = new Set(['metadata', 'request', 'warcinfo', 'conversion', 'continuation']);

function bare(url: string): string {
  return cutFragment(trimEndChar(url.replace(/^https?:\/\//i, '').replace(/^www\d*\./i, ''), '/'));
}

/** A redirect from `from` to `location` that leads back to the same URL. */
export function isSelfRedirect(from: string, location: string | undefined): boolean {
  if (!location) return false;
  try {
    return bare(new URL(location.trim(), from).href) === bare(new URL(from).href);
  } catch {
    return false;
  }
}

export async function loadCapture(c: Capture, remote = { timeout: 10_000, retries: 1 }): Promise<Loaded> {
  const location = await c.locate();
  if (!location) throw new Error(`archive ${c.filename} is in none of the places replay looks (the segment's captures.archives, nwax.archive.locations)`);
  const source = await openByteRange(location, { offset: c.offset, length: c.length > 0 ? c.length : undefined }, remote);
  try {
    const reader = new ArchiveReader(source, { strict: false });
    const it = reader[Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done) throw new Error(`${location}: no record at offset ${c.offset}`);
    return { record: first.value, source };
  } catch (err) {
    source.close();
    throw err;
  }
}

const is3xx = (r: ArchiveRecord) => /^3/.test(r.http?.status ?? '');

/** The original of a revisit, or undefined. */
async function original(index: CaptureIndex, c: Capture, revisit: ArchiveRecord, coll: string): Promise<Loaded | undefined> {
  const near = (list: Capture[], ts: string) => list.sort((a, b) => Math.abs(tsToMs(a.ts) - tsToMs(ts)) - Math.abs(tsToMs(b.ts) - tsToMs(ts)));
  const same = (list: Capture[]) => list.filter((x) => x.mime !== 'warc/revisit' && x.digest === c.digest && c.digest !== '-');
  const tries: Capture[] = near(same(await index.captures(c.url, coll)), c.ts);
  const target = revisit.headers.get('WARC-Refers-To-Target-URI');
  if (target && target !== c.url) {
    const when = warcDateTo14(revisit.headers.get('WARC-Refers-To-Date') ?? '') ?? c.ts;
    tries.push(...near(same(await index.captures(target, coll)), when));
  }
  for (const t of tries.slice(0, 10)) {
    try {
      const l = await loadCapture(t);
      if (l.record.type !== 'revisit' && !NOT_CAPTURES.has(l.record.type)) return l;
      l.source.close();
    } catch {
      // Its archive is gone: the next one.
    }
  }
  return undefined;
}

/** The memento of `url` nearest `ts` that can be served. */
export async function resolveMemento(index: CaptureIndex, url: string, ts: string, coll: string): Promise<Resolution> {
  const { captures, fuzzy } = await index.closest(url, ts, coll);
  // Server errors last: a page's 500 is a capture, but rarely the one wanted.
  const order = [...captures.filter((c) => !/^5/.test(c.status)), ...captures.filter((c) => /^5/.test(c.status))];
  const reasons: string[] = [];
  for (const c of order.slice(0, 25)) {
    let l: Loaded;
    try {
      l = await loadCapture(c);
    } catch (err) {
      // Answered to the public (a 502, a 404's reasons): the archive by its name, not where it lies.
      reasons.push(`${c.ts} ${c.filename}: ${hidePaths((err as Error).message)}`);
      continue;
    }
    const r = l.record;
    if (NOT_CAPTURES.has(r.type) || (r.format === 'arc' && r.type === 'filedesc')) {
      l.source.close();
      continue;
    }
    if (is3xx(r) && isSelfRedirect(c.url, r.http?.headers.get('Location'))) {
      reasons.push(`${c.ts}: a redirect to itself, passed over`);
      l.source.close();
      continue;
    }
    if (r.type === 'revisit' && !is3xx(r)) {
      const o = await original(index, c, r, coll);
      if (!o) {
        reasons.push(`${c.ts}: a revisit whose original capture (digest ${c.digest}) is not in the archive`);
        l.source.close();
        continue;
      }
      return {
        capture: c,
        head: o.record,
        body: o.record,
        fuzzy,
        close: () => {
          l.source.close();
          o.source.close();
        },
      };
    }
    return { capture: c, head: r, body: is3xx(r) ? undefined : r, fuzzy, close: () => l.source.close() };
  }
  return { missing: true, reasons };
}
