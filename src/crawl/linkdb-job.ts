/**
 * invertlinks (Nutch's LinkDb): outlinks of segments' crawl_parse, inverted to URL -> inlinks
 * (from URL, anchor text), merged with the LinkDb already there. Links point to URLs, so an
 * import's documents (versions) give their inlinks to every version of the target. Internal
 * links (same host) are dropped with `db.ignore.internal.links`; anchors are cut at
 * `db.max.anchor.length`; at most `db.max.inlinks` per URL are kept.
 */
import { RawJson, type Job } from '../mapreduce/job.js';
import { datasetOf } from './crawl-datum.js';
import { splitDocumentKey } from '../segment/segment.js';

export interface Inlink {
  from: string;
  anchor: string;
}

export interface Inlinks {
  inlinks: Inlink[];
}

/** How an inlinks value's JSON starts, as JSON.stringify writes it. */
const INLINKS_OPEN = '{"inlinks":[';

function host(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export const invertlinksJob: Job = {
  name: 'invertlinks',
  description: 'Segments\' outlinks (crawl_parse) + LinkDb -> the LinkDb: URL -> inlinks (from URL, anchor).',
  input: 'records',
  map(key, value, emit, ctx) {
    if (datasetOf(ctx.inputFile) !== 'crawl_parse') {
      emit(key, value); // an inlinks entry of the LinkDb already there
      return;
    }
    const from = key.includes(' ') ? splitDocumentKey(key).url : key;
    const internal = ctx.conf.getBoolean('db.ignore.internal.links');
    const max = ctx.conf.getNumber('db.max.anchor.length');
    const fromHost = host(from);
    // The value JSON.stringify gives { inlinks: [{ from, anchor }] }, with `from` written once
    // per page (694k outlinks on the bench corpus: a tenth of the job's CPU went to stringify).
    const head = `${INLINKS_OPEN}{"from":${JSON.stringify(from)},"anchor":`;
    for (const l of (value as { outlinks?: { url: string; anchor: string }[] }).outlinks ?? []) {
      if (l.url === from) continue;
      if (internal && host(l.url) === fromHost) {
        ctx.count('internal links ignored');
        continue;
      }
      emit(l.url, new RawJson(`${head}${JSON.stringify(l.anchor.slice(0, max))}}]}`));
    }
  },
  // The combine joins the lists as JSON text: 694k inlinks on the bench corpus were parsed and
  // stringified again only to be put in one array.
  rawCombineValues: true,
  combine(key, values, emit) {
    const texts = values as string[];
    const lists: string[] = [];
    for (const t of texts) {
      if (!t.startsWith(INLINKS_OPEN) || !t.endsWith(']}')) {
        // Another shape (not this job's own output): read, as a whole.
        emit(key, { inlinks: texts.flatMap((v) => (JSON.parse(v) as Inlinks).inlinks) });
        return;
      }
      if (t.length > INLINKS_OPEN.length + 2) lists.push(t.slice(INLINKS_OPEN.length, -2));
    }
    emit(key, new RawJson(`${INLINKS_OPEN}${lists.join(',')}]}`));
  },
  reduce(key, values, emit, ctx) {
    const max = ctx.conf.getNumber('db.max.inlinks');
    const seen = new Set<string>();
    const inlinks: Inlink[] = [];
    for (const v of values as Inlinks[]) {
      for (const l of v.inlinks) {
        const id = `${l.from}\t${l.anchor}`;
        if (seen.has(id)) continue;
        seen.add(id);
        inlinks.push(l);
      }
    }
    inlinks.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.anchor < b.anchor ? -1 : a.anchor > b.anchor ? 1 : 0));
    if (inlinks.length > max) ctx.count('inlinks over db.max.inlinks dropped', inlinks.length - max);
    emit(key, { inlinks: inlinks.slice(0, max) });
  },
};
