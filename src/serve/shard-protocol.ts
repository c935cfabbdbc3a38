/**
 * The shard protocol's parameters, as a backend reads them (shards.ts is the front's side). A
 * word query through a front takes three requests per backend, as Elasticsearch's
 * dfs_query_then_fetch does: `/api/shard/stats` (the backend's documents, tokens and phrase
 * counts, its matches up to the cap, and the keys of its first matches when the collection is
 * capped), `/api/shard/candidates?shared=` (its candidates scored with the collection's
 * statistics), `/api/search?shared=&cut=` (its share of the collection's candidates,
 * re-ranked on the collection's basis, with snippets). Malformed JSON is a 400.
 */
import { BadRequest } from './params.js';
import type { SearchOptions, SharedStats } from '../search/types.js';

function json<T>(params: URLSearchParams, name: string, valid: (v: unknown) => boolean): T | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new BadRequest(`${name}: not JSON`);
  }
  if (!valid(v)) throw new BadRequest(`${name}: not what a shard front sends`);
  return v as T;
}

const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

function validShared(v: unknown): boolean {
  const s = v as SharedStats;
  return (
    typeof s === 'object' &&
    s !== null &&
    [s.rows, s.tokens, s.counted, s.cap, s.candidates].every(isNumber) &&
    typeof s.hits === 'object' &&
    s.hits !== null &&
    Object.values(s.hits).every(isNumber)
  );
}

function validCut(v: unknown): boolean {
  const c = v as NonNullable<SearchOptions['cut']>;
  return (
    typeof c === 'object' &&
    c !== null &&
    Array.isArray(c.last) &&
    isNumber(c.last[0]) &&
    typeof c.last[1] === 'string' &&
    typeof c.last[2] === 'string' &&
    isNumber(c.basis?.best) &&
    isNumber(c.basis?.avgTitle)
  );
}

/** The `shared` and `cut` of a backend's request, for its searcher's options. */
export function shardOptions(params: URLSearchParams): Pick<SearchOptions, 'shared' | 'cut'> {
  const shared = json<SharedStats>(params, 'shared', validShared);
  const cut = json<SearchOptions['cut']>(params, 'cut', validCut);
  return { ...(shared ? { shared } : {}), ...(cut ? { cut } : {}) };
}
