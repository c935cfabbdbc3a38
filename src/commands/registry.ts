/** The command table (oclif "explicit" strategy): each command imports its modules lazily in run(). */
import AddDates from './add-dates.js';
import { AclAdd, AclCheck, AclImportTxt, AclList, AclRemove, AclValidate } from './acl.js';
import Cdx from './cdx.js';
import Readdb from './readdb.js';
import Parse from './parse.js';
import Inject from './inject.js';
import Generate from './generate.js';
import Fetch from './fetch.js';
import Crawl from './crawl.js';
import CdxQuery from './cdx-query.js';
import Conf from './conf.js';
import Dedup from './dedup.js';
import DedupCdx from './dedup-cdx.js';
import Dumpindex from './dumpindex.js';
import ExportWacz from './export-wacz.js';
import Import from './import.js';
import IndexCommand from './index-command.js';
import Invertlinks from './invertlinks.js';
import JobCommand from './job.js';
import Merge from './merge.js';
import Readseg from './readseg.js';
import Revisits from './revisits.js';
import Search from './search.js';
import Serve from './serve.js';
import SortCdx from './sort-cdx.js';
import Updatedb from './updatedb.js';
import ZipnumBuild from './zipnum-build.js';

export const commands = {
  'acl:add': AclAdd,
  'acl:check': AclCheck,
  'acl:list': AclList,
  'acl:importtxt': AclImportTxt,
  'acl:remove': AclRemove,
  'acl:validate': AclValidate,
  'add-dates': AddDates,
  cdx: Cdx,
  crawl: Crawl,
  fetch: Fetch,
  generate: Generate,
  inject: Inject,
  parse: Parse,
  readdb: Readdb,
  'cdx-query': CdxQuery,
  conf: Conf,
  dedup: Dedup,
  'dedup-cdx': DedupCdx,
  dumpindex: Dumpindex,
  'export-wacz': ExportWacz,
  import: Import,
  index: IndexCommand,
  invertlinks: Invertlinks,
  job: JobCommand,
  merge: Merge,
  readseg: Readseg,
  revisits: Revisits,
  search: Search,
  serve: Serve,
  'sort-cdx': SortCdx,
  updatedb: Updatedb,
  'zipnum:build': ZipnumBuild,
};
