/** The command table (oclif "explicit" strategy): each command imports its modules lazily in run(). */
import Cdx from './cdx.js';
import Conf from './conf.js';
import DedupCdx from './dedup-cdx.js';
import Import from './import.js';
import JobCommand from './job.js';
import Readseg from './readseg.js';
import Revisits from './revisits.js';
import SortCdx from './sort-cdx.js';

export const commands = {
  cdx: Cdx,
  conf: Conf,
  'dedup-cdx': DedupCdx,
  import: Import,
  job: JobCommand,
  readseg: Readseg,
  revisits: Revisits,
  'sort-cdx': SortCdx,
};
