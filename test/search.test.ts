import { describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expectedVersionDates } from './dedup-example.js';
import { FIXTURES, HAVE_FIXTURES, fixture, nwax, nwaxAsync, tempDir } from './helpers.js';
import { pipeline, workedExample } from './example-pipeline.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc, dedupExampleRecords } from '../scripts/make-fixtures.mjs';
import { parseQuery } from '../src/search/query.js';
import { compileQuery } from '../src/search/query-plan.js';
import { urlKey } from '../src/index/schema.js';
import { snippetOf, markSnippet } from '../src/search/snippet.js';
import { surt } from '../src/cdx/surt.js';

interface JsonHit {
  url: string;
  digest: string;
  title: string;
  dates: string[];
  mime: string;
  host: string;
  collection: string;
  moreFromSite: number;
  snippet: { text: string; marks: [number, number][] };
}
interface JsonResult {
  total: number;
  hits: JsonHit[];
}

async function search(crawl: string, query: string, ...flags: string[]): Promise<JsonResult> {
  const r = await nwax(['search', '--json', '-dir', crawl, ...flags, query]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as JsonResult;
}

describe('the worked dedup example, end to end', () => {
  it('finds the five versions with every capture date, and date:20071005 finds the first', async () => {
    const dir = tempDir();
    const { manifest, dups } = await workedExample(dir);
    const crawl = join(dir, 'crawl');
    await pipeline(crawl, manifest, { exclusions: dups, dates: dups });
    const r = await search(crawl, 'url:http://example.org/index.html');
    expect(r.total).toBe(5);
    // The example's expected dates, version by version (test/dedup-example.ts; labels stand for digests there: compare the date sets).
    expect(r.hits.map((h) => h.dates.join(' ')).sort()).toEqual(expectedVersionDates());
    const fifth = await search(crawl, 'date:20071005');
    expect(fifth.hits.map((h) => h.dates)).toEqual([['20071001120000', '20071002120000', '20071005120000', '20071006120000']]);
    expect((await search(crawl, 'welcome date:2007-2008')).total).toBe(1);
    expect((await search(crawl, 'welcome date:2008-2009')).total).toBe(0);
    // Text output: one block per hit with its dates and a replay link per the template.
    const text = await nwax(['search', '-dir', crawl, '-D', 'nwax.wayback.prefix=https://wayback.example/{collection}/{date}/{url}', 'welcome']);
    expect(text.stdout).toMatch(/^Hits 1-1 \(of 1\) for "welcome"/);
    expect(text.stdout).toContain('Hello, [welcome] to my page.');
    expect(text.stdout).toContain('replay: https://wayback.example/october/20071001120000/http://example.org/index.html');
    // dumpindex over the parallel set.
    const main = join(crawl, 'indexes', 'part-00000');
    const dates = join(crawl, 'pindexes', 'part-00000', 'dates');
    expect((await nwax(['dumpindex', '-c', main, dates])).stdout).toBe('5\n');
    expect(
      (await nwax(['dumpindex', '-f', 'dates.1', main, dates])).stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[1])
        .sort(),
    ).toEqual(expectedVersionDates());
    expect((await nwax(['dumpindex', '-l', dates])).stdout).toBe('dates\n');
  });
});

describe('the query language', () => {
  it('parses words, phrases, exclusions and fields, and points at a bad token', () => {
    const q = parseQuery('Alligator -crocodile "freshwater  environments" site:www.Example.org type:pdf collection:a,b date:2007-200802 title:Swamp');
    expect(q.must).toEqual([['alligator'], ['freshwater', 'environments']]);
    expect(q.not).toEqual([['crocodile']]);
    expect(q.site).toEqual(['example.org']);
    expect(q.type).toEqual(['pdf']);
    expect(q.collection).toEqual(['a', 'b']);
    expect(q.title).toEqual([['swamp']]);
    // As strings, every date of the period lies between the bounds padded with zeros and nines.
    expect(q.date).toEqual([{ from: '20070000000000', to: '20080299999999' }]);
    expect(parseQuery('date:20071005').date).toEqual([{ from: '20071005000000', to: '20071005999999' }]);
    expect(() => parseQuery('alligator "freshwater')).toThrow(/unterminated phrase \(no closing "\) at column 11:\n {2}alligator "freshwater\n {12}\^/);
    expect(() => parseQuery('x date:2007-2006')).toThrow(/date:2007-2006 ends before it starts at column 3/);
    expect(() => parseQuery('x date:07')).toThrow(/date:07 is not YYYY/);
    expect(() => parseQuery('-crocodile')).toThrow(/needs a word or a field besides -exclusions/);
    expect(() => parseQuery('   ')).toThrow(/empty query/);
  });

  it('compiles a query once into the MATCH texts and filter values every index set chooses from', () => {
    const p = compileQuery(parseQuery('Alligator -crocodile "fresh water" title:Swamp site:www.Example.org date:2007-200802 url:http://a.example'));
    // The words, then the host phrase, then the years; the exclusions after.
    expect(p.match(false, false)).toBe('("alligator" AND "fresh water" AND title : "swamp") NOT ("crocodile")');
    expect(p.match(false, true)).toBe('("alligator" AND "fresh water" AND title : "swamp" AND (host : "example org")) NOT ("crocodile")');
    expect(p.match(true, true)).toBe(
      '("alligator" AND "fresh water" AND title : "swamp" AND (host : "example org") AND years : ("2007" OR "2008")) NOT ("crocodile")',
    );
    expect(p.years).toEqual(['2007', '2008']);
    expect(p.wholeYears).toBe(false);
    expect(p.exclusions).toBe('"crocodile"');
    expect(p.tier('M')).toBe('(M) AND {title anchors urlwords} : ("alligator" AND "fresh water")');
    expect(p.siteTerms).toEqual([['example', 'org']]);
    // url: as the index stores it (with its hash), date: with the prefix of a whole period where it is one.
    expect(p.urls).toEqual([{ href: 'http://a.example/', key: urlKey('http://a.example/') }]);
    expect(p.dates).toEqual([{ from: '20070000000000', to: '20080299999999', prefix: undefined }]);
    expect(compileQuery(parseQuery('x date:2016')).dates[0].prefix).toBe('2016');
    // Fields alone: found through the text index by the site and the years; no words, no match.
    const f = compileQuery(parseQuery('site:example.org date:2016'));
    expect(f.match(true, true)).toBeUndefined();
    expect(f.fields(false)).toBe('(host : "example org")');
    expect(f.fields(true)).toBe('(host : "example org") AND years : ("2016")');
    expect(f.wholeYears).toBe(true);
    // A range too wide to ask year by year is tested on the rows.
    expect(compileQuery(parseQuery('x date:1900-2100')).years).toBeUndefined();
    // Phrases are read once per MATCH text.
    expect(p.phrases(p.match(false, false)!)).toBe(p.phrases(p.match(false, false)!));
  });

  it('makes snippets from a window around the first match, words marked', () => {
    const text = `${'filler words here. '.repeat(30)}The American alligator lives in freshwater environments. ${'more text. '.repeat(40)}`;
    const s = snippetOf(text, ['alligator', 'freshwater']);
    expect(s.text.startsWith('… ')).toBe(true);
    expect(s.text.length).toBeLessThan(260);
    expect(markSnippet(s, '<b>', '</b>')).toContain('The American <b>alligator</b> lives in <b>freshwater</b> environments.');
    expect(markSnippet({ text: 'a<b', marks: [[0, 1]] }, '<b>', '</b>', (t) => t.replace(/</g, '&lt;'))).toBe('<b>a</b>&lt;b');
  });
});

describe('searching a collection of several sites, types and collections', () => {
  const page = (title: string, body: string, head = '') => `<html><head><title>${title}</title>${head}</head><body>${body}</body></html>`;
  let n = 0;
  const rec = (url: string, body: string, mime = 'text/html', date = '20070601000000') => ({
    type: 'response',
    url,
    date,
    body,
    id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    headers: { 'Content-Type': mime, 'Content-Length': String(Buffer.byteLength(body)) },
  });

  it('filters by site, type, collection, title, phrase and exclusion, collapses hits per site after merging partitions', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.warc.gz');
    const b = join(dir, 'b.warc.gz');
    await writeWarc(a, [
      rec(
        'http://www.example.org/gators.html',
        page(
          'Alligators',
          '<p>The American alligator lives in freshwater environments such as swamps.</p><a href="http://zoo.example.net/">a zebra and an alligator</a>',
        ),
      ),
      rec('http://example.org/crocs.html', page('Crocodiles', '<p>The crocodile and the alligator are related.</p>')),
      rec('http://sub.example.org/swamp.html', page('Swamp life', '<p>An alligator in the swamp, in freshwater.</p>')),
      rec('http://example.org/a2.html', page('More alligators', '<p>Another alligator page.</p>')),
      rec('http://notexample.org/gator.html', page('Not the site', '<p>An alligator elsewhere.</p>')),
      rec('http://example.org/secret.html', page('Secret', '<p>alligator secret</p>', '<meta name="robots" content="noindex">')),
    ]);
    await writeWarc(b, [
      rec('http://zoo.example.net/', page('The zoo', '<p>Animals of every kind.</p>'), 'text/html', '20080301000000'),
      rec('http://zoo.example.net/notes.txt', 'Alligator feeding notes, in plain text.', 'text/plain', '20080301000000'),
      rec('http://zoo.example.net/report.pdf', '%PDF-1.4 binary', 'application/pdf', '20080301000000'),
    ]);
    writeFileSync(join(dir, 'manifest'), `${a} reptiles\n${b} zoo\n`);
    const crawl = join(dir, 'crawl');
    await pipeline(crawl, join(dir, 'manifest'), { reduces: 2 });
    const indexLog = await nwax([
      'index',
      '--reduces',
      '2',
      join(crawl, 'indexes2'),
      join(crawl, 'crawldb'),
      join(crawl, 'linkdb'),
      join(crawl, 'segments', '20200101000000'),
    ]);
    expect(indexLog.stderr).toMatch(/noindex documents left out 1\b/);
    expect(indexLog.stderr).not.toMatch(/no such (CrawlDb|LinkDb)/);
    // A mistyped LinkDb is named; the index is made without anchors, as a crawl without links is.
    const typo = join(crawl, 'linkdb-typo');
    const noLinks = await nwax(['index', join(crawl, 'indexes3'), join(crawl, 'crawldb'), typo, join(crawl, 'segments', '20200101000000')]);
    expect(noLinks.code).toBe(0);
    expect(noLinks.stderr).toContain(`nwax index: ${typo}: no such LinkDb; indexing without anchors or inlinks`);
    const urls = (r: JsonResult) => r.hits.map((h) => h.url).sort();

    // (The zoo's home page too: the anchor text of the link to it says alligator.)
    expect(urls(await search(crawl, 'alligator'))).toEqual([
      'http://example.org/a2.html',
      'http://example.org/crocs.html',
      'http://notexample.org/gator.html',
      'http://sub.example.org/swamp.html',
      'http://www.example.org/gators.html',
      'http://zoo.example.net/',
      'http://zoo.example.net/notes.txt',
    ]);
    expect(urls(await search(crawl, 'alligator -crocodile'))).not.toContain('http://example.org/crocs.html');
    expect(urls(await search(crawl, '"freshwater environments"'))).toEqual(['http://www.example.org/gators.html']);
    expect(urls(await search(crawl, 'alligator site:example.org'))).toEqual([
      'http://example.org/a2.html',
      'http://example.org/crocs.html',
      'http://sub.example.org/swamp.html',
      'http://www.example.org/gators.html',
    ]);
    expect(urls(await search(crawl, 'alligator site:www.example.org'))).toHaveLength(4);
    expect(urls(await search(crawl, 'type:text/plain'))).toEqual(['http://zoo.example.net/notes.txt']);
    expect(urls(await search(crawl, 'type:text'))).toHaveLength(7);
    expect(urls(await search(crawl, 'type:pdf'))).toEqual(['http://zoo.example.net/report.pdf']);
    expect(urls(await search(crawl, 'collection:zoo'))).toHaveLength(3);
    expect(urls(await search(crawl, 'collection:zoo,reptiles'))).toHaveLength(8);
    expect(urls(await search(crawl, 'title:swamp'))).toEqual(['http://sub.example.org/swamp.html']);
    expect(urls(await search(crawl, 'alligator date:2008'))).toEqual(['http://zoo.example.net/', 'http://zoo.example.net/notes.txt']);
    // Anchor text: the zoo's home page is found by the words of the link that points to it.
    expect(urls(await search(crawl, 'zebra'))).toContain('http://zoo.example.net/');
    // Hits per site after the merge of both partitions: one per host, with the rest counted.
    const collapsed = await search(crawl, 'alligator', '--hits-per-site', '1');
    const hosts = collapsed.hits.map((h) => h.host);
    expect(new Set(hosts).size).toBe(hosts.length);
    expect(hosts.sort()).toEqual(['example.org', 'notexample.org', 'sub.example.org', 'zoo.example.net']);
    expect(collapsed.hits.find((h) => h.host === 'example.org')!.moreFromSite).toBe(2);
    const hit = (await search(crawl, 'freshwater')).hits.find((h) => h.url.endsWith('gators.html'))!;
    expect(hit.snippet.marks.map(([s, e]) => hit.snippet.text.slice(s, e).toLowerCase())).toContain('freshwater');
    // Paging.
    const page2 = await search(crawl, 'alligator', '--hits', '2', '--start', '2');
    expect(page2.hits).toHaveLength(2);
    expect(page2.total).toBe(7);
    const bad = await nwax(['search', '-dir', crawl, 'alligator "unclosed']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/query syntax: unterminated phrase/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('add-dates and parallel index sets', () => {
  it('adds dates incrementally, warns about bad lines, refuses sets that disagree and indexes of another version', async () => {
    const dir = tempDir();
    const warc = join(dir, 'example.warc.gz');
    await writeWarc(warc, dedupExampleRecords());
    await nwax(['cdx', '-o', join(dir, 'example.cdx'), warc]);
    const dup = (await nwax(['dedup-cdx', join(dir, 'example.cdx')])).stdout.trim().split('\n');
    writeFileSync(join(dir, 'first.dup'), `${dup.slice(0, 2).join('\n')}\nnot a dates line\n`);
    writeFileSync(join(dir, 'rest.dup'), `${dup.slice(2).join('\n')}\n`);
    writeFileSync(join(dir, 'all.dup'), `${dup.join('\n')}\n`);
    writeFileSync(join(dir, 'manifest'), `${warc}\n`);
    const crawl = join(dir, 'crawl');
    await pipeline(crawl, join(dir, 'manifest'), { exclusions: join(dir, 'all.dup') });
    const main = join(crawl, 'indexes', 'part-00000');
    const p = join(crawl, 'pindexes', 'part-00000');
    const first = await nwax(['add-dates', main, main, join(p, 'dates'), join(dir, 'first.dup')]);
    expect(first.code).toBe(3);
    expect(first.stderr).toMatch(/first\.dup: line 3: not "URLKEY sha1:DIGEST DATE \[FILE\]"; line skipped/);
    // A file with no version in it (no key to look up): its bad lines are still named, and the
    // dates are the main index's own, as from an empty file.
    writeFileSync(join(dir, 'bad.dup'), 'not a dates line\nnor this\n');
    const bad = await nwax(['add-dates', main, main, join(dir, 'bad-dates'), join(dir, 'bad.dup')]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/bad\.dup: line 2: not "URLKEY/);
    writeFileSync(join(dir, 'empty.dup'), '');
    expect((await nwax(['add-dates', main, main, join(dir, 'empty-dates'), join(dir, 'empty.dup')])).code).toBe(0);
    expect((await nwax(['dumpindex', '-f', 'dates', join(dir, 'bad-dates')])).stdout).toBe(
      (await nwax(['dumpindex', '-f', 'dates', join(dir, 'empty-dates')])).stdout,
    );
    // The incremental path: the next dates index from the first plus a new file, swapped in.
    const second = await nwax(['add-dates', main, join(p, 'dates'), join(p, 'dates.new'), join(dir, 'rest.dup')]);
    expect(second.code, second.stderr).toBe(0);
    copyFileSync(join(p, 'dates.new'), join(p, 'dates'));
    const full = join(dir, 'full-dates');
    expect((await nwax(['add-dates', main, main, full, join(dir, 'all.dup')])).code).toBe(0);
    expect((await nwax(['dumpindex', '-f', 'dates', join(p, 'dates')])).stdout).toBe((await nwax(['dumpindex', '-f', 'dates', full])).stdout);
    expect((await search(crawl, 'url:http://example.org/index.html')).hits.flatMap((h) => h.dates)).toHaveLength(10);

    // A dates index of another index (another document count) next to this main: refused.
    const other = join(dir, 'other');
    writeFileSync(join(dir, 'one'), `${warc}\n`);
    const otherSeg = join(other, 'segments', '20200101000000');
    await nwax(['import', '-D', 'nwax.filter.http.status=404', join(dir, 'one'), otherSeg]);
    const w2 = join(dir, 'two.warc.gz');
    await writeWarc(w2, dedupExampleRecords().slice(0, 1));
    writeFileSync(join(dir, 'two'), `${w2}\n`);
    await pipeline(join(dir, 'small'), join(dir, 'two'));
    const smallMain = join(dir, 'small', 'indexes', 'part-00000');
    expect((await nwax(['add-dates', smallMain, smallMain, join(p, 'dates'), '-'], { input: '' })).code).toBe(0);
    const refused = await nwax(['search', '-dir', crawl, 'welcome']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/index set part-00000: .*part-00000 holds 5 documents but .*dates 1; parallel indexes must agree/);

    // An index of another schema version: a clear error, not a crash.
    const old = join(dir, 'old-index');
    copyFileSync(main, old);
    const db = new Database(old);
    db.prepare("UPDATE info SET value = '0' WHERE key = 'schema_version'").run();
    db.close();
    const v = await nwax(['dumpindex', '-c', old]);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/old-index: index schema version 0, this nwax reads versions 2, 3 and 4; rebuild it/);

    // One made by another text analysis: its terms are not what queries ask, so it is refused.
    const otherIndex = join(dir, 'other-analyzer');
    copyFileSync(main, otherIndex);
    const db2 = new Database(otherIndex);
    db2.prepare("UPDATE info SET value = 'nwax-text/0' WHERE key = 'analyzer'").run();
    db2.close();
    const a = await nwax(['dumpindex', '-c', otherIndex]);
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(/other-analyzer: terms made by text analysis nwax-text\/0, this nwax searches with nwax-text\/1.*rebuild it/);
  });
});

describe('merge and dedup', () => {
  it('dedup keeps one copy of a version indexed twice, with all its dates; merge -p flattens a parallel set', async () => {
    const dir = tempDir();
    const all = dedupExampleRecords();
    const early = join(dir, 'early.warc.gz');
    const late = join(dir, 'late.warc.gz');
    await writeWarc(early, all.slice(0, 5));
    await writeWarc(late, all.slice(4));
    writeFileSync(join(dir, 'm1'), `${early}\n`);
    writeFileSync(join(dir, 'm2'), `${late}\n`);
    await pipeline(join(dir, 'c1'), join(dir, 'm1'));
    await pipeline(join(dir, 'c2'), join(dir, 'm2'));
    const i1 = join(dir, 'c1', 'indexes', 'part-00000');
    const i2 = join(dir, 'c2', 'indexes', 'part-00000');
    // Capture 5 (abc123 again, on 10-05) is in both archives; abc123 is a version of both imports.
    const d = await nwax(['dedup', i1, i2]);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stderr).toMatch(/1 versions indexed more than once; 1 copies marked deleted/);
    const merged = join(dir, 'merged');
    const m = await nwax(['merge', merged, i1, i2]);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stderr).toMatch(/5 documents \(1 deleted by dedup left out\)/);
    const lines = (await nwax(['dumpindex', '-f', 'dates', merged])).stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[1])
      .sort();
    expect(lines).toEqual(expectedVersionDates());
    expect((await nwax(['dedup', i1, i2])).stderr).toMatch(/0 versions indexed more than once/);
    // A parallel set flattened: the dates index's dates are in the one index.
    const w = join(dir, 'x.warc.gz');
    await writeWarc(w, all);
    await nwax(['cdx', '-o', join(dir, 'x.cdx'), w]);
    writeFileSync(join(dir, 'x.dup'), (await nwax(['dedup-cdx', join(dir, 'x.cdx')])).stdout);
    writeFileSync(join(dir, 'm3'), `${w}\n`);
    await pipeline(join(dir, 'c3'), join(dir, 'm3'), { exclusions: join(dir, 'x.dup'), dates: join(dir, 'x.dup') });
    const flat = join(dir, 'flat');
    const p = await nwax(['merge', '-p', flat, join(dir, 'c3', 'indexes', 'part-00000'), join(dir, 'c3', 'pindexes', 'part-00000', 'dates')]);
    expect(p.code, p.stderr).toBe(0);
    expect(
      (await nwax(['dumpindex', '-f', 'dates', flat])).stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[1])
        .sort(),
    ).toEqual(lines);
  });
});

describe.skipIf(!HAVE_FIXTURES)('indexing real archives', () => {
  it('finds the words of wget pages, with the dates of the revisits of a later crawl', async () => {
    const dir = tempDir();
    const crawl1 = fixture('wget/crawl1.warc.gz');
    const crawl2 = fixture('wget/crawl2.warc.gz');
    writeFileSync(join(dir, 'manifest'), `${crawl1} wget\n${crawl2} wget\n`);
    expect((await nwax(['cdx', '-o', join(dir, 'all.cdx'), crawl1, crawl2])).code).toBe(0);
    writeFileSync(join(dir, 'revisits'), (await nwax(['revisits', join(dir, 'all.cdx')])).stdout);
    const revisits = readFileSync(join(dir, 'revisits'), 'utf8').trim().split('\n');
    expect(revisits.length).toBeGreaterThan(300);
    const crawl = join(dir, 'crawl');
    await pipeline(crawl, join(dir, 'manifest'), { dates: join(dir, 'revisits') });
    const r = await search(crawl, 'debian reference', '--hits', '50');
    expect(r.total).toBeGreaterThan(10);
    // A version that crawl2 revisited has the date of its crawl1 capture and the revisit's date.
    const revisitDates = new Map<string, string[]>();
    for (const l of revisits) {
      const [key, digest, date] = l.split(' ');
      revisitDates.set(`${key} ${digest}`, [...(revisitDates.get(`${key} ${digest}`) ?? []), date]);
    }
    const revisited = r.hits.filter((h) => revisitDates.has(`${surt(h.url)} ${h.digest}`));
    expect(revisited.length).toBeGreaterThan(10);
    for (const h of revisited) {
      const dates = revisitDates.get(`${surt(h.url)} ${h.digest}`)!;
      expect(h.dates.length).toBe(dates.length + 1);
      for (const d of dates) expect(h.dates).toContain(d);
      expect(h.dates[0] < dates[0]).toBe(true);
    }
    expect(r.hits[0].snippet.marks.length).toBeGreaterThan(0);
  }, 120_000);
});

describe.skipIf(!HAVE_FIXTURES)('importing and indexing every fixture', () => {
  it('finds pages by their words, with the dates of their revisit records', async () => {
    const dir = tempDir();
    const archives = readFileSync(join(FIXTURES, 'manifest.tsv'), 'utf8')
      .split('\n')
      .map((l) => l.split('\t')[0])
      .filter((p) => /\.(w?arc)(\.gz)?$/.test(p ?? ''))
      .map(fixture)
      .filter((p) => existsSync(p));
    writeFileSync(join(dir, 'manifest'), `${archives.join('\n')}\n`);
    await nwaxAsync(['cdx', '-q', '-o', join(dir, 'all.cdx'), ...archives]);
    const dup = await nwaxAsync(['dedup-cdx', join(dir, 'all.cdx')]);
    const rv = await nwaxAsync(['revisits', join(dir, 'all.cdx')]);
    writeFileSync(join(dir, 'all.dup'), dup.stdout);
    writeFileSync(join(dir, 'dates'), dup.stdout + rv.stdout);
    const crawl = join(dir, 'crawl');
    await pipeline(crawl, join(dir, 'manifest'), { exclusions: join(dir, 'all.dup'), dates: join(dir, 'dates') });
    const db = new Database(join(crawl, 'indexes', 'part-00000'), { readonly: true });
    const docs = db.prepare("SELECT url, digest, title FROM docs WHERE title != '' ORDER BY id").all() as { url: string; digest: string; title: string }[];
    db.close();
    expect(docs.length).toBeGreaterThan(100);
    // Pages found by words of their titles (within their URL: the words alone may match many).
    const sample = docs.filter((_, i) => i % Math.floor(docs.length / 15) === 0);
    for (const d of sample) {
      const word = d.title
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .find((w) => w.length > 2);
      if (!word) continue;
      const r = await nwaxAsync(['search', '--json', '-dir', crawl, `${word} url:${d.url}`]);
      expect(r.code, r.stderr).toBe(0);
      expect(
        (JSON.parse(r.stdout) as JsonResult).hits.map((h) => h.digest),
        `${word} url:${d.url}`,
      ).toContain(d.digest);
    }
    // Every revisit of an indexed version shows up among that version's dates.
    const byKey = new Map(docs.map((d) => [`${surt(d.url)} ${d.digest}`, d]));
    const revisits = rv.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(' '))
      .filter(([k, dg]) => byKey.has(`${k} ${dg}`));
    expect(revisits.length).toBeGreaterThan(20);
    for (const [k, dg, date] of revisits.filter((_, i) => i % 10 === 0)) {
      const d = byKey.get(`${k} ${dg}`)!;
      const r = JSON.parse((await nwaxAsync(['search', '--json', '-dir', crawl, `url:${d.url}`])).stdout) as JsonResult;
      expect(r.hits.find((h) => h.digest === d.digest)?.dates, `${d.url} ${d.digest}`).toContain(date);
    }
  }, 180_000);
});
