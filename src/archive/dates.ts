/** Capture dates as the 14-digit `yyyyMMddHHmmss` form that CDX uses. */

/** WARC-Date (ISO 8601, UTC) to 14 digits; fractional seconds are dropped, as every indexer does. */
export function warcDateTo14(iso: string): string | undefined {
  const digits = iso.replace(/[^0-9]/g, '');
  if (digits.length < 4) return undefined;
  // `2008-04-30T20:48:25Z` -> 20080430204825; shorter forms are padded as the start of the period.
  return padDate(digits.slice(0, 14));
}

/**
 * An ARC header date to 14 digits, as IA's CDX-Writer reads them: the leading digits of the
 * field, cut at 14 or padded with zeros (the start of the period); undefined if it has none.
 */
export function arcDateTo14(field: string): string | undefined {
  const m = /^\d+/.exec(field);
  if (!m || m[0].length < 8) return undefined;
  return padDate(m[0].slice(0, 14));
}

function padDate(d: string): string {
  return (d + '00000000000000').slice(0, 14);
}

/** A moment as 14 digits, UTC (segment names, fetch dates, WARC file names). */
export function dateTo14(d: Date = new Date()): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** 14 digits back to an ISO 8601 UTC date without fractions (WARC-Date, WARC-Refers-To-Date). */
export function date14ToIso(d: string): string {
  return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}Z`;
}
