/**
 * Jobs run as bytes by the local runner (issue 15): a map over the line's bytes (`mapBytes`),
 * the built-in sum (`longSum`) as combiner and reducer, plain-text splits read as bytes, and
 * record files appended from bytes. Each is held to the path that decodes: the streaming
 * tasks (`nwax job NAME map | LC_ALL=C sort | nwax job NAME reduce`), the Grouper, the string
 * writer, the split reader that makes strings.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { newContext, type Counters, type Job } from '../src/mapreduce/job.js';
import { Grouper } from '../src/mapreduce/grouper.js';
import { hashPartition } from '../src/mapreduce/partition.js';
import { LongSumGroups, longSum } from '../src/mapreduce/long-sum.js';
import { RecordFileReader, RecordFileWriter, indexPath } from '../src/mapreduce/record-file.js';
import { makeSplits, splitChunks, splitLines } from '../src/mapreduce/splits.js';
import { awkwardStrings, nwax, run, seededRandom, tempDir } from './helpers.js';

const dir = tempDir();

/** CDX-ish lines that the byte path must read as the string path does. */
function awkwardCdx(): Buffer {
  const parts: (string | Buffer)[] = [
    ' CDX N b a m s k r M S V g\n',
    '!meta {"a":1}\n',
    '\n',
    'org,example)/ 20200101000000 http://example.org/ text/html 200 AAAA - - 10 0 a.warc.gz\n',
    'org,example)/ 20200102000000 http://example.org/ text/html 200 AAAA - - 10 0 a.warc.gz\n',
    'org,example)/caf\u00e9 20200101000000 x\n',
    'org,example)/\u{1F600} 20200101000000 x\n',
    'org,example)/\uFF21 20200101000000 x\n',
    'key-without-space\n',
    'key-without-space\n',
    'ctrl\u0001key 2020 x\n',
    'crlf-line 2020 x\r\n',
    'crlf-key\r\n',
    ' CDXlike but not a legend\n',
    ' leading-space 2020\n',
    // Bytes that are not UTF-8: the streaming task reads them as U+FFFD.
    Buffer.from([0x62, 0x61, 0x64, 0xff, 0xfe, 0x20, 0x31, 0x0a]),
    Buffer.from([0x62, 0x61, 0x64, 0xc3, 0x0a]),
  ];
  const lines: Buffer[] = [];
  for (let r = 0; r < 300; r++) {
    for (const p of parts) lines.push(Buffer.from(p));
    lines.push(Buffer.from(`com,host${r % 37})/page${r % 11} 2020${String(r).padStart(10, '0')} u\n`));
  }
  // The last line has no newline.
  lines.push(Buffer.from('last,line)/ 2020 x'));
  return Buffer.concat(lines);
}

const sh = async (script: string) => {
  const r = await run('bash', ['-c', script], { env: { ...process.env, LC_ALL: 'C' } });
  if (r.code !== 0) throw new Error(`${script}: ${r.stderr}`);
  return r.out;
};

describe('cdx-url-count over bytes', () => {
  it("gives the streaming tasks' bytes per partition: legends, non-ASCII and invalid UTF-8 keys, control characters, CR, lines without a space or a final newline; with spills, splits and threads", async () => {
    const input = join(dir, 'awkward.cdx');
    writeFileSync(input, awkwardCdx());
    const bin = join(__dirname, '..', 'bin', 'run.js');
    const mapped = (await sh(`node ${bin} job cdx-url-count map < ${input}`)).toString().split('\n').filter(Boolean);
    const reduces = 3;
    const expected: string[] = [];
    for (let p = 0; p < reduces; p++) {
      const mine = mapped.filter((l) => hashPartition(l.slice(0, l.indexOf('\t')), reduces) === p);
      writeFileSync(join(dir, `mapped-${p}`), mine.length ? `${mine.join('\n')}\n` : '');
      expected.push((await sh(`sort ${join(dir, `mapped-${p}`)} | node ${bin} job cdx-url-count reduce`)).toString());
    }
    expect(expected.join('')).toContain('org,example)/caf\u00e9\t300');
    expect(expected.join('')).toContain('bad\ufffd\ufffd\t300');
    expect(expected.join('')).toContain('key-without-space\t600');
    for (const [name, args] of Object.entries({
      'one task': [],
      'many spills': ['--memory', '4K'],
      'splits on two threads': ['--threads', '2', '-D', 'mapreduce.input.fileinputformat.split.maxsize=3K', '--memory', '64K'],
    })) {
      const out = join(dir, `out-${name.replace(/ /g, '-')}`);
      const r = await nwax(['job', 'cdx-url-count', 'run', '-o', out, '--reduces', String(reduces), ...args, input]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('legend lines 1200');
      expect(r.stderr).toContain('not CDX lines 600');
      for (let p = 0; p < reduces; p++) {
        const part = gunzipSync(readFileSync(join(out, `part-0000${p}.gz`))).toString();
        expect(part, `${name}: part ${p}`).toBe(expected[p]);
      }
    }
  });
});

describe('longSum', () => {
  /** The values' JSON texts of one key, through the Grouper (with longSum) and the byte groups. */
  const both = (texts: string[]) => {
    const lines = texts.map((t) => `k\t${t}`).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const job: Job = { name: 't', description: '', input: 'records', map() {}, reduce: longSum };
    const byGrouper: string[] = [];
    const g = new Grouper(job, (k, v) => void byGrouper.push(`${k}\t${JSON.stringify(v)}`), newContext({}));
    for (const l of lines) g.push(l);
    g.flush();
    const byBytes: string[] = [];
    const counters: Counters = {};
    const s = new LongSumGroups((key, n, sum) => void byBytes.push(`${key.toString('utf8', 0, n)}\t${sum}`), counters, 'groups', 'test');
    const buf = Buffer.from(lines.map((l) => `${l}\n`).join(''));
    for (let at = 0; at < buf.length; ) {
      const nl = buf.indexOf(0x0a, at);
      s.push(buf, at, nl);
      at = nl + 1;
    }
    s.flush();
    return { byGrouper, byBytes, groups: counters.groups };
  };

  it('sums as the Grouper does: integers read from bytes, fractions, exponents, long integers, -0, and values that are not numbers', () => {
    for (const texts of [
      ['1', '2', '3'],
      ['-5', '0', '-0', '12'],
      ['0.1', '0.2', '0.3', '1e3', '-2.5E-1'],
      ['123456789012345', '1234567890123456789', '9007199254740993'],
      ['"7"', 'null', 'true', '{"n":1}', '[1]', '4'],
      ['1e308', '1e308'],
      ['10', '-1', '100000000000000', '-999999999999999'],
    ]) {
      const r = both(texts);
      expect(r.byBytes, texts.join(' ')).toEqual(r.byGrouper);
      expect(r.groups).toBe(1);
    }
  });

  it('names the line of a value that is not JSON', () => {
    const s = new LongSumGroups(() => {}, {}, 'groups', 'job t reduce input');
    const buf = Buffer.from('a\t1\na\tnope\n');
    s.push(buf, 0, 3);
    expect(() => s.push(buf, 4, 10)).toThrow(/job t reduce input, line 2: not "key TAB value-json"/);
  });
});

describe('plain-text splits as bytes', () => {
  it('hand every line to exactly one split, as the string reader does, for split sizes across line ends and a file without a final newline', () => {
    const text = Array.from({ length: 500 }, (_, i) => `line ${i} ${'x'.repeat(i % 13)}${i % 50 === 0 ? '\u00e9' : ''}`).join('\n');
    for (const [name, body] of [
      ['final-newline', `${text}\n`],
      ['no-final-newline', text],
    ]) {
      const path = join(dir, `${name}.txt`);
      writeFileSync(path, body);
      const expected = body.split('\n').filter((l, i, a) => i < a.length - 1 || l !== '');
      for (const size of [1, 7, 64, 100, 1000, 1 << 20]) {
        const splits = makeSplits([path], size);
        // (Each chunk read before the next is asked for: they share one buffer.)
        const fromBytes: string[] = [];
        for (const split of splits) for (const c of splitChunks(split)) fromBytes.push(...c.toString('utf8').split('\n').slice(0, -1));
        const fromStrings = splits.flatMap((s) => [...splitLines(s)].flat());
        expect(fromBytes, `${name}, splits of ${size}`).toEqual(expected);
        expect(fromStrings, `${name}, splits of ${size}`).toEqual(expected);
      }
    }
  });
});

describe('record files appended from bytes', () => {
  it("are the bytes of the same records appended as strings: block cuts by the lines' length as strings, non-ASCII keys and values, records larger than a block", () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `${String(i).padStart(5, '0')}${i % 3 === 0 ? '\u00e9\u{1F600}' : i % 7 === 0 ? '\uFF21' : ''}`);
    // Values past the addon's 256-byte threshold too, with two-, three- and four-byte characters.
    const valueAt = (i: number) =>
      i === 1500 ? JSON.stringify('v'.repeat(5000)) : i % 5 === 0 ? JSON.stringify(`\u00fc\u{1F600}\u65e5${i}`.repeat(i % 4 === 0 ? 40 : 1)) : String(i);
    const write = (name: string, how: 'strings' | 'bytes' | 'raw') => {
      const path = join(dir, `${name}.gz`);
      const w = new RecordFileWriter(path, { blockSize: 1000 });
      keys.forEach((k, i) => {
        const value = valueAt(i);
        if (how === 'bytes') {
          const b = Buffer.from(`..${k}..`);
          w.appendBytes(b, 2, b.length - 2, value, !/[^\x00-\x7f]/.test(k) && i % 2 === 0);
        } else if (how === 'raw') {
          // Some values in pieces, cut inside a character too.
          const v = Buffer.from(value);
          w.appendRaw(Buffer.from(k), i % 3 === 0 ? [v.subarray(0, 2), v.subarray(2, 3), v.subarray(3)] : v);
        } else w.appendLine(k, value);
      });
      w.close();
      return path;
    };
    const a = write('strings', 'strings');
    const b = write('bytes', 'bytes');
    expect(readFileSync(b).equals(readFileSync(a))).toBe(true);
    expect(readFileSync(indexPath(b)).equals(readFileSync(indexPath(a)))).toBe(true);
    const c = write('raw', 'raw');
    expect(readFileSync(c).equals(readFileSync(a))).toBe(true);
    expect(readFileSync(indexPath(c)).equals(readFileSync(indexPath(a)))).toBe(true);
    const r = new RecordFileReader(b);
    expect(r.blockCount).toBeGreaterThan(30);
    expect(r.get(keys[2999])).toEqual([2999]);
    expect([...r.entries()].length).toBe(3000);
    expect(readdirSync(dir)).toContain('.bytes.gz.idx');
  });
});

/** A record as its bytes (one character per byte), so that bytes written as they came, not as U+FFFD, differ. */
const asBytes = (p: number, key: string, value: string) => `${p} ${Buffer.from(key).toString('latin1')}\t${Buffer.from(value).toString('latin1')}`;

/**
 * Holds a job's `mapRecordBytes` to its `map` on the lines of one dataset part in `folder`
 * (40 copies of them): the records each emits, as bytes, with their partitions, for the whole
 * file and for 700-byte splits; its counters; and both ways taken, unless `declinesAll`.
 */
async function expectBytesMapAsStrings(job: Job, folder: string, lines: (string | Buffer)[], properties: string[] = [], declinesAll = false): Promise<void> {
  const { mapper } = await import('../src/mapreduce/streaming.js');
  const { mapRecordsAsBytes } = await import('../src/mapreduce/record-bytes-map.js');
  const name = `${folder} ${properties.join(' ')}`;
  mkdirSync(folder, { recursive: true });
  const path = join(folder, 'part-00000');
  const bytes = Buffer.concat(Array.from({ length: 40 }, () => lines.map((l) => Buffer.from(l))).flat());
  writeFileSync(path, bytes);
  const reduces = 3;
  // The string path: each line decoded, through map.
  const expected: string[] = [];
  const counted: Counters = {};
  const map = mapper(job, { record: (k, v) => expected.push(asBytes(hashPartition(k, reduces), k, v)) }, counted, properties, path);
  for (const line of bytes.toString('utf8').split('\n')) await map(line);
  expect(expected.length).toBeGreaterThan(100);
  {
    // The whole file, as one task reads it.
    const got: string[] = [];
    const counters: Counters = {};
    let direct = 0;
    const fallback = mapper(job, { record: (k, v) => got.push(asBytes(hashPartition(k, reduces), k, v)) }, counters, properties, path);
    await mapRecordsAsBytes(
      job,
      { path, start: 0, end: -1 },
      reduces,
      counters,
      properties,
      (key, s, e, pieces, p) => {
        direct++;
        got.push(`${p} ${key.toString('latin1', s, e)}\t${Buffer.concat(pieces.map((x) => Buffer.from(x))).toString('latin1')}`);
      },
      fallback,
    );
    expect(got, `${name}: the whole file`).toEqual(expected);
    expect(counters, name).toEqual(counted);
    // Both ways taken: records emitted from their bytes, and records declined to map.
    if (declinesAll) expect(direct, name).toBe(0);
    else {
      expect(direct, name).toBeGreaterThan(0);
      expect(direct, name).toBeLessThan(expected.length);
    }
  }
  const splits = makeSplits([path], 700);
  expect(splits.length).toBeGreaterThan(2);
  const bySplits: string[] = [];
  for (const split of splits) {
    const fallback = mapper(job, { record: (k, v) => bySplits.push(asBytes(hashPartition(k, reduces), k, v)) }, {}, properties, path);
    await mapRecordsAsBytes(
      job,
      split,
      reduces,
      {},
      properties,
      (key, s, e, pieces, p) => {
        bySplits.push(`${p} ${key.toString('latin1', s, e)}\t${Buffer.concat(pieces.map((x) => Buffer.from(x))).toString('latin1')}`);
      },
      fallback,
    );
  }
  expect(bySplits, `${name}: in splits`).toEqual(expected);
}

describe('the index map over bytes', () => {
  /** A segment's records, each line as bytes, the awkward ones included. */
  const datasets: Record<string, (string | Buffer)[]> = {
    parse_text: [
      'http://example.org/ AAAA\t"plain text"\n',
      'http://example.org/caf\u00e9 BBBB\t"caf\u00e9 \u{1F600} \\"quoted\\" \\u0000 \\\\"\n',
      'http://example.org/empty CCCC\t""\n',
      'no-space-in-key\t"text"\n',
      'http://example.org/q DD"D\t"a digest JSON must escape"\n',
      'http://example.org/u D\u00e9D\t"a digest past ASCII"\n',
      'http://example.org/n EEEE\t42\n',
      'http://example.org/o FFFF\t{"not":"a string"}\n',
      'http://example.org/cr GGGG\t"carriage return"\r\n',
      '\n',
      '\t"no key"\n',
      Buffer.from([...Buffer.from('http://example.org/bad HHHH\t"bad '), 0xff, 0xc3, ...Buffer.from('"\n')]),
      Buffer.from([...Buffer.from('http://example.org/bad'), 0xfe, ...Buffer.from(' IIII\t"bad key"\n')]),
    ],
    content: [
      'http://example.org/ AAAA\t{"date":"20200101000000","mime":"text/html","status":200}\n',
      'http://example.org/x BBBB\t"not an object"\n',
      'http://example.org/y CCCC\t{"mime":"text/plain","file":"\u00e9.warc.gz"}\n',
    ],
    linkdb: [
      'http://example.org/\t{"inlinks":[{"from":"http://a.example/","anchor":"home"},{"from":"http://b.example/","anchor":"caf\u00e9 \\"x\\""}]}\n',
      'http://example.org/empty\t{"inlinks":[]}\n',
      'http://example.org/other\t{"outlinks":[]}\n',
      'http://example.org/short\t{}\n',
      Buffer.from([...Buffer.from('http://example.org/bad\t{"inlinks":[{"from":"x","anchor":"'), 0xff, ...Buffer.from('"}]}\n')]),
    ],
    parse_data: [
      `http://example.org/ AAAA\t${JSON.stringify({ title: 'T\u00e9 ,"outlinks":[', description: 'd', outlinks: [{ url: 'http://a/', anchor: '],"noindex":true,"nofollow":' }], noindex: false, nofollow: false, parse: 'success', meta: { url: 'http://example.org/', digest: 'AAAA', date: '2020', mime: 'text/html', length: 5, lang: 'fr' } })}\n`,
      `http://example.org/z BBBB\t${JSON.stringify({ title: '', description: '', outlinks: [], noindex: true, nofollow: true, parse: 'success', meta: { url: 'u', digest: 'BBBB', date: '2020', mime: 'text/html', length: 0 } })}\n`,
      'http://example.org/w CCCC\t{"title":"no outlinks field","meta":{"length":1}}\n',
      Buffer.from([
        ...Buffer.from('http://example.org/v DDDD\t{"title":"'),
        0xe9,
        ...Buffer.from('","description":"","outlinks":[{"url":"x","anchor":"'),
        0xff,
        ...Buffer.from('"}],"noindex":false,"nofollow":false,"meta":{"length":2}}\n'),
      ]),
    ],
  };

  it('emits the bytes mapText and map emit: non-ASCII, escapes, invalid UTF-8, digests JSON escapes, values of other shapes, whole files and splits', async () => {
    const { indexJob } = await import('../src/index/index-job.js');
    for (const [name, lines] of Object.entries(datasets)) await expectBytesMapAsStrings(indexJob, join(dir, 'segments', '20200101000000', name), lines);
  });

  it('names the file and line of a page text that is not one JSON string (a quote not escaped inside, or its last one escaped), on both paths', async () => {
    const { indexJob } = await import('../src/index/index-job.js');
    const { mapper } = await import('../src/mapreduce/streaming.js');
    const { mapRecordsAsBytes } = await import('../src/mapreduce/record-bytes-map.js');
    const folder = join(dir, 'segments', '20200102000000', 'parse_text');
    mkdirSync(folder, { recursive: true });
    for (const bad of ['"spliced "into" another"', '"cut after a backslash\\"', '"two \\\\" more"']) {
      const path = join(folder, 'part-00000');
      writeFileSync(path, `http://example.org/a AAAA\t"fine \\"quoted\\" \\\\"\nhttp://example.org/b BBBB\t${bad}\n`);
      const expected = 'part-00000: line 2: not "key TAB value-json"';
      const strings = mapper(indexJob, { record: () => {} }, {}, [], path);
      const lines = readFileSync(path, 'utf8').split('\n');
      expect(() => {
        for (const l of lines) strings(l);
      }, bad).toThrow(expected);
      await expect(
        mapRecordsAsBytes(indexJob, { path, start: 0, end: -1 }, 2, {}, [], () => {}, mapper(indexJob, { record: () => {} }, {}, [], path)),
        bad,
      ).rejects.toThrow(expected);
    }
  });
});

describe("the index reduce's values from bytes", () => {
  it("gives the values JSON.parse gives: a version's text kept as its JSON bytes, a URL's inlinks as their count and anchors, every other piece left to JSON.parse", async () => {
    const { indexJob } = await import('../src/index/index-job.js');
    const { JsonText, plainText } = await import('../src/util/json-bytes.js');
    const texts = awkwardStrings().filter((_, i) => i % 5 === 0);
    const inlinks = [
      '{"inlinks":[{"from":"http://a/","anchor":"x"}]}',
      '{"inlinks":[]}',
      '{"inlinks":[{"from":"http://a/","anchor":"x"},{"from":"http://b/","anchor":""},{"from":"http://c/","anchor":"caf\u00e9"}]}',
    ];
    const values = [
      ...texts.map((t, i) => JSON.stringify({ d: `sha1:${i}`, text: t })),
      ...inlinks,
      '{"d":"AAAA","content":{"mime":"text/html"}}',
      '{"d":"A\\"A","text":"a digest JSON escapes"}',
      '{"d":"A\u00e9A","text":"a digest past ASCII"}',
      '{"d":"AAAA","text":"x","more":1}',
      '{"d":"AAAA","text":42}',
      '{"d":"AAAA","txt":"x"}',
    ];
    let fromBytes = 0;
    for (const v of values) {
      const line = Buffer.from(`url\t${v}`);
      const got = indexJob.encoding!.reduceValueFromBytes!(line, 4, line.length) as Record<string, unknown> | undefined;
      if (got === undefined) continue;
      fromBytes++;
      const want = JSON.parse(v);
      if ('inlinks' in want) {
        const anchors = [...new Set((want.inlinks as { anchor: string }[]).map((l) => l.anchor).filter(Boolean))];
        expect(got, v).toEqual({ inlinkCount: want.inlinks.length, anchors });
      } else {
        expect(got.text, v).toBeInstanceOf(JsonText);
        expect({ d: got.d, text: plainText(got.text as InstanceType<typeof JsonText>) }, v).toEqual(want);
      }
    }
    // Every text piece and every inlinks list without an escape is read from its bytes, and no other piece is.
    expect(fromBytes).toBe(texts.length + inlinks.length);
    // Bytes that are not UTF-8: replaced, as a decoded line gives them to JSON.parse.
    const damaged = Buffer.from([...Buffer.from('url\t{"d":"AAAA","text":"bad '), 0xff, ...Buffer.from('"}')]);
    const got = indexJob.encoding!.reduceValueFromBytes!(damaged, 4, damaged.length) as { text: InstanceType<typeof JsonText> };
    expect(plainText(got.text)).toBe(JSON.parse(damaged.toString('utf8', 4)).text);
  });

  it("reads a URL's inlinks from their bytes as JSON.parse reads them, or leaves them to it", async () => {
    const { inlinkAnchors } = await import('../src/crawl/invertlinks-job.js');
    const read = (v: string | Buffer) => {
      const b = Buffer.concat([Buffer.from('k\t'), Buffer.from(v)]);
      return inlinkAnchors(b, 2, b.length);
    };
    const rnd = seededRandom(7);
    const words = ['a', 'b', 'caf\u00e9', '', '\u{1F600}', 'x y'];
    const list = Array.from({ length: 300 }, (_, i) => ({ from: `http://h${i % 7}/${i}`, anchor: words[Math.floor(rnd() * words.length)] }));
    const v = JSON.stringify({ inlinks: list });
    expect(read(v)).toEqual({ count: 300, anchors: [...new Set(list.map((l) => l.anchor).filter(Boolean))] });
    // Many distinct anchors (more than the kernel's first room) and long strings, read sixteen bytes at a time.
    const many = Array.from({ length: 5000 }, (_, i) => ({
      from: `http://host-${i % 13}.example/a/long/path/${i}`,
      anchor: i % 3 ? `anchor text number ${i % 2500}` : '',
    }));
    expect(read(JSON.stringify({ inlinks: many }))).toEqual({ count: 5000, anchors: [...new Set(many.map((l) => l.anchor).filter(Boolean))] });
    for (const other of [
      '{"inlinks":[{"from":"http://a/","anchor":"a \\"quoted\\" anchor"}]}', // an escape
      '{"inlinks":[{"from":"http://a/\\u00e9","anchor":"x"}]}',
      '{"inlinks":[{"anchor":"x","from":"http://a/"}]}', // another order
      '{"inlinks":[{"from":"http://a/","anchor":"x","n":1}]}', // another field
      '{"inlinks":[{"from":"http://a/","anchor":null}]}',
      '{"inlinks":[{"from":"http://a/"}]}',
      '{"inlinks":[{"from":"http://a/","anchor":"x"},]}',
      '{"inlinks":[{"from":"http://a/","anchor":"x"}],"more":1}',
      '{"inlinks":[{"from":"http://a/","anchor":"x"}',
      '{"outlinks":[]}',
      '{"inlinks":[{"from":"http://a/a/long/path/to/\\"x","anchor":"x"}]}', // an escape after sixteen bytes
      '{"inlinks":[{"from":"http://a/","anchor":"a long anchor text with a raw \u0001 control"}]}', // JSON.parse refuses it
      '{"inlinks":[{"from":"http://a/\ta/long/path","anchor":"x"}]}',
    ])
      expect(read(other), other).toBeUndefined();
    // Bytes that are not UTF-8 in an anchor: replaced, as a decoded line gives them to JSON.parse.
    const bad = Buffer.concat([Buffer.from('{"inlinks":[{"from":"http://a/","anchor":"a'), Buffer.from([0xff]), Buffer.from('b"}]}')]);
    expect(read(bad)).toEqual({ count: 1, anchors: [JSON.parse(bad.toString('utf8')).inlinks[0].anchor] });
    // Two anchors of different bytes that decode to one string: one anchor, as JSON.parse's strings give.
    const twoBad = Buffer.concat([
      Buffer.from('{"inlinks":[{"from":"http://a/","anchor":"a'),
      Buffer.from([0xff]),
      Buffer.from('"},{"from":"http://b/","anchor":"a'),
      Buffer.from([0xfe]),
      Buffer.from('"}]}'),
    ]);
    expect(read(twoBad)).toEqual({ count: 2, anchors: ['a\ufffd'] });
  });

  it('groups and reduces as the Grouper does over the decoded lines', async () => {
    const { indexJob } = await import('../src/index/index-job.js');
    const lines = [
      'http://a/\t{"d":"AAAA","text":"one \\"two\\""}',
      'http://a/\t{"d":"AAAA","content":{"mime":"text/html","date":"20200101000000","file":"f","location":"l","offset":1,"length":2,"collection":"c","status":200}}',
      `http://a/\t${JSON.stringify({ d: 'AAAA', pd: { title: 'T', noindex: false, meta: { length: 3, lang: 'en' } }, seg: 's' })}`,
      'http://b/\t{"d":"BBBB","text":"caf\u00e9"}',
      'http://b/\t{"d":"BBBB","content":{"mime":"text/html","date":"20200101000000","file":"f","location":"l","offset":1,"length":2,"collection":"c","status":200}}',
      `http://b/\t${JSON.stringify({ d: 'BBBB', pd: { title: 'B', noindex: false, meta: { length: 3 } }, seg: 's' })}`,
      'http://b/\t{"inlinks":[{"from":"http://a/","anchor":"b"},{"from":"http://c/","anchor":"b"},{"from":"http://d/","anchor":""}]}',
      'http://b/\t{"inlinks":[{"from":"http://e/","anchor":"a \\"quoted\\" b"}]}',
      'http://c\u00e9/\t{"d":"CCCC","text":"\u{1F600}"}',
    ].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const reduce = (push: (g: Grouper) => void) => {
      const out: unknown[] = [];
      const g = new Grouper(indexJob, (k, v) => void out.push([k, v]), newContext({}));
      push(g);
      g.flush();
      return out;
    };
    const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
    const byBytes = reduce((g) => {
      for (let s = 0; s < bytes.length; ) {
        const nl = bytes.indexOf(0x0a, s);
        g.pushBytes(bytes, s, nl);
        s = nl + 1;
      }
    });
    // a text kept as JSON bytes compared as its text
    const { plainText } = await import('../src/util/json-bytes.js');
    const texts = (out: unknown[]) => out.map(([k, d]) => [k, { ...(d as object), text: plainText((d as { text: string }).text) }]);
    expect(texts(byBytes)).toEqual(texts(reduce((g) => lines.forEach((l) => g.push(l)))));
    expect(byBytes.length).toBe(2);
  });
});

describe('invertlinks over bytes', () => {
  const page = (key: string, outlinks: { url: string; anchor: string }[]) => `${key}\t${JSON.stringify({ outlinks })}\n`;
  const crawlParse: (string | Buffer)[] = [
    page('http://a.example/ sha1:AAAA', [
      { url: 'http://b.example/', anchor: 'home' },
      { url: 'http://a.example/', anchor: 'itself' },
      { url: 'http://a.example/x', anchor: '' },
      { url: 'http://c.example/caf\u00e9', anchor: 'caf\u00e9 \u{1F600} \u00a0' },
      { url: 'http://d.example/', anchor: '\u00e9'.repeat(60) },
      { url: 'http://e.example/', anchor: 'long '.repeat(30) },
      { url: 'http://f.example/', anchor: `${'a'.repeat(99)}\u{1F600} cut inside a pair` },
      { url: '', anchor: 'an empty URL' },
    ]),
    page('http://b.example/', [
      { url: 'http://a.example/', anchor: "a live crawl's key" },
      { url: 'http://b.example/', anchor: 'itself' },
    ]),
    page('http://q.example/"x" sha1:BBBB', [
      { url: 'http://a.example/', anchor: 'a key JSON must escape' },
      { url: 'http://q.example/"x"', anchor: 'itself, escaped' },
    ]),
    page('http://r.example/ sha1:CCCC', [{ url: 'http://a.example/', anchor: 'an anchor with "quotes"' }]),
    page('http://s.example/ sha1:DDDD', [{ url: 'http://a.example/\\', anchor: 'a URL with a backslash' }]),
    page('http://t.example/ sha1:EEEE', []),
    'http://u.example/ sha1:FFFF\t{"outlinks":[{"anchor":"fields","url":"http://a.example/"}]}\n',
    'http://v.example/ sha1:GGGG\t{"outlinks":[{"url":"http://a.example/","anchor":"x","extra":1}]}\n',
    'http://w.example/ sha1:HHHH\t{"outlinks":[{"url":"http://a.example/","anchor":"x"}],"more":1}\n',
    'http://y.example/ sha1:JJJJ\t{}\n',
    'http://z.example/ sha1:KKKK\t{"outlinks": []}\n',
    Buffer.from([...Buffer.from('http://bad.example/ sha1:LLLL\t{"outlinks":[{"url":"http://a.example/","anchor":"'), 0xff, 0xc3, ...Buffer.from('"}]}\n')]),
    '\n',
  ];
  const linkdb: (string | Buffer)[] = [
    'http://example.org/\t{"inlinks":[{"from":"http://a.example/","anchor":"home"},{"from":"http://b.example/","anchor":"caf\u00e9 \\"x\\""}]}\n',
    'http://example.org/empty\t{"inlinks":[]}\n',
    'http://example.org/other\t{"outlinks":[]}\n',
    'http://example.org/short\t{}\n',
    Buffer.from([...Buffer.from('http://example.org/bad\t{"inlinks":[{"from":"x","anchor":"'), 0xff, ...Buffer.from('"}]}\n')]),
  ];

  it('emits the bytes map emits: self-links, anchors cut by UTF-16 units, keys and strings JSON escapes, values of other shapes, the LinkDb passed on', async () => {
    const { invertlinksJob } = await import('../src/crawl/invertlinks-job.js');
    const root = join(dir, 'invertlinks');
    for (const properties of [[], ['db.max.anchor.length=5']]) {
      await expectBytesMapAsStrings(invertlinksJob, join(root, 'segments', '20200101000000', 'crawl_parse'), crawlParse, properties);
      await expectBytesMapAsStrings(invertlinksJob, join(root, 'linkdb'), linkdb, properties);
    }
    // Hosts are told apart by the URL parser: the string path takes every record.
    await expectBytesMapAsStrings(invertlinksJob, join(root, 'segments', '20200101000000', 'crawl_parse'), crawlParse, ['db.ignore.internal.links=true'], true);
  });

  it("names the file and line of a page's outlinks that are not JSON (a comma missing, a raw control character), on both paths", async () => {
    const { invertlinksJob } = await import('../src/crawl/invertlinks-job.js');
    const { mapper } = await import('../src/mapreduce/streaming.js');
    const { mapRecordsAsBytes } = await import('../src/mapreduce/record-bytes-map.js');
    const folder = join(dir, 'invertlinks-bad', 'segments', '20200101000000', 'crawl_parse');
    mkdirSync(folder, { recursive: true });
    for (const bad of [
      '{"outlinks":[{"url":"http://a.example/","anchor":"x"}{"url":"http://b.example/","anchor":"y"}]}',
      '{"outlinks":[{"url":"http://a.example/","anchor":"x\u0001y"}]}',
    ]) {
      const path = join(folder, 'part-00000');
      writeFileSync(path, `${page('http://a.example/ sha1:AAAA', [{ url: 'http://b.example/', anchor: 'fine' }])}http://b.example/ sha1:BBBB\t${bad}\n`);
      const expected = 'part-00000: line 2: not "key TAB value-json"';
      const strings = mapper(invertlinksJob, { record: () => {} }, {}, [], path);
      const lines = readFileSync(path, 'utf8').split('\n');
      expect(() => {
        for (const l of lines) strings(l);
      }, bad).toThrow(expected);
      await expect(
        mapRecordsAsBytes(invertlinksJob, { path, start: 0, end: -1 }, 2, {}, [], () => {}, mapper(invertlinksJob, { record: () => {} }, {}, [], path)),
        bad,
      ).rejects.toThrow(expected);
    }
  });

  it("joins a group's inlink lists as combine does, and leaves a group with a value of another shape to it", async () => {
    const { invertlinksJob } = await import('../src/crawl/invertlinks-job.js');
    const { emittedJson } = await import('../src/mapreduce/value-json.js');
    const viaCombine = (texts: string[]) => {
      const out: string[] = [];
      invertlinksJob.combine!('http://t.example/', texts, (_k, v) => out.push(emittedJson(v)), newContext({}));
      return out;
    };
    const groups = [
      [
        '{"inlinks":[{"from":"http://a.example/","anchor":"x"}]}',
        '{"inlinks":[]}',
        '{"inlinks":[{"from":"http://b.example/","anchor":"caf\u00e9 \\"y\\""},{"from":"c","anchor":""}]}',
      ],
      ['{"inlinks":[]}', '{"inlinks":[]}'],
      ['{"inlinks":[]}', '{"inlinks":[{"from":"d","anchor":"\u{1F600}"}]}'],
    ];
    for (const g of groups) {
      const pieces = invertlinksJob.encoding!.combineBytes!(g.map((t) => Buffer.from(t)));
      expect(pieces).toBeDefined();
      expect([Buffer.concat(pieces!.map((p) => Buffer.from(p))).toString('utf8')]).toEqual(viaCombine(g));
    }
    for (const g of [
      ['{"inlinks":[]}', '{"other":1}'],
      ['{"inlinks":[{"from":"a","anchor":"b"}]', '{"inlinks":[]}'],
      ['{"inlinks":[{"from":"a","anchor":"b"}] }'],
    ]) {
      expect(invertlinksJob.encoding!.combineBytes!(g.map((t) => Buffer.from(t))), g.join(' ')).toBeUndefined();
    }
  });

  it("reduces a group's lists as reduce does: duplicates, order, the cap, non-ASCII; leaves escapes, characters past the BMP, other shapes and invalid UTF-8 to it", async () => {
    const { invertlinksJob } = await import('../src/crawl/invertlinks-job.js');
    const { valueJson } = await import('../src/mapreduce/value-json.js');
    const rand = seededRandom(5);
    const froms = [
      'http://a.example/',
      'http://b.example/x',
      'http://a.example/\u00e9',
      'http://\uff41.example/',
      'http://a.example/~',
      'http://a.example/\ue000',
    ];
    const anchors = ['', 'home', 'caf\u00e9', '\u4e2d\u6587', 'Home', 'a b'];
    const list = (n: number) =>
      JSON.stringify({
        inlinks: Array.from({ length: n }, () => ({ from: froms[Math.floor(rand() * froms.length)], anchor: anchors[Math.floor(rand() * anchors.length)] })),
      });
    const groups: (string | Buffer)[][] = Array.from({ length: 40 }, () =>
      Array.from({ length: 1 + Math.floor(rand() * 4) }, () => list(Math.floor(rand() * 8))),
    );
    groups.push(['{"inlinks":[]}'], ['{"inlinks":[]}', '{"inlinks":[]}']);
    const declined: (string | Buffer)[][] = [
      ['{"inlinks":[{"from":"a","anchor":"say \\"x\\""}]}'],
      ['{"inlinks":[{"from":"a","anchor":"\u{1F600}"}]}', '{"inlinks":[{"from":"a","anchor":"\uffff"}]}'],
      ['{"inlinks":[{"anchor":"b","from":"a"}]}'],
      ['{"inlinks":[{"from":"a","anchor":"b","n":1}]}'],
      ['{"inlinks":[{"from":"a","anchor":"b"} ]}'],
      ['{"other":[]}'],
      [Buffer.from([...Buffer.from('{"inlinks":[{"from":"a","anchor":"'), 0xff, ...Buffer.from('"}]}')])],
    ];
    for (const max of [3, 10000]) {
      const props = [`db.max.inlinks=${max}`];
      for (const [g, bytesPath] of [...groups.map((g) => [g, true] as const), ...declined.map((g) => [g, false] as const)]) {
        const values = g.map((v) => Buffer.from(v));
        const byBytes: string[] = [];
        const c2: Counters = {};
        const took = invertlinksJob.encoding!.reduceBytes!(
          Buffer.from('k'),
          values,
          (fields) => void byBytes.push(Buffer.concat((fields[0] as Uint8Array[]).map((p) => Buffer.from(p))).toString()),
          newContext(c2, props),
        );
        expect(took, values.join(' ')).toBe(bytesPath);
        if (!took) {
          expect(byBytes).toEqual([]);
          continue;
        }
        const byStrings: string[] = [];
        const c1: Counters = {};
        invertlinksJob.reduce(
          'k',
          values.map((v) => JSON.parse(v.toString())),
          (_k, v) => void byStrings.push(valueJson(v)),
          newContext(c1, props),
        );
        expect(byBytes, values.join(' ')).toEqual(byStrings);
        expect(c2).toEqual(c1);
      }
    }
  });
});
