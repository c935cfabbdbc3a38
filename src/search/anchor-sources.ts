/**
 * The pages to which the pages a view withholds gave anchor text. The LinkDb gives a page the
 * anchors of every page that links to it, and the index keeps them in the page's row; a
 * takedown must take those words away too (a query of a word that only a blocked page's link
 * holds must not find the page it links to). Which page each anchor came from is read where
 * the index job read it: each withheld page's outlinks, in its segment's crawl_parse (by its key,
 * `URL digest`, or by URL for a crawl's segment). The pages they link to are then matched, for
 * that view, without their anchor text (anchorless.ts); nothing is indexed again, and a takedown
 * takes effect at the reload that reads it.
 *
 * Pages the index does not hold gave anchors too: a page of another shard's index (a shard
 * front's backends each hold a part of the collection, and a link crosses them), or one never
 * indexed (noindex). Those are read from the crawl's LinkDb beside the index (`DIR/linkdb`,
 * what the index job read), each inlink's source decided by the rules: by its URL where the URL
 * decides (no dated rule can apply and there is no embargo); where a capture's date would
 * decide, unknown outside the index, as withheld unless the index holds the page (whose own
 * versions then decide, above).
 *
 * Closed when in doubt: where a withheld page's outlinks cannot be read (its segment is not
 * found, or the record is not there), more pages are withheld than are read (MAX_SOURCES), or
 * the index holds anchor text and no LinkDb is beside it, every document is matched without its
 * anchors for that view.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenSet } from './open-set.js';
import type { SegmentTexts } from '../segment/segment-texts.js';
import type { AccessRules } from '../access/rules.js';
import { parts } from '../mapreduce/dataset.js';
import { RecordFileReader } from '../mapreduce/record-file-reader.js';

/** Withheld pages whose outlinks are read at most; past this, every document is matched without its anchors. */
export const MAX_SOURCES = 100_000;

/** The URLs the withheld pages gave anchor text to, or why that could not be known (`pages`: withheld pages looked at). */
export type AnchorTargets = { urls: Set<string> } | { unread: string };

/**
 * A page's outlinks and the images it shows, as crawl_parse holds them
 * (`{"outlinks":[{"url":...,"anchor":...}],"images":[...]}`): both gave their targets words. Undefined for any other shape.
 */
function outlinksOf(value: unknown): { url: string; anchor: string }[] | undefined {
  const v = value as { outlinks?: unknown; images?: unknown } | undefined;
  if (!Array.isArray(v?.outlinks) || (v.images !== undefined && !Array.isArray(v.images))) return undefined;
  return [...v.outlinks, ...((v.images as unknown[] | undefined) ?? [])].filter(
    (l): l is { url: string; anchor: string } => typeof l?.url === 'string' && typeof l?.anchor === 'string',
  );
}

/**
 * What the pages withheld from user class `user` gave anchor text to: those `sets` withhold from
 * their current view, read from `crawlParse` (a reader of segments' crawl_parse), and those
 * outside them, from the LinkDb in `dir`.
 */
export function anchorTargets(sets: readonly OpenSet[], crawlParse: SegmentTexts, dir: string, rules: AccessRules, user: string | undefined): AnchorTargets {
  const urls = new Set<string>();
  // An index of no anchor text has none to withhold (nor a page to read for it).
  if (!sets.some((s) => s.holdsAnchors())) return { urls };
  try {
    const outside = linkDbTargets(sets, join(dir, 'linkdb'), rules, user, urls);
    if (outside) return outside;
    let pages = 0;
    for (const s of sets) {
      for (const page of s.access.withheldPages()) {
        if (++pages > MAX_SOURCES) return { unread: `more than ${MAX_SOURCES} pages are withheld` };
        const value = s.segmentRecord(crawlParse, page.segment, `${page.url} ${page.digest}`) ?? s.segmentRecord(crawlParse, page.segment, page.url);
        const links = outlinksOf(value);
        if (!links) return { unread: `the links of ${page.url} (${page.digest}) are not in segment ${page.segment || '?'}'s crawl_parse` };
        // A page's links to itself were never anchors (invertlinks leaves them out).
        for (const l of links) if (l.anchor && l.url !== page.url) urls.add(l.url);
      }
    }
  } catch (err) {
    // A damaged LinkDb or crawl_parse (a block that does not inflate): closed, and the service serves on.
    return { unread: `the anchors' sources cannot be read (${(err as Error).message})` };
  }
  return { urls };
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Adds to `urls` the pages that pages outside `sets`, withheld from `user` by `rules`, gave anchor
 * text to, as the LinkDb at `linkdb` lists their inlinks; returns why it could not, if so.
 */
function linkDbTargets(sets: readonly OpenSet[], linkdb: string, rules: AccessRules, user: string | undefined, urls: Set<string>): AnchorTargets | undefined {
  // Anchors, and no way of knowing whose they are.
  if (!existsSync(linkdb)) return { unread: `no LinkDb beside the index (${linkdb}) tells where its anchor text came from` };
  let readers: RecordFileReader[];
  try {
    readers = parts(linkdb).map((p) => new RecordFileReader(p));
  } catch (err) {
    return { unread: `the LinkDb ${linkdb} cannot be read (${(err as Error).message})` };
  }
  // A class no rule names is the public's (as the views take it).
  const cls = user && rules.users.includes(user) ? user : undefined;
  const byHost = new Map<string, boolean>();
  const inIndex = (url: string) => sets.some((s) => s.holdsPage(url));
  const withheld = (from: string): boolean => {
    const host = hostOf(from) ?? '';
    let touched = byHost.get(host);
    if (touched === undefined) byHost.set(host, (touched = !host || rules.touchesHost(host)));
    const key = touched ? rules.keyOf(from) : undefined;
    const dated = key === undefined ? rules.options.embargo !== undefined : rules.dated(key);
    // The date would decide: the index's own versions of the page do, where it holds one.
    if (dated) return !inIndex(from);
    return (key === undefined ? rules.verdictDefault('') : rules.verdict(key, '', cls)) !== 'allow';
  };
  for (const r of readers) {
    for (const { key: target, value } of r.entries()) {
      const inlinks = (value as { inlinks?: { from?: unknown; anchor?: unknown }[] } | undefined)?.inlinks;
      if (!Array.isArray(inlinks)) return { unread: `the LinkDb ${r.path}: ${target} has no list of inlinks` };
      for (const l of inlinks) {
        if (typeof l?.from !== 'string' || typeof l.anchor !== 'string' || !l.anchor) continue;
        if (withheld(l.from)) {
          urls.add(target);
          break;
        }
      }
    }
  }
  return undefined;
}
