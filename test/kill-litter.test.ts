/**
 * Clean restarts (issue: hostile input and damaged archives): a command killed with SIGKILL
 * leaves temporary files named with its pid; the next run of a command removes those whose
 * process is gone, and a lock whose holder is gone no longer blocks it.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, nwax, tempDir } from './helpers.js';

const dir = tempDir();

/** 600,000 unsorted CDX-like lines (about 60 MB): enough to spill with a 1 MB budget. */
function bigInput(): string {
  const path = join(dir, 'big.cdx');
  if (existsSync(path)) return path;
  const lines: string[] = [];
  for (let i = 0; i < 600_000; i++)
    lines.push(`com,example,h${(i * 7919) % 600_000})/p 20200101000000 http://h.example.com/p text/html 200 AAAA - - 1 ${i} f.warc.gz`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** Starts `nwax ARGS`, waits until `ready()` holds, SIGKILLs it; returns its pid. */
async function killWhen(args: string[], env: Record<string, string>, ready: () => boolean): Promise<number> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: 'ignore', env: { ...process.env, ...env } });
  const exited = new Promise<string | null>((r) => child.once('exit', (_c, sig) => r(sig)));
  for (let i = 0; i < 3000 && !ready(); i++) await new Promise((r) => setTimeout(r, 5));
  child.kill('SIGKILL');
  expect(await exited, 'the command ended before it could be killed').toBe('SIGKILL');
  return child.pid!;
}

describe('after a kill, the next run cleans up', () => {
  it('sort-cdx: the spills and the output written aside are removed by the next sort (defect 10)', async () => {
    const input = bigInput();
    // Spills go next to the output (nwax.sort.tmpdir empty).
    const where = join(dir, 'sort-out');
    mkdirSync(where, { recursive: true });
    const out = join(where, 'sorted.cdx');
    const pid = await killWhen(['sort-cdx', '--memory', '1M', '-o', out, input], {}, () => readdirSync(where).some((n) => n.startsWith('.nwax-sort-')));
    const left = readdirSync(where);
    expect(left.filter((n) => n.startsWith(`.nwax-sort-${pid}-`))).toHaveLength(1);
    expect(left).toContain(`sorted.cdx.tmp-${pid}`);
    // A small sort to the same output removes what the killed one left.
    const small = join(dir, 'small.cdx');
    writeFileSync(small, 'b\na\n');
    const r = await nwax(['sort-cdx', '--memory', '1M', '-o', out, small]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(where)).toEqual(['sorted.cdx']);
  }, 60_000);

  it('a job: its nwax-job temp folder and its lock no longer stand in the way (defect 10)', async () => {
    const input = bigInput();
    const tmp = join(dir, 'tmp-job');
    mkdirSync(tmp, { recursive: true });
    const out = join(dir, 'counts');
    const args = ['job', 'cdx-url-count', 'run', '-o', out, '--memory', '1M', input];
    const pid = await killWhen(args, { TMPDIR: tmp }, () => readdirSync(tmp).some((n) => n.startsWith('nwax-job-')) && existsSync(`${out}.locked`));
    expect(readdirSync(tmp).some((n) => n.startsWith(`nwax-job-${pid}-`))).toBe(true);
    const r = await nwax(['job', 'cdx-url-count', 'run', '-o', out, '--memory', '1M', input], { env: { TMPDIR: tmp } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/took over the lock left by process \d+, which is gone/);
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(dir).filter((n) => n.includes(`${pid}`))).toEqual([]);
  }, 120_000);
});
