/**
 * The HTTP status filter of the import (`nwax.filter.http.status`, as NutchWAX's
 * `nutchwax.filter.http.status`): a comma-separated list of codes `N`, ranges `N-M` and the
 * word `unknown` (records without an HTTP status: resource records, dns:, ARC without HTTP).
 * Every item counts: `200-299,304,unknown` admits all three kinds.
 */
import { NwaxError } from '../util/errors.js';

export type StatusFilter = (status: number | undefined) => boolean;

export function parseStatusFilter(spec: string): StatusFilter {
  const ranges: [number, number][] = [];
  let unknown = false;
  for (const raw of spec.split(',')) {
    const item = raw.trim().toLowerCase();
    if (item === '') continue;
    if (item === 'unknown') {
      unknown = true;
      continue;
    }
    const m = /^(\d{3})(?:\s*-\s*(\d{3}))?$/.exec(item);
    if (!m) throw new NwaxError('NWAX_CONF', `nwax.filter.http.status: "${raw.trim()}" is not a status, a range N-M or "unknown"`);
    const lo = Number(m[1]);
    const hi = m[2] ? Number(m[2]) : lo;
    if (hi < lo) throw new NwaxError('NWAX_CONF', `nwax.filter.http.status: range ${raw.trim()} ends before it starts`);
    ranges.push([lo, hi]);
  }
  return (status) => (status === undefined ? unknown : ranges.some(([lo, hi]) => status >= lo && status <= hi));
}
