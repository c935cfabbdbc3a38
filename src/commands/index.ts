/** The command table (oclif "explicit" strategy): each command imports its modules lazily in run(). */
import Cdx from './cdx.js';
import Conf from './conf.js';
import DedupCdx from './dedup-cdx.js';
import Import from './import.js';
import Invertlinks from './invertlinks.js';
import JobCommand from './job.js';
import Readseg from './readseg.js';
import Revisits from './revisits.js';
import SortCdx from './sort-cdx.js';
import Updatedb from './updatedb.js';

export const commands = {
  cdx: Cdx,
  conf: Conf,
  'dedup-cdx': DedupCdx,
  import: Import,
  invertlinks: Invertlinks,
  job: JobCommand,
  readseg: Readseg,
  revisits: Revisits,
  'sort-cdx': SortCdx,
  updatedb: Updatedb,
};
