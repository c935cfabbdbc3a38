/** nwax as a library: `import { readArchive, cdxLines } from 'nwax'`. */
export { readArchive, ArchiveReader, type ReadIssue, type ReadOptions, type ReadStats } from './archive/reader.js';
export type { ArchiveRecord, RecordEnd } from './archive/record.js';
export { HeaderList } from './archive/headers.js';
export { sha1Base32, base32, normalizeDigest } from './archive/digest.js';
export { cdxLines, cdxEntries, type CdxOptions } from './cdx/indexer.js';
export { formatEntry, CDX11_HEADER, CDX9_HEADER, type CdxFormat } from './cdx/cdx-format.js';
export type { CdxEntry } from './cdx/cdx-entry.js';
export { surt, massagedUrl, urlKey, detectCanonicalizer } from './cdx/surt.js';
export { Configuration } from './conf/config.js';
export { NwaxError, InputError, FormatError, UsageError } from './util/errors.js';
