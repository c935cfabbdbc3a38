/**
 * A query compiled once, before any index set is asked (compileQuery): its FTS5 MATCH texts in
 * each form a set may run, the capture years its dates touch, the terms of its sites, its
 * exclusions, and its field filters' values. A set only chooses among the forms (open-set.ts:
 * the years where its years column answers them, the host phrase where the site is a small
 * part of it) and writes the filters as SQL over its own columns (set-filters.ts); nothing of
 * the query is parsed or rebuilt per set.
 */
import { isCjkUnit } from '../analysis/analyzer.js';
import { urlKey } from '../index/schema.js';
import { ftsPhrases, type FtsPhrase } from './fts-phrases.js';
import { words, type Query } from './query.js';

/** At most this many years are asked of the `years` column (a wider range is tested on the rows). */
const MAX_YEARS = 64;

/** A url: filter's URL, as the index stores URLs, and its 32-bit key (schema 4's `urlkey`). */
export interface UrlFilter {
  href: string;
  key: number;
}

/** A date: filter's range; `prefix` where it is one whole period (date:2016, date:200710). */
export interface DateFilter {
  from: string;
  to: string;
  prefix: string | undefined;
}

export interface QueryPlan {
  readonly q: Query;
  /** The years the date ranges touch, or undefined when there are none or too many to ask. */
  readonly years: readonly string[] | undefined;
  /** Whether every date range is whole years (date:2007, date:2007-2009): the years say it all. */
  readonly wholeYears: boolean;
  /** Each site's host terms, as the host column holds them (none for a site of no word). */
  readonly siteTerms: readonly (readonly string[])[];
  /**
   * The MATCH text of the words (undefined: the query has none), with the years clause
   * (`years`) and the sites' host phrases (`hosts`) or without.
   */
  match(years: boolean, hosts: boolean): string | undefined;
  /** The MATCH text that finds a query of fields alone through the text index (site:, date:), or undefined. */
  fields(years: boolean): string | undefined;
  /** The MATCH text of the exclusions alone, or undefined. */
  readonly exclusions: string | undefined;
  /** The words restricted to the short fields (title, anchors, URL words) within `match`, or undefined. */
  tier(match: string): string | undefined;
  /** The phrases of one of this plan's MATCH texts, as the scoring reads them (made once a text). */
  phrases(match: string): FtsPhrase[];
  /** The query's words (q.must, title: words aside) in FTS5's syntax, whose proximity the ranking weighs; none for a query of fewer than two. */
  readonly near: readonly string[];
  /** url: and date: as the filters need them. */
  readonly urls: readonly UrlFilter[];
  readonly dates: readonly DateFilter[];
}

/**
 * One phrase of terms in FTS5's syntax. A phrase that ends in a lone CJK character ends in a
 * prefix search: the index holds characters as bigrams (and each piece's last one alone), so
 * `天` is every term that starts with it, and `abc東` finds abc東京.
 */
function ftsPhrase(ws: readonly string[]): string {
  return isCjkUnit(ws[ws.length - 1] ?? '') ? `"${ws.join(' ')}" *` : `"${ws.join(' ')}"`;
}

function dateYears(q: Query): string[] | undefined {
  if (q.date.length === 0) return undefined;
  const years = new Set<string>();
  for (const r of q.date) {
    const from = Number(r.from.slice(0, 4));
    const to = Number(r.to.slice(0, 4));
    if (to - from + 1 > MAX_YEARS) return undefined;
    for (let y = from; y <= to; y++) years.add(String(y).padStart(4, '0'));
  }
  return years.size > MAX_YEARS ? undefined : [...years].sort();
}

/** `P` when the range is P000... to P999... (one whole year, month, day...), else undefined. */
function periodPrefix(from: string, to: string): string | undefined {
  let i = 0;
  while (i < from.length && from[i] === to[i]) i++;
  return i > 0 && /^0*$/.test(from.slice(i)) && /^9*$/.test(to.slice(i)) ? from.slice(0, i) : undefined;
}

function href(u: string): string {
  try {
    return new URL(u).href;
  } catch {
    return u;
  }
}

export function compileQuery(q: Query): QueryPlan {
  const years = dateYears(q);
  const siteTerms = q.site.map((s) => words(s));
  const hostTerms = siteTerms.filter((ws) => ws.length > 0);
  // site: can narrow the match inside FTS5 (the host column holds the host's words), so a
  // common word on one site of many is found among that site's pages; the exact host test
  // still follows in SQL. The years likewise: FTS5 intersects them with the words rather than
  // the rows being read for their dates.
  const hostClause = hostTerms.length ? `(${hostTerms.map((ws) => `host : ${ftsPhrase(ws)}`).join(' OR ')})` : undefined;
  const yearsClause = years?.length ? `years : (${years.map((y) => `"${y}"`).join(' OR ')})` : undefined;
  // A Korean word typed with a particle: as written or as its noun (analysis/korean.ts).
  const mustPhrase = (ws: readonly string[]): string => {
    const stem = q.stems[ws.join(' ')];
    return stem ? `(${ftsPhrase(ws)} OR ${ftsPhrase(stem)})` : ftsPhrase(ws);
  };
  const positive = [...q.must.map(mustPhrase), ...q.title.map((t) => `title : ${ftsPhrase(t)}`)];
  const not = q.not.map(ftsPhrase);
  const matchOf = (withYears: boolean, withHosts: boolean): string | undefined => {
    if (positive.length === 0) return undefined;
    const pos = [...positive];
    if (withHosts && hostClause) pos.push(hostClause);
    if (withYears && yearsClause) pos.push(yearsClause);
    return not.length ? `(${pos.join(' AND ')}) NOT (${not.join(' OR ')})` : pos.join(' AND ');
  };
  const forms = [matchOf(false, false), matchOf(false, true), matchOf(true, false), matchOf(true, true)];
  const fieldsOf = (withYears: boolean): string | undefined => {
    const clauses = [hostClause, withYears ? yearsClause : undefined].filter((c): c is string => c !== undefined);
    return clauses.length ? clauses.join(' AND ') : undefined;
  };
  const fields = [fieldsOf(false), fieldsOf(true)];
  const tierWords = q.must.length ? q.must.map(mustPhrase).join(' AND ') : undefined;
  const phrases = new Map<string, FtsPhrase[]>();
  return {
    q,
    years,
    wholeYears: q.date.every((r) => /^\d{4}0{10}$/.test(r.from) && /^\d{4}9{10}$/.test(r.to)),
    siteTerms,
    match: (withYears, withHosts) => forms[(withYears ? 2 : 0) + (withHosts ? 1 : 0)],
    fields: (withYears) => fields[withYears ? 1 : 0],
    exclusions: not.length ? not.join(' OR ') : undefined,
    tier: (match) => (tierWords ? `(${match}) AND {title anchors urlwords} : (${tierWords})` : undefined),
    phrases(match) {
      let p = phrases.get(match);
      if (!p) phrases.set(match, (p = ftsPhrases(match)));
      return p;
    },
    // A word searched as its noun too is near as its noun (which every form of it holds).
    near: q.must.length >= 2 ? q.must.map((ws) => ftsPhrase(q.stems[ws.join(' ')] ?? ws)) : [],
    urls: q.url.map((u) => ({ href: href(u), key: urlKey(href(u)) })),
    dates: q.date.map((r) => ({ ...r, prefix: periodPrefix(r.from, r.to) })),
  };
}
