/**
 * The search parameters of the service, with NutchWAX's names: `query`, `start`,
 * `hitsPerPage`, `hitsPerSite` (or `hitsPerDup`), `dtstart`/`dtend` (a date range added to the
 * query). A bad value is a 400 with a message, never a 500.
 */
import { NwaxError } from '../util/errors.js';

export class BadRequest extends NwaxError {
  constructor(message: string) {
    super('NWAX_BAD_REQUEST', message, 2);
    this.name = 'BadRequest';
  }
}

export interface SearchParams {
  query: string;
  start: number;
  hitsPerPage: number;
  hitsPerSite: number;
  sort: 'score' | 'date' | 'url';
  reverse: boolean;
  dedupField: 'site' | 'url' | 'digest';
  /** Rank every match exactly rather than the capped ranking's candidates (`exact=true`). */
  exact: boolean;
  /** The chart of hits over time as a share of the collection's versions in each period (`share=1`). */
  share: boolean;
}

function oneOf<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const raw = params.get(name);
  if (raw === null || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new BadRequest(`${name}: "${raw.slice(0, 40)}" is not one of ${allowed.join(', ')}`);
  return raw as T;
}

export const MAX_HITS_PER_PAGE = 100;
export const MAX_QUERY_LENGTH = 2048;

function int(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new BadRequest(`${name}: "${raw.slice(0, 40)}" is not a whole number ≥ ${min}`);
  const n = Number(raw);
  if (n < min || n > max) throw new BadRequest(`${name}: ${n} is outside ${min}..${max}`);
  return n;
}

function date(params: URLSearchParams, name: string): string | undefined {
  const raw = params.get(name);
  if (!raw) return undefined;
  const digits = raw.replace(/[-:T\sZ]/g, '');
  if (!/^\d{4,14}$/.test(digits)) throw new BadRequest(`${name}: "${raw.slice(0, 40)}" is not a date (YYYY[MMDDhhmmss] or ISO 8601)`);
  return digits;
}

export function searchParams(params: URLSearchParams, defaults: { hitsPerSite: number }): SearchParams {
  let query = (params.get('query') ?? params.get('q') ?? '').trim();
  if (query.length > MAX_QUERY_LENGTH) throw new BadRequest(`query: ${query.length} characters, at most ${MAX_QUERY_LENGTH}`);
  if (query.includes('\ufffd')) throw new BadRequest('query: not valid UTF-8');
  const from = date(params, 'dtstart');
  const to = date(params, 'dtend');
  if (from || to) query = `${query} date:${from ?? '1900'}-${to ?? '9999'}`.trim();
  if (!query) throw new BadRequest('query: empty (give ?query=words)');
  return {
    query,
    start: int(params, 'start', 0, 0, 100_000),
    hitsPerPage: int(params, 'hitsPerPage', 10, 1, MAX_HITS_PER_PAGE),
    hitsPerSite: int(params, 'hitsPerSite', params.has('hitsPerDup') ? int(params, 'hitsPerDup', 0, 0, 1000) : defaults.hitsPerSite, 0, 1000),
    sort: oneOf(params, 'sort', ['score', 'date', 'url'] as const, 'score'),
    reverse: oneOf(params, 'reverse', ['true', 'false'] as const, 'false') === 'true',
    exact: ['true', '1'].includes(oneOf(params, 'exact', ['true', 'false', '1', '0'] as const, 'false')),
    share: oneOf(params, 'share', ['1', '0'] as const, '0') === '1',
    // NutchWAX called the site field "site"; "host" is accepted for it.
    dedupField: (() => {
      const f = oneOf(params, 'dedupField', ['site', 'host', 'url', 'digest'] as const, 'site');
      return f === 'host' ? 'site' : f;
    })(),
  };
}
