/**
 * A CDX query as pywb's CDX server reads one: the URL canonicalized to its SURT key and turned
 * into a key range by match type (exact, prefix, host, domain; `url*` and `*.domain` are the
 * shorthands), dates padded the way pywb pads them (`from` down to the first second of its
 * period, `to` up to the last), filters, collapse, sort and limit. Lines are compared as bytes
 * (the order `LC_ALL=C sort` gives), so keys are compared as latin1 strings of their UTF-8.
 */
import { surt } from './surt.js';
import type { CdxFields } from './cdx-reader.js';
import { CdxFilter } from './cdx-filter.js';

/** Filters one query may carry (each is compiled and run on every line read). */
const MAX_FILTERS = 32;
import { NwaxError } from '../util/errors.js';

export type MatchType = 'exact' | 'prefix' | 'host' | 'domain';
export type CdxOutput = 'cdx' | 'cdxj' | 'json';

export interface CdxQuery {
  url: string;
  matchType: MatchType;
  /** First key of the range (inclusive). */
  startKey: string;
  /** End of the range (exclusive). */
  endKey: string;
  from?: string;
  to?: string;
  filters: CdxFilter[];
  /** Collapse adjacent lines whose field (or its first N characters) is the same. */
  collapse?: { field: keyof CdxFields; chars?: number };
  limit: number;
  sort: 'default' | 'reverse' | 'closest';
  closest?: string;
  output: CdxOutput;
  /** Fields to print (fl=), all when undefined. */
  fields?: (keyof CdxFields)[];
}

/** A bad query parameter: a 400 on the service, exit 2 on the command line. */
export class CdxQueryError extends NwaxError {
  constructor(message: string) {
    super('NWAX_QUERY', message, 2);
    this.name = 'CdxQueryError';
  }
}

const PAD_DOWN = '10000101000000';
const PAD_UP = '29991231235959';

/** A partial 14-digit timestamp padded to a full one (pywb's pad_timestamp). */
export function padTimestamp(ts: string, up: boolean, name: string): string {
  const digits = ts.replace(/[-:T\sZ]/g, '');
  if (!/^\d{1,14}$/.test(digits)) throw new CdxQueryError(`${name}=${ts}: not a date (yyyy, yyyyMM, ... up to yyyyMMddHHmmss)`);
  const pad = up ? PAD_UP : PAD_DOWN;
  return digits + pad.slice(digits.length);
}

function incLastChar(s: string): string {
  return s.slice(0, -1) + String.fromCharCode(s.charCodeAt(s.length - 1) + 1);
}

/** The key range a URL and match type select (pywb's calc_search_range, SURT-ordered). */
export function keyRange(rawUrl: string, matchType: MatchType): { startKey: string; endKey: string } {
  let key = surt(rawUrl);
  switch (matchType) {
    case 'exact':
      // `key ` lines (key, space, timestamp) and nothing longer: '!' follows ' '.
      return { startKey: `${key} `, endKey: `${key}!` };
    case 'prefix': {
      // Keep a trailing slash or ? the user typed (surt() may drop it).
      if (rawUrl.endsWith('/') && !key.endsWith('/')) key += '/';
      if (rawUrl.endsWith('?') && !key.endsWith('?')) key += '?';
      return { startKey: key, endKey: incLastChar(key) };
    }
    case 'host': {
      const host = key.split(')/')[0];
      return { startKey: `${host})/`, endKey: `${host}*` };
    }
    case 'domain': {
      const host = key.split(')/')[0];
      // `org,example)/...` and `org,example,www)/...`: ')' and ',' both sort before '-'.
      return { startKey: host.includes(',') ? `${host})/` : `${host},`, endKey: `${host}-` };
    }
  }
}

export interface QueryParams {
  url?: string;
  matchType?: string;
  from?: string;
  to?: string;
  filter?: string[];
  collapse?: string;
  collapseTime?: string;
  limit?: string | number;
  sort?: string;
  closest?: string;
  reverse?: string;
  output?: string;
  fl?: string;
}

const MATCH_TYPES = new Set(['exact', 'prefix', 'host', 'domain']);

/** Builds a query from pywb's parameter names; errors name the parameter. */
export function parseCdxQuery(p: QueryParams, maxLimit = Infinity): CdxQuery {
  let url = p.url?.trim();
  if (!url) throw new CdxQueryError('url= is required (a URL, url* for a prefix, *.domain for a domain)');
  let matchType = p.matchType as MatchType | undefined;
  if (matchType !== undefined && !MATCH_TYPES.has(matchType)) throw new CdxQueryError(`matchType=${matchType}: not one of exact, prefix, host, domain`);
  if (!matchType) {
    if (url.startsWith('*.')) {
      url = url.slice(2);
      matchType = 'domain';
    } else if (url.endsWith('*')) {
      url = url.slice(0, -1);
      matchType = 'prefix';
    } else matchType = 'exact';
  }
  const { startKey, endKey } = keyRange(url, matchType);
  const from = p.from ? padTimestamp(p.from, false, 'from') : undefined;
  const to = p.to ? padTimestamp(p.to, true, 'to') : undefined;
  if (from && to && from > to) throw new CdxQueryError(`from=${p.from} is after to=${p.to}`);
  const given = (p.filter ?? []).filter((f) => f !== '');
  if (given.length > MAX_FILTERS) throw new CdxQueryError(`filter: ${given.length} filters given, at most ${MAX_FILTERS} are taken`);
  const filters = given.map((f) => new CdxFilter(f));
  let collapse: CdxQuery['collapse'];
  if (p.collapse) {
    const m = /^([a-z]+)(?::(\d+))?$/i.exec(p.collapse);
    if (!m) throw new CdxQueryError(`collapse=${p.collapse}: expected a field name, optionally :N characters (collapse=timestamp:8)`);
    collapse = { field: CdxFilter.fieldName(m[1]), chars: m[2] ? Number(m[2]) : undefined };
  } else if (p.collapseTime) {
    if (!/^\d{1,2}$/.test(p.collapseTime)) throw new CdxQueryError(`collapseTime=${p.collapseTime}: expected a number of timestamp digits (1-14)`);
    collapse = { field: 'timestamp', chars: Number(p.collapseTime) };
  }
  let limit = maxLimit;
  if (p.limit !== undefined && p.limit !== '') {
    const n = Number(p.limit);
    if (!Number.isInteger(n) || n < 1) throw new CdxQueryError(`limit=${p.limit}: expected a whole number of lines, at least 1`);
    limit = Math.min(n, maxLimit);
  }
  let sort: CdxQuery['sort'] = 'default';
  if (p.sort === 'reverse' || p.reverse === 'true' || p.reverse === '1') sort = 'reverse';
  else if (p.sort === 'closest') sort = 'closest';
  else if (p.sort && p.sort !== 'default') throw new CdxQueryError(`sort=${p.sort}: not one of default, reverse, closest`);
  let closest: string | undefined;
  if (sort === 'closest') {
    if (!p.closest) throw new CdxQueryError('sort=closest needs closest=TIMESTAMP');
    if (matchType !== 'exact') throw new CdxQueryError('sort=closest works on one URL only (matchType=exact)');
    closest = padTimestamp(p.closest, false, 'closest');
  }
  const output = (p.output ?? 'cdx').replace(/^text$/, 'cdx') as CdxOutput;
  if (!['cdx', 'cdxj', 'json'].includes(output)) throw new CdxQueryError(`output=${p.output}: not one of cdx (or text), cdxj, json`);
  const fields = p.fl ? p.fl.split(',').map((f) => CdxFilter.fieldName(f.trim())) : undefined;
  return { url, matchType, startKey, endKey, from, to, filters, collapse, limit, sort, closest, output, fields };
}
