/**
 * invertlinks (Nutch's LinkDb): outlinks of segments' crawl_parse, inverted to URL -> inlinks
 * (from URL, anchor text), merged with the LinkDb already there. Links point to URLs, so an
 * import's documents (versions) give their inlinks to every version of the target. Internal
 * links (same host) are dropped with `db.ignore.internal.links`; anchors are cut at
 * `db.max.anchor.length`; at most `db.max.inlinks` per URL are kept.
 */
import type { Job } from '../mapreduce/job.js';
import { datasetOf } from './crawl-datum.js';
import { splitDocumentKey } from '../segment/segment.js';

export interface Inlink {
  from: string;
  anchor: string;
}

export interface Inlinks {
  inlinks: Inlink[];
}

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
    for (const l of (value as { outlinks?: { url: string; anchor: string }[] }).outlinks ?? []) {
      if (l.url === from) continue;
      if (internal && host(l.url) === fromHost) {
        ctx.count('internal links ignored');
        continue;
      }
      emit(l.url, { inlinks: [{ from, anchor: l.anchor.slice(0, max) }] });
    }
  },
  combine(key, values, emit) {
    emit(key, { inlinks: (values as Inlinks[]).flatMap((v) => v.inlinks) });
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
