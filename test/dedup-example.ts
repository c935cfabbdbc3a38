/**
 * The worked dedup example's expected results, as facts of the project's own: one page,
 * http://example.org/index.html, captured on ten days of October 2007 (scripts/make-fixtures.mjs
 * DEDUP_CAPTURES; fixtures/example/dedup-example.warc.gz), five distinct versions. The labels
 * (ABC123, ...) stand for digests; an archive written from the captures gets real SHA-1s.
 *
 * Written out here rather than read from a folder beside the repository, so that a stranger's
 * clone tests them; dedup-sort.test.ts checks, where the steering folder's copy of the example
 * is at hand (and always under CI), that these facts are still its facts.
 */

/** A CDX11 of the ten captures, 300 bytes each, the labels standing for digests. */
export const EXAMPLE_CDX = [
  ' CDX N b a m s k r M S V g',
  'org,example)/index.html 20071001120000 http://example.org/index.html text/html 200 ABC123 - - 300 0 example.arc.gz',
  'org,example)/index.html 20071002120000 http://example.org/index.html text/html 200 ABC123 - - 300 300 example.arc.gz',
  'org,example)/index.html 20071003120000 http://example.org/index.html text/html 200 DEF456 - - 300 600 example.arc.gz',
  'org,example)/index.html 20071004120000 http://example.org/index.html text/html 200 DEF456 - - 300 900 example.arc.gz',
  'org,example)/index.html 20071005120000 http://example.org/index.html text/html 200 ABC123 - - 300 1200 example.arc.gz',
  'org,example)/index.html 20071006120000 http://example.org/index.html text/html 200 ABC123 - - 300 1500 example.arc.gz',
  'org,example)/index.html 20071007120000 http://example.org/index.html text/html 200 GHI789 - - 300 1800 example.arc.gz',
  'org,example)/index.html 20071008120000 http://example.org/index.html text/html 200 JKL012 - - 300 2100 example.arc.gz',
  'org,example)/index.html 20071009120000 http://example.org/index.html text/html 200 JKL012 - - 300 2400 example.arc.gz',
  'org,example)/index.html 20071010120000 http://example.org/index.html text/html 200 MNO345 - - 300 2700 example.arc.gz',
  '',
].join('\n');

/** What `dedup-cdx` prints for EXAMPLE_CDX: every capture of a URL+digest after the first, in byte order. */
export const EXPECTED_DUP = [
  'org,example)/index.html sha1:ABC123 20071002120000 example.arc.gz',
  'org,example)/index.html sha1:ABC123 20071005120000 example.arc.gz',
  'org,example)/index.html sha1:ABC123 20071006120000 example.arc.gz',
  'org,example)/index.html sha1:DEF456 20071004120000 example.arc.gz',
  'org,example)/index.html sha1:JKL012 20071009120000 example.arc.gz',
  '',
].join('\n');

/** URL, version, and every date on which that version was captured: what a search shows after add-dates. */
export const EXPECTED_DATES = [
  'http://example.org/index.html ABC123 20071001120000 20071002120000 20071005120000 20071006120000',
  'http://example.org/index.html DEF456 20071003120000 20071004120000',
  'http://example.org/index.html GHI789 20071007120000',
  'http://example.org/index.html JKL012 20071008120000 20071009120000',
  'http://example.org/index.html MNO345 20071010120000',
  '',
].join('\n');

/** Each version's capture dates, space-separated, sorted: the form the tests compare hits with. */
export function expectedVersionDates(): string[] {
  return EXPECTED_DATES.trim()
    .split('\n')
    .map((l) => l.split(' ').slice(2).join(' '))
    .sort();
}
