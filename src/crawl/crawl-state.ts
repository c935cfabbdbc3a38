/**
 * The mark of a crawl in progress (`DIR/crawl.state`): the segment name (yyyyMMddHHmmss) of
 * the moment `nwax crawl` began, written when it starts and removed once it has indexed. A
 * `crawl` that finds the mark is the same crawl resumed: the segments generated since then are
 * its rounds so far, so a stopped `-depth N` crawl run again ends at N rounds, not N more.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { segmentName } from '../segment/segment.js';

const STATE = 'crawl.state';

export interface CrawlStart {
  /** The segment name of the crawl's start: its rounds' segments sort at or after it. */
  since: string;
  /** A crawl stopped before it indexed, now run again. */
  resumed: boolean;
}

export function beginCrawl(dir: string): CrawlStart {
  const path = join(dir, STATE);
  const since = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
  if (/^\d{14}$/.test(since)) return { since, resumed: true };
  mkdirSync(dir, { recursive: true });
  const now = segmentName();
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${now}\n`);
  renameSync(tmp, path);
  return { since: now, resumed: false };
}

export function endCrawl(dir: string): void {
  rmSync(join(dir, STATE), { force: true });
}
