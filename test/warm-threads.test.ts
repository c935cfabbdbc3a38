/**
 * Task threads started ahead of their job (task-threads.ts's warmTaskThreads): a job that takes
 * them writes what it writes on threads of its own, a job with other settings leaves them, and
 * threads no job takes do not keep the process alive.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runLocal } from '../src/mapreduce/local-runner.js';
import { warmTaskThreads } from '../src/mapreduce/task-threads.js';
import { findJob } from '../src/jobs/registry.js';
import { ROOT, partRecords, seededRandom, tempDir } from './helpers.js';

// A task thread runs the built modules (the tests' build is `npm run build`, before them).
const TASK_WORKER = pathToFileURL(join(ROOT, 'dist', 'jobs', 'task-worker.js'));

/** CDX lines of 300 URLs, some captured many times: cdx-url-count's input. */
function writeCdx(path: string): void {
  const random = seededRandom(7);
  const lines: string[] = [];
  for (let i = 0; i < 6000; i++) {
    const n = Math.floor(random() ** 2 * 300);
    lines.push(
      `org,example)/page/${n} 2020${String(1 + (i % 12)).padStart(2, '0')}01000000 http://example.org/page/${n} text/html 200 SHA${n} - - 1000 ${i * 1000} a.warc.gz`,
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

async function runCount(input: string, output: string, sortMemory: number) {
  const job = (await findJob('cdx-url-count'))!;
  return runLocal(job, { inputs: [input], output, numReduces: 2, threads: 2, sortMemory, taskWorker: TASK_WORKER, splitMin: 64 << 10, splitMax: 64 << 10 });
}

function parts(dir: string): [string, unknown][][] {
  return readdirSync(dir)
    .filter((f) => /^part-\d{5}/.test(f))
    .sort()
    .map((f) => partRecords(join(dir, f)));
}

describe('task threads started ahead of their job', () => {
  /** The job's run on threads of its own, then again after warmTaskThreads started `count` threads for a budget of `warmMemory`. */
  async function ownAndWarmed(warmMemory: number, count = 2) {
    const dir = tempDir();
    const input = join(dir, 'in.cdx');
    writeCdx(input);
    const own = await runCount(input, join(dir, 'own'), 1 << 20);
    expect(warmTaskThreads(TASK_WORKER, 'cdx-url-count', 2, warmMemory, count)).toBe(count);
    const warmed = await runCount(input, join(dir, 'warmed'), 1 << 20);
    expect(own.mapTasks).toBeGreaterThan(2);
    expect(parts(join(dir, 'own')).flat().length).toBe(own.counters['reduce output records']);
    return { own, warmed, ownParts: parts(join(dir, 'own')), warmedParts: parts(join(dir, 'warmed')) };
  }

  it('are taken by the job they were started for, which writes what it writes on threads of its own', async () => {
    const r = await ownAndWarmed(1 << 20);
    expect(r.warmed.counters).toEqual(r.own.counters);
    expect(r.warmedParts).toEqual(r.ownParts);
  });

  it('may be fewer than the job uses: it starts the others itself', async () => {
    const r = await ownAndWarmed(1 << 20, 1);
    expect(r.warmed.counters).toEqual(r.own.counters);
    expect(r.warmedParts).toEqual(r.ownParts);
  });

  it('are left when the job runs with other settings, which runs as it would without them', async () => {
    // Another budget: another heap limit than the job's threads need.
    const r = await ownAndWarmed(2048 << 20);
    expect(r.warmed.counters).toEqual(r.own.counters);
    expect(r.warmedParts).toEqual(r.ownParts);
  });

  it('do not keep the process alive when no job takes them', () => {
    const script = [
      `import { warmTaskThreads } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'mapreduce', 'task-threads.js')).href)};`,
      `warmTaskThreads(new URL(${JSON.stringify(TASK_WORKER.href)}), 'import', 2, 64 << 20);`,
      'console.log("planned");',
    ].join('\n');
    // A file, not `node -e`: an evaluated script's process ends when the script does.
    const file = join(tempDir(), 'warm.mjs');
    writeFileSync(file, script);
    const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 });
    expect(r.error).toBeUndefined();
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('planned');
  });
});
