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
