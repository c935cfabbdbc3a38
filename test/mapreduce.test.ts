import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashPartition } from '../src/mapreduce/job.js';
import { JOBS } from '../src/jobs/index.js';
import { HAVE_FIXTURES, fixture, nwax, tempDir } from './helpers.js';

/** Hadoop's Text.hashCode (WritableComparator.hashBytes) written out with BigInt, independently. */
function javaTextHash(key: string): bigint {
  let h = 1n;
  for (const b of Buffer.from(key, 'utf8')) {
    const signed = BigInt(b > 127 ? b - 256 : b);
    h = BigInt.asIntN(32, 31n * h + signed);
  }
  return h;
}

describe('the partitioner', () => {
  it("is Hadoop's HashPartitioner over the key's UTF-8 bytes", () => {
    expect(javaTextHash('hello')).toBe(127791473n);
    for (const key of ['hello', 'org,example)/index.html', 'é', 'org,example)/caf\u00e9?q=\u{1F600}', '']) {
      for (const n of [1, 3, 7, 100]) {
        expect(hashPartition(key, n)).toBe(Number((javaTextHash(key) & 0x7fffffffn) % BigInt(n)));
      }
    }
  });
});

describe.skipIf(!HAVE_FIXTURES)('local runner and Hadoop Streaming give the same bytes', () => {
  const dir = tempDir();
  const input = join(dir, 'input.cdx');
  const cdx = ['pywb/iana.warc.gz', 'wget/crawl1.warc.gz', 'wget/crawl2.warc.gz', 'warcio/example.warc'].map(fixture);
  writeFileSync(input, nwax(['cdx', '-q', ...cdx]).stdout);
  const sh = (script: string, stdin?: string) => {
    const r = spawnSync('bash', ['-c', script], { input: stdin, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`${script}: ${r.stderr}`);
    return r.stdout.toString();
  };
  const bin = join(__dirname, '..', 'bin', 'run.js');

  it.each(Object.keys(JOBS))('%s: every part equals map | LC_ALL=C sort | reduce of its partition', (name) => {
    const reduces = 3;
    const out = join(dir, `out-${name}`);
    const run = nwax(['job', name, 'run', '-o', out, '--reduces', String(reduces), '--memory', '8K', input]);
    expect(run.code, run.stderr).toBe(0);
    const mapped = sh(`node ${bin} job ${name} map < ${input}`).split('\n').filter(Boolean);
    expect(mapped.length).toBeGreaterThan(500);
    let total = 0;
    for (let p = 0; p < reduces; p++) {
      const mine = mapped.filter((l) => hashPartition(l.slice(0, l.indexOf('\t')), reduces) === p);
      const streamed = sh(`sort | node ${bin} job ${name} reduce`, mine.length ? `${mine.join('\n')}\n` : '');
      const local = sh(`zcat ${join(out, `part-0000${p}`)}`);
      expect(local).toBe(streamed);
      total += local.split('\n').filter(Boolean).length;
    }
    expect(total).toBeGreaterThan(300);
    expect(readFileSync(join(out, '_SUCCESS'), 'utf8')).toBe('');
  });

  it('lists the jobs and prints a Hadoop Streaming command with generic options first', () => {
    expect(nwax(['job', '--list']).stdout).toContain('cdx-url-count');
    const cmd = nwax(['job', 'cdx-url-count', 'run', '--engine', 'hadoop', '--reduces', '4', '-o', '/out', '/in/a', '/in/b']).stdout.trim();
    expect(cmd).toMatch(/^hadoop jar \S+hadoop-streaming\S*\.jar -D mapreduce\.job\.name=nwax-cdx-url-count -D mapreduce\.job\.reduces=4 (-files \S+ )?-input \/in\/a -input \/in\/b -output \/out -mapper 'nwax job cdx-url-count map' -combiner 'nwax job cdx-url-count combine' -reducer 'nwax job cdx-url-count reduce'$/);
    const bad = nwax(['job', 'no-such-job', 'run', '-o', '/x', '/y']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no job named no-such-job/);
  });
});
