/**
 * A query's fields as SQL over an index set's documents table: site: (the host or a subdomain),
 * type: (a MIME type, its major part or subtype), collection:, lang:, url: and date: (a whole
 * period as a prefix of the dates, any other range through nwax_dates_in), the deleted mark
 * where dedup set some, and the versions the access rules withhold.
 */
import type { QueryPlan } from './query-plan.js';

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
export function fieldFilters(plan: QueryPlan, ctx: FilterContext, datesAnswered = false): { where: string[]; params: unknown[] } {
  const { q } = plan;
  // The deleted mark only where dedup marked some: it is stored after the text, and testing it
  // reads each row's text from its overflow pages.
  const where: string[] = [ctx.hasDeleted ? 'docs.deleted = 0' : '1'];
  if (ctx.withheld) where.push(shownOnly(ctx.withheld));
  const params: unknown[] = [];
  const anyOf = <T>(items: readonly T[], one: (v: T) => string, values: (v: T) => unknown[]) => {
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
  anyOf(
    plan.urls,
    () => (ctx.urlKeyed ? '(docs.urlkey = ? AND docs.url = ?)' : 'docs.url = ?'),
    (u) => (ctx.urlKeyed ? [u.key, u.href] : [u.href]),
  );
  // A whole period (date:2016, date:200710) is a prefix of its dates: a native string test;
  // any other range goes through the JavaScript function.
  if (!datesAnswered)
    anyOf(
      plan.dates,
      (r) => (r.prefix ? `instr(' ' || ${ctx.dates}, ?) > 0` : `nwax_dates_in(${ctx.dates}, ?, ?)`),
      (r) => (r.prefix ? [` ${r.prefix}`] : [r.from, r.to]),
    );
  return { where, params };
}
