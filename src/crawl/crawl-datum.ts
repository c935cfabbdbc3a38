/**
 * CrawlDb entries, with Nutch's status names: db_* statuses live in the CrawlDb, fetch_*
 * statuses come from a segment's crawl_fetch, `linked` from an outlink. The CrawlDb of a live
 * crawl is keyed by URL, that of an import by document key `URL sha1:DIGEST`.
 */
import { dateTo14 } from '../archive/dates.js';

export type DbStatus = 'db_unfetched' | 'db_fetched' | 'db_gone' | 'db_redir_temp' | 'db_redir_perm' | 'db_notmodified' | 'db_duplicate';
export type FetchStatus = 'fetch_success' | 'fetch_retry' | 'fetch_redir_temp' | 'fetch_redir_perm' | 'fetch_gone' | 'fetch_notmodified';

export interface CrawlDatum {
  status: DbStatus;
  /** When the URL is next due, 14 digits (UTC). */
  fetchTime: string;
  /** Seconds between fetches. */
  interval: number;
  score: number;
  /** Payload digest of the last successful fetch. */
  digest?: string;
  /** Failed fetches in a row. */
  retries: number;
  /** 14-digit date of the last fetch. */
  fetched?: string;
  /** 14-digit date of the fetch that first got this digest (what revisit records refer to). */
  digestDate?: string;
  /** Seed metadata (inject's key=value). */
  metadata?: Record<string, string>;
}

/** The CrawlDb status a fetch status leads to (Nutch's CrawlDbReducer). */
export const STATUS_AFTER_FETCH: Record<FetchStatus, DbStatus> = {
  fetch_success: 'db_fetched',
  fetch_retry: 'db_unfetched',
  fetch_redir_temp: 'db_redir_temp',
  fetch_redir_perm: 'db_redir_perm',
  fetch_gone: 'db_gone',
  fetch_notmodified: 'db_notmodified',
};

/** A 14-digit UTC date plus `seconds`. */
export function addSeconds(date14: string, seconds: number): string {
  const d = Date.UTC(+date14.slice(0, 4), +date14.slice(4, 6) - 1, +date14.slice(6, 8), +date14.slice(8, 10), +date14.slice(10, 12), +date14.slice(12, 14));
  return dateTo14(new Date(d + seconds * 1000));
}

/** The dataset a map task reads, from its file's path (`.../crawldb/part-N`, `.../SEGMENT/crawl_fetch/part-N`). */
export function datasetOf(inputFile: string): string {
  // Asked once per record, of the task's one input file: the last answer is kept.
  if (inputFile !== lastFile) {
    const parts = inputFile.split('/');
    lastFile = inputFile;
    lastDataset = parts.length >= 2 ? parts[parts.length - 2] : '';
  }
  return lastDataset;
}
let lastFile = '';
let lastDataset = '';

/** The segment of a segment part's path (`.../segments/20071001120000/parse_data/part-N`). */
export function segmentOf(inputFile: string): string {
  const parts = inputFile.split('/');
  return parts.length >= 3 ? parts[parts.length - 3] : '';
}
