/**
 * generate (Nutch's Generator): the URLs of the CrawlDb that are due (fetch time passed, not
 * gone), filtered, best score first, at most generate.max.count per host or domain
 * (generate.count.mode), at most generate.topN in all. One reduce sees them in score order
 * and keeps the counts; the generate command then writes the selection as the segment's
 * crawl_generate, partitioned by host so that one host is in one fetch list.
 */
import type { Job } from '../mapreduce/job.js';
import type { CrawlDatum } from './crawl-datum.js';
import { UrlFilters } from './url-filters.js';
import { defaultConfDir } from '../conf/config.js';
import { dateTo14 } from '../archive/dates.js';

let filters: UrlFilters | undefined;
/** Counts of one reduce task (a worker thread may run several tasks in turn). */
const tallies = new WeakMap<object, { perHost: Map<string, number>; selected: number }>();

export function hostOf(url: string, mode = 'host'): string {
  let h: string;
  try {
    h = new URL(url).hostname;
  } catch {
    return '';
  }
  if (mode !== 'domain' || /^[\d.]+$/.test(h)) return h;
  return h.split('.').slice(-2).join('.');
}

/** Now, as generate sees it: generate.curtime or the clock (14 digits, UTC). */
export function generateTime(curtime: string): string {
  return curtime || dateTo14();
}

export const generateJob: Job = {
  name: 'generate',
  description: 'CrawlDb -> the due URLs, best score first, capped per host (generate.max.count) and in all (generate.topN).',
  input: 'records',
  numReduces: 1,
  map(key, value, emit, ctx) {
    if (key.includes(' ')) return; // an import's version entry, not a URL to fetch
    const d = value as CrawlDatum;
    if (d.status === 'db_gone') return ctx.count('gone');
    if (d.fetchTime > generateTime(ctx.conf.getString('generate.curtime'))) return ctx.count('not due');
    if (d.score < ctx.conf.getNumber('generate.min.score')) return ctx.count('score below generate.min.score');
    filters ??= UrlFilters.fromConf(ctx.conf, process.env.NWAX_CONF_DIR ?? defaultConfDir());
    if (!filters.apply(key)) return ctx.count('rejected by URL filters');
    // Best score first: the key sorts by the score's complement, then the URL.
    const inv = Math.max(0, Math.round((1e9 - Math.min(d.score, 1e9)) * 1e6));
    emit(`${String(inv).padStart(16, '0')} ${key}`, { url: key, datum: d });
  },
  reduce(key, values, emit, ctx) {
    const topN = ctx.conf.getNumber('generate.topN');
    const max = ctx.conf.getNumber('generate.max.count');
    const mode = ctx.conf.getString('generate.count.mode');
    let t = tallies.get(ctx);
    if (!t) tallies.set(ctx, (t = { perHost: new Map(), selected: 0 }));
    for (const v of values as { url: string; datum: CrawlDatum }[]) {
      if (topN >= 0 && t.selected >= topN) return ctx.count('over topN');
      const h = hostOf(v.url, mode);
      const n = t.perHost.get(h) ?? 0;
      if (max >= 0 && n >= max) {
        ctx.count(`over generate.max.count per ${mode}`);
        continue;
      }
      t.perHost.set(h, n + 1);
      t.selected++;
      ctx.count('selected');
      emit(key, v);
    }
  },
};
