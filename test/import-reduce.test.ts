import { describe, expect, it } from 'vitest';
import { importJob } from '../src/segment/import-job.js';
import { newContext } from '../src/mapreduce/job.js';
import { RawJson } from '../src/mapreduce/value-json.js';
import { captureJson, crawlParseOf, SEGMENT_PARTS, type Capture } from '../src/segment/segment.js';
import { nativeKernel } from '../src/native/addon.js';
import { awkwardStrings } from './helpers.js';

/** A capture as the import map emits it (importer.ts's field order), with what the test varies. */
function capture(date: string, o: { title?: string; anchors?: string[]; noindex?: boolean; nofollow?: boolean; text?: string } = {}): Capture {
  const url = 'http://example.org/é?q="x"';
  const outlinks = (o.anchors ?? ['one']).map((anchor, i) => ({ url: `http://example.org/${i}`, anchor }));
  return {
    date,
    content: {
      url,
      file: 'a.warc.gz',
      location: '/x/a.warc.gz',
      offset: 10,
      length: 20,
      collection: 'c',
      date,
      mime: 'text/html',
      status: 200,
      recordType: 'response',
    },
    parse_data: {
      title: o.title ?? 'T',
      description: '',
      outlinks,
      noindex: o.noindex ?? false,
      nofollow: o.nofollow ?? false,
      parse: 'success',
      meta: { url, digest: 'sha1:AAAA', date, mime: 'text/html', status: 200, length: 20, collection: 'c', file: 'a.warc.gz', offset: 10, lang: 'en' },
    },
    parse_text: o.text ?? 'text',
    crawl_fetch: { status: 'fetch_success', date, dates: [date] },
  };
}

/** The segment's records of one key through `reduce` (strings), as the named outputs write them. */
function byStrings(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  importJob.reduce(
    'k',
    values,
    (_k, v) => {
      for (const [name, field] of Object.entries(v as Record<string, unknown>)) out[name] = field instanceof RawJson ? field.text : JSON.stringify(field);
    },
    newContext({}),
  );
  return out;
}

/** The same through `reduceBytes`, or undefined where it hands the group to `reduce`. */
function byBytes(values: string[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const counters = {};
  const took = importJob.encoding!.reduceBytes!(
    Buffer.from('k'),
    values.map((v) => Buffer.from(v)),
    (fields) => {
      fields.forEach((f, i) => {
        if (f) out[SEGMENT_PARTS[i]] = Buffer.concat(f instanceof Uint8Array ? [f] : f).toString();
      });
    },
    newContext(counters),
  );
  return took ? out : undefined;
}

describe('the import reduce over bytes', () => {
  it('writes what the reduce over strings writes, crawl_parse cut out of parse_data', () => {
    const tricky = [
      capture('20200101000000'),
      capture('20200101000000', { nofollow: true }),
      capture('20200101000000', { noindex: true, nofollow: true }),
      capture('20200101000000', { noindex: true }),
      capture('20200101000000', { anchors: [] }),
      // The markers the cuts look for, inside strings (escaped there, so not structure).
      capture('20200101000000', {
        title: ',"outlinks":[],"noindex":true,"nofollow":true',
        anchors: ['],"noindex":true,"nofollow":true', 'a\\"b', ''],
        text: ',"parse_text":"x"}',
      }),
      capture('20200101000000', { title: 'Ελληνικά 日本語 😀', anchors: ['😀', '\u2028'], text: 'naïve \ud800 text' }),
    ];
    for (const c of tricky) {
      const json = JSON.stringify(c);
      const bytes = byBytes([json]);
      expect(bytes, json).toBeDefined();
      expect(bytes).toEqual(byStrings([json]));
      expect(JSON.parse(bytes!.crawl_parse)).toEqual(crawlParseOf(c.parse_data));
      expect(JSON.parse(bytes!.crawl_fetch)).toEqual(c.crawl_fetch);
      expect(Object.keys(bytes!)).toEqual([...SEGMENT_PARTS]);
    }
  });

  it('hands a version captured several times, and a capture of another shape, to the reduce over strings', () => {
    const twice = [JSON.stringify(capture('20200101000000')), JSON.stringify(capture('20210101000000'))];
    expect(byBytes(twice)).toBeUndefined();
    expect(JSON.parse(byStrings(twice).crawl_fetch).dates).toEqual(['20200101000000', '20210101000000']);
    // Fields in another order (a capture written by another version): parsed, the same datasets.
    const c = capture('20200101000000', { nofollow: true });
    const reordered = JSON.stringify({ date: c.date, parse_text: c.parse_text, content: c.content, crawl_fetch: c.crawl_fetch, parse_data: c.parse_data });
    expect(byBytes([reordered])).toBeUndefined();
    expect(byStrings([reordered])).toEqual(byStrings([JSON.stringify(c)]));
    expect(JSON.parse(byStrings([reordered]).crawl_parse)).toEqual({ outlinks: [] });
  });
});

describe("a capture's JSON in pieces", () => {
  const jsonString = nativeKernel('json')?.jsonString as ((s: string) => Buffer) | undefined;

  it.skipIf(!jsonString)("the addon writes JSON.stringify's bytes for every string", () => {
    for (const s of awkwardStrings()) expect(jsonString!(s).toString('latin1'), JSON.stringify(s)).toBe(Buffer.from(JSON.stringify(s)).toString('latin1'));
  });

  it('captureJson gives the bytes of JSON.stringify of the capture', () => {
    const texts = awkwardStrings();
    for (let i = 0; i < texts.length; i += 7) {
      const c = capture('20200101000000', { text: texts[i], title: texts[i + 1], anchors: [texts[i + 2] ?? '', 'b'] });
      if (i % 2) Object.assign(c.parse_data, { parseError: 'PDF: "bad"' });
      if (i % 3) Object.assign(c.parse_data.meta, { charset: 'windows-1252', truncated: true });
      const pieces = captureJson(c).pieces;
      expect(Buffer.concat(pieces.map((p) => Buffer.from(p))).toString('latin1')).toBe(Buffer.from(JSON.stringify(c)).toString('latin1'));
      expect(captureJson(c).text).toBe(JSON.stringify(c));
    }
  });
});

describe('a JSON string read back from its bytes', () => {
  const decode = nativeKernel('json')?.jsonStringDecode as ((b: Uint8Array, s: number, e: number) => string | undefined) | undefined;

  it.skipIf(!decode)("gives JSON.parse's string for every string, in the middle of other bytes", () => {
    for (const s of awkwardStrings()) {
      const json = Buffer.from(`x{${JSON.stringify(s)}}y`);
      const got = decode!(json, 2, json.length - 2);
      expect(got, JSON.stringify(s)).toBe(s);
    }
  });

  it.skipIf(!decode)('reads every escape JSON has, upper- and lower-case hex, and makes Latin-1 strings as one-byte strings would be', () => {
    const cases = ['"\\/\\b\\f\\n\\r\\t\\"\\\\"', '"\\u00E9\\u00e9\\uD83D\\uDE00\\udc00"', '"caf\u00e9 \u00ff"', '"\u0100"', '"\u{10FFFF}"', '""'];
    for (const c of cases) expect(decode!(Buffer.from(c), 0, Buffer.byteLength(c)), c).toBe(JSON.parse(c));
  });

  it.skipIf(!decode)('hands back what JSON.parse throws on or a decode would replace: the caller then says what is wrong', () => {
    const bad: (string | Buffer)[] = [
      '"a"b"',
      '"ends escaped\\"',
      '"tab\there"',
      '"nul\u0000"',
      '"\\x41"',
      '"\\u12"',
      '"\\u12G4"',
      'no quotes',
      '"',
      '"open',
      Buffer.from([0x22, 0xff, 0x22]),
      Buffer.from([0x22, 0xc3, 0x22]),
      Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]),
      Buffer.from([0x22, 0xe0, 0x80, 0xaf, 0x22]),
      Buffer.from([0x22, 0xf4, 0x90, 0x80, 0x80, 0x22]),
      Buffer.from([0x22, 0xc0, 0xaf, 0x22]),
      Buffer.from([0x22, 0xf0, 0x9f, 0x98, 0x22]),
    ];
    for (const b of bad) {
      const bytes = Buffer.from(b);
      expect(decode!(bytes, 0, bytes.length), bytes.toString('latin1')).toBeUndefined();
    }
  });
});
