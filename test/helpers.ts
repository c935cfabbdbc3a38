/** Shared by the tests: run the real `nwax` CLI, find the shared fixtures, make temp dirs. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll } from 'vitest';
import { readArchive } from '../src/archive/reader.js';
import type { ArchiveRecord } from '../src/archive/record.js';

export const ROOT = resolve(__dirname, '..');
export const BIN = join(ROOT, 'bin', 'run.js');
export const FIXTURES = resolve(process.env.NWAX_CONFORMANCE_DIR ?? join(ROOT, '..', 'shared', 'fixtures'));
/** The steering folder's spec (the worked example as first written); its facts are the project's own in dedup-example.ts. */
export const SPEC = resolve(FIXTURES, '..', 'spec');
export const HAVE_FIXTURES = existsSync(join(FIXTURES, 'manifest.tsv'));
export const HAVE_SPEC = existsSync(join(SPEC, 'dedup-example', 'expected.dup'));

// The third-party archives are never copied into the project: a clone alone skips the tests that
// read them (global-setup.ts says so once per run), and CI, which always has them beside the
// clone, fails without them.
if (!HAVE_FIXTURES && process.env.CI === 'true') throw new Error(`conformance fixtures missing at ${FIXTURES}: under CI this is a failure`);

/** A seeded generator (mulberry32): the same generated cases on every run. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every record of every archive the shared fixtures list that can be opened, file by file, with its file's path. */
export async function* fixtureRecords(): AsyncGenerator<{ file: string; record: ArchiveRecord }> {
  const files = readFileSync(fixture('manifest.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t')[0]);
  for (const file of files) {
    let reader;
    try {
      reader = await readArchive(fixture(file), { strict: false });
    } catch {
      continue;
    }
    try {
      for await (const record of reader) yield { file: fixture(file), record };
    } finally {
      reader.source.close();
    }
  }
}

export function fixture(rel: string): string {
  return join(FIXTURES, rel);
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end without blocking this process: a test file waiting synchronously on
 * a long child starves vitest's worker RPC ("Timeout calling onTaskUpdate") when files run side
 * by side.
 */
export function run(
  command: string,
  args: string[],
  opts: { input?: Buffer | string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult & { out: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    // A command that exits before reading all of its input closes the pipe: not this test's error.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input);
    child.once('error', reject);
    child.once('close', (code) => {
      const stdout = Buffer.concat(out);
      resolve({ code: code ?? -1, out: stdout, stdout: stdout.toString(), stderr: Buffer.concat(err).toString() });
    });
  });
}

/** The built `nwax` CLI, run to its end; `env` adds to this process's environment. */
export function nwax(args: string[], opts: { input?: Buffer | string; cwd?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
  return run(process.execPath, [BIN, ...args], { input: opts.input, cwd: opts.cwd, env: { ...process.env, ...opts.env } });
}

/**
 * The temp dirs this test file made, removed after its tests. One hook, registered when the
 * file imports this module: a hook registered by tempDir() itself would be lost when a test
 * body calls it (vitest takes hooks while it collects, not while a test runs), and those dirs
 * were left behind in /tmp, a hundred a run.
 */
const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp dir removed after the file's tests. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nwax-test-'));
  made.push(dir);
  return dir;
}

export function dataLines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '' && !l.startsWith(' CDX'));
}

/** The built `nwax` CLI, run to its end; `env`, when given, is its whole environment. */
export function nwaxAsync(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return run(process.execPath, [BIN, ...args], opts);
}

/** The records of a sorted record file part (its blocks are gzip members), as [key, value] pairs. */
export function partRecords(part: string): [string, unknown][] {
  const bytes = readFileSync(part);
  const text = bytes.length ? gunzipSync(bytes).toString('utf8') : '';
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const tab = l.indexOf('\t');
      return [l.slice(0, tab), JSON.parse(l.slice(tab + 1))];
    });
}

/** Every record of one dataset of a segment (all its parts). */
export function segmentRecords(segment: string, name: string): Map<string, unknown> {
  const dir = join(segment, name);
  const out = new Map<string, unknown>();
  for (const f of readdirSync(dir)
    .filter((n) => /^part-\d{5}\.gz$/.test(n))
    .sort())
    for (const [k, v] of partRecords(join(dir, f))) out.set(k, v);
  return out;
}

/**
 * Lets the test worker's event loop run (vitest's RPC to the main process answers within 60 s,
 * and a test that runs the CLI synchronously for longer than that starves it). Tests that run
 * many synchronous steps await this between them.
 */
export function breathe(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `nwax serve ARGS` as a child process; resolves once it says where it listens. */
export function serveCli(args: string[]): Promise<{ url: string; close(): Promise<void>; stderr(): string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(err);
      if (m)
        resolve({
          url: m[1],
          close: () =>
            new Promise<void>((ok) => {
              child.once('exit', () => ok());
              child.kill('SIGTERM');
            }),
          stderr: () => err,
        });
    });
    child.once('exit', (code) => reject(new Error(`nwax serve exited ${code}: ${err}`)));
  });
}

/** Strings that JSON escapes in every way it does: controls, quotes, backslashes, lone and paired surrogates, at either end and amid runs. */
export function awkwardStrings(): string[] {
  const specials = [
    '"',
    '\\',
    '\u0000',
    '\b',
    '\t',
    '\n',
    '\u000b',
    '\f',
    '\r',
    '\u001f',
    '\u007f',
    '\u0080',
    '\u00e9',
    '\u07ff',
    '\u0800',
    '\u2028',
    '\u2029',
    '\ufeff',
    '\uffff',
    '\ud800',
    '\udbff',
    '\udc00',
    '\udfff',
    '\ud83d\ude00',
    '\ud800\ud800',
    '\udc00\ud800',
    'a',
    ' ',
    '~',
  ];
  const out = ['', 'plain ASCII text', ...specials, ...specials.map((c) => `${c}${'x'.repeat(40)}${c}`)];
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 2000; i++) {
    let s = '';
    for (let j = rand(60); j > 0; j--)
      s += rand(3) === 0 ? specials[rand(specials.length)] : rand(4) === 0 ? String.fromCharCode(rand(0x10000)) : 'word '.slice(0, 1 + rand(5));
    out.push(s);
  }
  return out;
}

/**
 * A served collection made from one WARC as a user would make it: `import` into a segment of
 * `crawl`, `index`, and a sorted CDX of the WARC at `cdx` (for /cdx and replay). Each step must
 * succeed; its stderr is the message where one does not.
 */
export async function indexedCollection(warc: string, crawl: string, cdx: string, opts: { links?: boolean } = {}): Promise<void> {
  const dir = dirname(cdx);
  writeFileSync(join(dir, 'manifest'), `${warc} web\n`);
  const seg = join(crawl, 'segments', '20200101000000');
  for (const step of [
    ['import', join(dir, 'manifest'), seg],
    // The pages' anchors and images' words (the LinkDb), where asked for.
    ...(opts.links ? [['invertlinks', join(crawl, 'linkdb'), seg]] : []),
    ['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg],
    ['cdx', '-o', `${cdx}.unsorted`, warc],
    ['sort-cdx', '-o', cdx, `${cdx}.unsorted`],
  ]) {
    const r = await nwaxAsync(step);
    if (r.code !== 0) throw new Error(`nwax ${step.join(' ')}: exit ${r.code}: ${r.stderr}`);
  }
}
