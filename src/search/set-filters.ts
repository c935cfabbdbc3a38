/**
 * A query's fields as SQL over an index set's documents table: site: (the host or a subdomain),
 * type: (a MIME type, its major part or subtype), collection:, lang:, url: and date: (a whole
 * period as a prefix of the dates, any other range through nwax_dates_in), the deleted mark
 * where dedup set some, and the versions the access rules withhold.
 */
import type { Query } from './query.js';
import { urlKey } from '../index/schema.js';

/** `P` when the range `from-to` is P000... to P999... (one whole year, month, day...), else undefined. */
function periodPrefix(range: string): string | undefined {
  const [from, to] = range.split('-');
  let i = 0;
  while (i < from.length && from[i] === to[i]) i++;
  return i > 0 && /^0*$/.test(from.slice(i)) && /^9*$/.test(to.slice(i)) ? from.slice(0, i) : undefined;
}

/** The condition that leaves out the documents of a table of withheld ones (access-view.ts), on `column`. */
export function shownOnly(table: string, column = 'docs.id'): string {
  return `${column} NOT IN (SELECT id FROM temp.${table})`;
}

/** What the filters need to know of the index set. */
export interface FilterContext {
  /** Whether dedup marked documents deleted. */
  hasDeleted: boolean;
  /** The index's MIME types, where documents are indexed by MIME type (schema 3); else undefined. */
  mimes: (() => string[]) | undefined;
  /** The SQL expression of a document's dates (its own and its dates index's). */
  dates: string;
  /** The temporary table of the versions the access rules withhold from this query's class, if any (access-view.ts). */
  withheld?: string;
  /** Whether URLs are found by their hash (schema 4's `urlkey`; before, an index of the URLs). */
  urlKeyed?: boolean;
}

/** WHERE clauses and parameters for the query's fields. */
export function fieldFilters(q: Query, ctx: FilterContext, datesAnswered = false): { where: string[]; params: unknown[] } {
  // The deleted mark only where dedup marked some: it is stored after the text, and testing it
  // reads each row's text from its overflow pages.
  const where: string[] = [ctx.hasDeleted ? 'docs.deleted = 0' : '1'];
  if (ctx.withheld) where.push(shownOnly(ctx.withheld));
  const params: unknown[] = [];
  const anyOf = (items: string[], one: (v: string) => string, values: (v: string) => unknown[]) => {
    if (items.length === 0) return;
    where.push(`(${items.map(one).join(' OR ')})`);
    for (const v of items) params.push(...values(v));
  };
  anyOf(
    q.site,
    () => '(docs.host = ? OR docs.host LIKE ?)',
    (s) => [s, `%.${s}`],
  );
  if (ctx.mimes && q.type.length) {
    // The types named, as the index's own MIME types: an IN list the docs_mime index answers
    // (LIKE '%/pdf' cannot use an index: a query of type: alone read every document).
    const mimes = ctx.mimes().filter((mime) => {
      const m = mime.toLowerCase();
      return q.type.some((t) => (t.includes('/') ? m === t : m.startsWith(`${t}/`) || m.endsWith(`/${t}`)));
    });
    where.push(mimes.length ? `docs.mime IN (${mimes.map(() => '?').join(', ')})` : '0');
    params.push(...mimes);
  } else
    anyOf(
      q.type,
      (t) => (t.includes('/') ? 'docs.mime = ?' : '(docs.mime LIKE ? OR docs.mime LIKE ?)'),
      (t) => (t.includes('/') ? [t] : [`${t}/%`, `%/${t}`]),
    );
  anyOf(
    q.collection,
    () => 'docs.collection = ?',
    (c) => [c],
  );
  anyOf(
    q.lang,
    () => 'docs.lang = ?',
    (l) => [l],
  );
  const href = (u: string) => {
    try {
      return new URL(u).href;
    } catch {
      return u;
    }
  };
  anyOf(
    q.url,
    () => (ctx.urlKeyed ? '(docs.urlkey = ? AND docs.url = ?)' : 'docs.url = ?'),
    (u) => (ctx.urlKeyed ? [urlKey(href(u)), href(u)] : [href(u)]),
  );
  // A whole period (date:2016, date:200710) is a prefix of its dates: a native string test;
  // any other range goes through the JavaScript function.
  if (!datesAnswered)
    anyOf(
      q.date.map((r) => `${r.from}-${r.to}`),
      (r) => (periodPrefix(r) ? `instr(' ' || ${ctx.dates}, ?) > 0` : `nwax_dates_in(${ctx.dates}, ?, ?)`),
      (r) => (periodPrefix(r) ? [` ${periodPrefix(r)}`] : r.split('-')),
    );
  return { where, params };
}
