/**
 * The query language: words (all required), "phrases", -exclusions (of words or phrases), and
 * fields: site: (host, with or without www., subdomains included), type: (a MIME type, its
 * major part, or its subtype: type:pdf), collection:, url: (one URL: all its versions),
 * title: (a word of the title), lang: (a language: lang:ja, lang:ko,ja), date:YYYY[MM[DD[hh[mm[ss]]]]]
 * and date:A-B (the upper bound padded to the end of its period: date:2007-2008 runs to the
 * last second of 2008). A comma list means any of them (collection:a,b). Errors point at the
 * bad token. Words become terms through the analyzer the index was made with
 * (analysis/analyzer.ts): a word that is several terms (東京都, e-mail) is a phrase of them.
 * What a query is in FTS5's syntax and SQL is compiled from this once (query-plan.ts).
 */
import { NwaxError } from '../util/errors.js';
import { markTerms, surfaces, terms } from '../analysis/analyzer.js';
import { primaryLanguage } from '../analysis/language.js';
import { particleStem } from '../analysis/korean.js';

export interface DateRange {
  from: string;
  to: string;
}

export interface Query {
  /** Words and phrases that must all match (each phrase as its words in order). */
  must: string[][];
  /** Words and phrases that must not match. */
  not: string[][];
  /** title: words. */
  title: string[][];
  site: string[];
  type: string[];
  collection: string[];
  url: string[];
  date: DateRange[];
  lang: string[];
  /** The terms to mark in snippets. */
  highlight: string[];
  /** The query's words as typed (marks kept), for the exact-form feature of the ranking. */
  exact: string[];
  /**
   * The nouns of Korean words typed with a particle (analysis/korean.ts), by the word's terms
   * joined by spaces: such a word is searched as written or as its noun.
   */
  stems: Record<string, string[]>;
}

const FIELDS = new Set(['site', 'type', 'collection', 'url', 'title', 'date', 'lang']);

export class QuerySyntaxError extends NwaxError {
  constructor(query: string, at: number, what: string) {
    super('NWAX_QUERY', `query syntax: ${what} at column ${at + 1}:\n  ${query}\n  ${' '.repeat(at)}^`, 2);
    this.name = 'QuerySyntaxError';
  }
}

/** The terms of a text as the index holds them (the analyzer's, without the index's CJK tails). */
export function words(text: string): string[] {
  return terms(text);
}

function pad(date: string, digit: string): string {
  return date + digit.repeat(14 - date.length);
}

function dateRange(value: string, query: string, at: number): DateRange {
  const m = /^(\d{4,14})(?:-(\d{4,14}))?$/.exec(value);
  if (!m) throw new QuerySyntaxError(query, at, `date:${value} is not YYYY[MMDDhhmmss] or a range A-B`);
  // The lower bound padded with zeros, the upper to the end of its period (as a string, every
  // date with the prefix sorts below the prefix followed by nines).
  const from = pad(m[1], '0');
  const to = pad(m[2] ?? m[1], '9');
  if (to < from) throw new QuerySyntaxError(query, at, `date:${value} ends before it starts`);
  return { from, to };
}

/** Different words a query may hold (as Google's 32): each costs FTS5 a posting-list scan. */
export const MAX_TERMS = 32;

function unique(phrases: string[][]): string[][] {
  const seen = new Set<string>();
  return phrases.filter((p) => {
    const k = p.join(' ');
    return !seen.has(k) && seen.add(k);
  });
}

export function parseQuery(query: string): Query {
  const q: Query = { must: [], not: [], title: [], site: [], type: [], collection: [], url: [], date: [], lang: [], highlight: [], exact: [], stems: {} };
  let i = 0;
  while (i < query.length) {
    if (/\s/.test(query[i])) {
      i++;
      continue;
    }
    const start = i;
    let negate = false;
    if (query[i] === '-' && i + 1 < query.length && !/\s/.test(query[i + 1])) {
      negate = true;
      i++;
    }
    if (query[i] === '"') {
      const end = query.indexOf('"', i + 1);
      if (end < 0) throw new QuerySyntaxError(query, i, 'unterminated phrase (no closing ")');
      const inner = query.slice(i + 1, end);
      const phrase = words(inner);
      i = end + 1;
      if (phrase.length === 0) continue;
      (negate ? q.not : q.must).push(phrase);
      if (!negate) {
        q.highlight.push(...markTerms(inner));
        q.exact.push(...surfaces(inner));
      }
      continue;
    }
    let end = i;
    while (end < query.length && !/\s/.test(query[end])) end++;
    const token = query.slice(i, end);
    i = end;
    const colon = token.indexOf(':');
    const field = colon > 0 ? token.slice(0, colon).toLowerCase() : '';
    if (FIELDS.has(field)) {
      const value = token.slice(colon + 1);
      if (value === '') throw new QuerySyntaxError(query, start, `${field}: needs a value`);
      if (negate) throw new QuerySyntaxError(query, start, `-${field}: is not supported (exclude words, not fields)`);
      const list = value.split(',').filter(Boolean);
      switch (field) {
        case 'date':
          q.date.push(...list.map((v) => dateRange(v, query, start)));
          break;
        case 'title': {
          const w = words(value);
          if (w.length) q.title.push(w);
          q.highlight.push(...markTerms(value));
          break;
        }
        case 'site':
          q.site.push(...list.map((s) => s.toLowerCase().replace(/^www\d*\./, '')));
          break;
        case 'type':
          q.type.push(...list.map((s) => s.toLowerCase()));
          break;
        case 'url':
          q.url.push(...list);
          break;
        case 'lang': {
          const bad = list.find((l) => !primaryLanguage(l));
          if (bad !== undefined) throw new QuerySyntaxError(query, start, `lang:${bad} is not a language code (lang:en, lang:zh-CN)`);
          q.lang.push(...list.map((l) => primaryLanguage(l)));
          break;
        }
        default:
          q.collection.push(...list);
      }
      continue;
    }
    const w = words(token);
    if (w.length === 0) continue;
    // A token that tokenizes to several words (e.g. "e-mail") is a phrase of them.
    (negate ? q.not : q.must).push(w);
    if (!negate) {
      q.highlight.push(...markTerms(token));
      q.exact.push(...surfaces(token));
      const stem = particleStem(token);
      if (stem !== undefined) {
        q.stems[w.join(' ')] = words(stem);
        q.highlight.push(...markTerms(stem));
      }
    }
  }
  // The same word or phrase asked twice asks nothing more, but costs FTS5 a term each time.
  q.must = unique(q.must);
  q.not = unique(q.not);
  q.title = unique(q.title);
  q.highlight = [...new Set(q.highlight)];
  const terms = new Set([...q.must, ...q.not, ...q.title].flat()).size;
  if (terms > MAX_TERMS) {
    throw new NwaxError('NWAX_QUERY', `query has ${terms} different words; at most ${MAX_TERMS} are searched (repeated words count once)`, 2);
  }
  const filters = q.site.length + q.type.length + q.collection.length + q.url.length + q.date.length + q.lang.length;
  if (q.must.length + q.title.length + filters === 0) {
    throw new QuerySyntaxError(query, 0, q.not.length ? 'a query needs a word or a field besides -exclusions' : 'empty query');
  }
  return q;
}
