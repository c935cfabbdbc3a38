/**
 * parse (Nutch's ParseSegment) of a fetched segment: the WARC files the fetcher wrote are read
 * as an import reads archives (the same map: records, parsing, digests), and written into the
 * segment as content, parse_data and parse_text keyed by version (`URL sha1:DIGEST`, what the
 * index joins), and crawl_parse keyed by URL (the outlinks updatedb adds to the CrawlDb and
 * invertlinks inverts). The fetch statuses stay in the fetcher's crawl_fetch.
 */
import type { Job } from '../mapreduce/job.js';
import { importJob } from '../segment/import-job.js';
import { crawlParseOf, segmentRecordFile, splitDocumentKey, type Capture } from '../segment/segment.js';

export const parseJob: Job = {
  name: 'parse',
  description: "A fetched segment's WARC files (a manifest of them) -> content, parse_data, parse_text by version and crawl_parse by URL.",
  input: 'lines',
  linesPerSplit: 1,
  outputs: ['content', 'parse_data', 'parse_text', 'crawl_parse'],
  outputRecordFile: segmentRecordFile,
  map: importJob.map,
  taskOldSpaceMb: importJob.taskOldSpaceMb,
  reduce(key, values, emit, ctx) {
    const first = (values as Capture[])[0];
    ctx.count('documents');
    emit(key, { content: first.content, parse_data: first.parse_data, parse_text: first.parse_text });
    // Doc keys come in order, so their URLs do too: `URL ` sorts before `URL/...`.
    emit(splitDocumentKey(key).url, { crawl_parse: crawlParseOf(first.parse_data) });
  },
};
