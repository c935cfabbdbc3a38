import { describe, expect, it } from 'vitest';
import { newContext, type Counters } from '../src/mapreduce/job.js';
import { emittedJson } from '../src/mapreduce/value-json.js';
import { indexJob } from '../src/index/index-job.js';
import { updatedbJob } from '../src/crawl/updatedb-job.js';
import { invertlinksJob } from '../src/crawl/invertlinks-job.js';
import type { CrawlDatum } from '../src/crawl/crawl-datum.js';

/** Runs a job's reduce on one key with the given -D properties; what it emits. */
function reduce(job: typeof updatedbJob, key: string, values: unknown[], props: string[] = []) {
  const out: [string, unknown][] = [];
  const counters: Counters = {};
  job.reduce(key, values, (k, v) => out.push([k, v]), newContext(counters, props));
  return { out, counters };
}

/** What map emits, each value as the shuffle carries it (its JSON, read back). */
function map(job: typeof updatedbJob, inputFile: string, key: string, value: unknown, props: string[] = []) {
  const out: [string, unknown][] = [];
  void job.map(key, value, (k, v) => out.push([k, JSON.parse(emittedJson(v))]), newContext({}, props, inputFile));
  return out;
}

const db = (over: Partial<CrawlDatum> = {}): CrawlDatum => ({
  status: 'db_fetched',
  fetchTime: '20070101000000',
  interval: 2592000,
  score: 2,
  retries: 0,
  ...over,
});

describe('updatedb merge rules (Nutch CrawlDbReducer)', () => {
  it("a fetch wins over a link and over the db; the newest fetch counts; the next fetch is the URL's interval away", () => {
    const { out } = reduce(
      updatedbJob,
      'http://a.example/',
      [
        { db: db({ status: 'db_unfetched', interval: 86400 }) },
        { link: { score: 0 } },
        { fetch: { status: 'fetch_gone', date: '20070101000000' } },
        { fetch: { status: 'fetch_success', date: '20070301000000', digest: 'sha1:AAAA' } },
      ],
      ['db.fetch.interval.default=3600'],
    );
    expect(out).toEqual([
      [
        'http://a.example/',
        {
          status: 'db_fetched',
          fetchTime: '20070302000000',
          interval: 86400,
          score: 2,
          digest: 'sha1:AAAA',
          digestDate: '20070301000000',
          retries: 0,
          fetched: '20070301000000',
        },
      ],
    ]);
    // A new URL (from a link) gets db.fetch.interval.default.
    expect(
      reduce(
        updatedbJob,
        'http://n.example/',
        [{ link: { score: 0 } }, { fetch: { status: 'fetch_success', date: '20070301000000', digest: 'sha1:B' } }],
        ['db.fetch.interval.default=3600'],
      ).out[0][1],
    ).toMatchObject({ interval: 3600, fetchTime: '20070301010000' });
  });

  it('keeps the date the content was first fetched while the digest stays the same', () => {
    const first = db({ digest: 'sha1:AAAA', fetched: '20070301000000', digestDate: '20070301000000' });
    const same = reduce(updatedbJob, 'u', [{ db: first }, { fetch: { status: 'fetch_notmodified', date: '20070401000000', digest: 'sha1:AAAA' } }]).out[0][1];
    expect(same).toMatchObject({ status: 'db_notmodified', digest: 'sha1:AAAA', digestDate: '20070301000000', fetched: '20070401000000' });
    const changed = reduce(updatedbJob, 'u', [{ db: first }, { fetch: { status: 'fetch_success', date: '20070501000000', digest: 'sha1:BBBB' } }]).out[0][1];
    expect(changed).toMatchObject({ status: 'db_fetched', digest: 'sha1:BBBB', digestDate: '20070501000000' });
  });

  it('a link alone adds an unfetched URL; the db entry alone is kept as it was', () => {
    expect(reduce(updatedbJob, 'http://new.example/', [{ link: { score: 0 } }]).out[0][1]).toMatchObject({ status: 'db_unfetched', retries: 0 });
    const old = db();
    expect(reduce(updatedbJob, 'http://old.example/', [{ db: old }, { link: { score: 0 } }]).out[0][1]).toEqual(old);
  });

  it('retries count up, and past db.fetch.retry.max the URL is gone', () => {
    const retry = { fetch: { status: 'fetch_retry', date: '20070101000000' } };
    expect(reduce(updatedbJob, 'u', [{ db: db({ retries: 1, status: 'db_unfetched' }) }, retry], ['db.fetch.retry.max=2']).out[0][1]).toMatchObject({
      status: 'db_unfetched',
      retries: 2,
    });
    expect(reduce(updatedbJob, 'u', [{ db: db({ retries: 2, status: 'db_unfetched' }) }, retry], ['db.fetch.retry.max=2']).out[0][1]).toMatchObject({
      status: 'db_gone',
      retries: 3,
    });
  });

  it("adds a live crawl's outlinks as new URLs, never an import's (its keys are versions)", () => {
    const outlinks = { outlinks: [{ url: 'http://b.example/', anchor: 'b' }] };
    expect(map(updatedbJob, '/c/segments/1/crawl_parse/part-00000', 'http://a.example/', outlinks)).toEqual([['http://b.example/', { link: { score: 0 } }]]);
    expect(map(updatedbJob, '/c/segments/1/crawl_parse/part-00000', 'http://a.example/ sha1:AAAA', outlinks)).toEqual([]);
    expect(map(updatedbJob, '/c/segments/1/crawl_parse/part-00000', 'http://a.example/', outlinks, ['db.update.additions.allowed=false'])).toEqual([]);
  });

  it('passes outlinks and redirect targets through the URL filters, and keeps to the host with db.ignore.external.links', () => {
    const outlinks = {
      outlinks: ['http://b.example/', 'http://a.example/x#frag', 'http://a.example/logo.png', 'mailto:me@a.example'].map((url) => ({ url, anchor: '' })),
    };
    const keys = (conf: string[] = []) => map(updatedbJob, '/c/segments/1/crawl_parse/part-00000', 'http://a.example/', outlinks, conf).map(([k]) => k);
    expect(keys()).toEqual(['http://b.example/', 'http://a.example/x']);
    expect(keys(['db.ignore.external.links=true'])).toEqual(['http://a.example/x']);
    const redirect = map(updatedbJob, '/c/segments/1/crawl_fetch/part-00000', 'http://a.example/old', {
      status: 'fetch_redir_perm',
      date: '20070101000000',
      redirect: 'http://c.example/new',
    });
    expect(redirect.map(([k]) => k)).toEqual(['http://a.example/old', 'http://c.example/new']);
  });
});

describe('invertlinks (Nutch LinkDb)', () => {
  const outlinks = {
    outlinks: [
      { url: 'http://a.example/x', anchor: 'internal link' },
      { url: 'http://b.example/', anchor: 'a rather long anchor text' },
    ],
  };

  it("inverts a version's outlinks to its URL, dropping internal links when asked and cutting anchors", () => {
    const file = '/c/segments/1/crawl_parse/part-00000';
    expect(map(invertlinksJob, file, 'http://a.example/ sha1:AAAA', outlinks)).toEqual([
      ['http://a.example/x', { inlinks: [{ from: 'http://a.example/', anchor: 'internal link' }] }],
      ['http://b.example/', { inlinks: [{ from: 'http://a.example/', anchor: 'a rather long anchor text' }] }],
    ]);
    expect(map(invertlinksJob, file, 'http://a.example/', outlinks, ['db.ignore.internal.links=true', 'db.max.anchor.length=8'])).toEqual([
      ['http://b.example/', { inlinks: [{ from: 'http://a.example/', anchor: 'a rather' }] }],
    ]);
  });

  it('merges with the LinkDb, drops repeats, keeps db.max.inlinks', () => {
    const { out, counters } = reduce(
      invertlinksJob,
      'http://b.example/',
      [
        {
          inlinks: [
            { from: 'http://z.example/', anchor: 'z' },
            { from: 'http://a.example/', anchor: 'a' },
          ],
        },
        {
          inlinks: [
            { from: 'http://a.example/', anchor: 'a' },
            { from: 'http://m.example/', anchor: 'm' },
          ],
        },
      ],
      ['db.max.inlinks=2'],
    );
    expect(out).toEqual([
      [
        'http://b.example/',
        {
          inlinks: [
            { from: 'http://a.example/', anchor: 'a' },
            { from: 'http://m.example/', anchor: 'm' },
          ],
        },
      ],
    ]);
    expect(counters['inlinks over db.max.inlinks dropped']).toBe(1);
  });

  it('the combine joins lists as text: the bytes of stringifying the lists joined, whatever the values', () => {
    const lists = [
      { inlinks: [] },
      { inlinks: [{ from: 'http://a.example/', anchor: 'quote " tab \t ]} and é' }] },
      {
        inlinks: [
          { from: 'http://b.example/', anchor: '' },
          { from: 'http://c.example/', anchor: '\u2028' },
        ],
      },
      { inlinks: [] },
    ];
    const texts = lists.map((v) => JSON.stringify(v));
    const combined = (values: string[]) => {
      const out: string[] = [];
      invertlinksJob.combine!('http://t.example/', values, (_k, v) => out.push(emittedJson(v)), newContext({}));
      return out;
    };
    const want = JSON.stringify({ inlinks: lists.flatMap((v) => v.inlinks) });
    expect(combined(texts)).toEqual([want]);
    expect(combined([texts[0]])).toEqual(['{"inlinks":[]}']);
    // A value of another shape: the lists are read and joined as values.
    expect(combined([...texts, '{"inlinks":[{"from":"http://d.example/","anchor":"d"}],"n":1}'])).toEqual([
      JSON.stringify({ inlinks: [...lists.flatMap((v) => v.inlinks), { from: 'http://d.example/', anchor: 'd' }] }),
    ]);
  });
});

describe('index map (Nutch Indexer)', () => {
  it("passes a version's text and content on as the segment holds them: the bytes map gives", () => {
    const key = 'http://a.example/p?q=1 sha1:AAAA';
    const values: [string, unknown][] = [
      ['parse_text', 'text with "quotes", \\ back\nslash, é 日本 \u2028'],
      ['parse_text', ''],
      ['content', { url: 'http://a.example/p?q=1', file: 'a b.warc.gz', offset: 12, length: 34, date: '20070101000000', mime: 'text/html', status: 200 }],
      // parse_data is read without its outlinks, whatever their text holds.
      [
        'parse_data',
        {
          title: 'T ],"noindex": "x"',
          description: ',"outlinks":[',
          outlinks: [
            { url: 'http://b.example/?a="1"', anchor: 'a ],"noindex":true,[' },
            { url: 'http://c.example/', anchor: '\\"]' },
          ],
          noindex: false,
          nofollow: false,
          parse: 'success',
          meta: {
            url: 'http://a.example/p?q=1',
            digest: 'sha1:AAAA',
            date: '20070101000000',
            mime: 'text/html',
            status: 200,
            length: 99,
            collection: 'c',
            file: 'f',
            offset: 0,
            lang: 'de',
          },
        },
      ],
      [
        'parse_data',
        {
          title: '',
          description: '',
          outlinks: [],
          noindex: true,
          nofollow: false,
          parse: 'success',
          meta: { url: 'u', digest: 'sha1:AAAA', date: '2007', mime: 'text/html', status: null, length: 0, collection: '', file: '', offset: 0 },
        },
      ],
    ];
    for (const [dataset, value] of values) {
      const inputFile = `/c/segments/20070101000000/${dataset}/part-00000.gz`;
      const viaMap: string[] = [];
      void indexJob.map(key, value, (k, v) => viaMap.push(`${k}\t${emittedJson(v)}`), newContext({}, [], inputFile));
      const viaText: string[] = [];
      const took = indexJob.encoding!.mapText!(key, JSON.stringify(value), (k, v) => viaText.push(`${k}\t${emittedJson(v)}`), newContext({}, [], inputFile));
      expect(took).toBe(true);
      expect(viaText).toEqual(viaMap);
    }
    // Other datasets, keys and shapes go to map.
    const ctx = (d: string) => newContext({}, [], `/c/segments/1/${d}/part-00000.gz`);
    expect(indexJob.encoding!.mapText!(key, '{"title":"t"}', () => {}, ctx('parse_data'))).toBe(false);
    expect(indexJob.encoding!.mapText!(key, '{"title":"t","noindex":false,"outlinks":[],"meta":{}}', () => {}, ctx('parse_data'))).toBe(false);
    expect(indexJob.encoding!.mapText!('http://a.example/', '"text"', () => {}, ctx('parse_text'))).toBe(false);
    expect(indexJob.encoding!.mapText!(key, '{"not":"a string"}', () => {}, ctx('parse_text'))).toBe(false);
    expect(indexJob.encoding!.mapText!(key, '"a string"', () => {}, ctx('content'))).toBe(false);
  });
});
