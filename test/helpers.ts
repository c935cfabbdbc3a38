/** Shared by the tests: run the real `nwax` CLI, find the shared fixtures, make temp dirs. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll } from 'vitest';

export const ROOT = resolve(__dirname, '..');
export const BIN = join(ROOT, 'bin', 'run.js');
export const FIXTURES = resolve(process.env.NWAX_CONFORMANCE_DIR ?? join(ROOT, '..', 'shared', 'fixtures'));
export const SPEC = resolve(FIXTURES, '..', 'spec');
export const HAVE_FIXTURES = existsSync(join(FIXTURES, 'manifest.tsv'));

if (!HAVE_FIXTURES) {
  if (process.env.CI === 'true') throw new Error(`conformance fixtures missing at ${FIXTURES}: under CI this is a failure`);
  console.warn(`fixtures not found at ${FIXTURES}: tests that read them are skipped (set NWAX_CONFORMANCE_DIR)`);
}

export function fixture(rel: string): string {
  return join(FIXTURES, rel);
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function nwax(args: string[], opts: { input?: Buffer | string; cwd?: string; env?: Record<string, string> } = {}): RunResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: opts.input,
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    maxBuffer: 256 << 20,
  });
  return { code: r.status ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/** A temp dir removed after the file's tests. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nwax-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function dataLines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '' && !l.startsWith(' CDX'));
}
