// Shared by the benchmarks: time a command (wall seconds and peak RSS through GNU time), take
// medians, print aligned tables.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const NWAX = join(ROOT, 'bin', 'run.js');
export const CORPUS_DIR = process.env.NWAX_BENCH_DIR ?? '/tmp/nwax-bench';

/** Runs `bash -c script` under /usr/bin/time; returns { seconds, rssMB }. */
export function timeShell(script) {
  if (!existsSync('/usr/bin/time')) throw new Error('GNU time (/usr/bin/time) is needed: apt-get install time');
  const dir = mkdtempSync(join(tmpdir(), 'nwax-bench-'));
  const out = join(dir, 't');
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', '-o', out, 'bash', '-c', script], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  if (r.status !== 0 && r.status !== 3) throw new Error(`failed (${r.status}): ${script}\n${r.stderr}`);
  const [seconds, kb] = readFileSync(out, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  rmSync(dir, { recursive: true, force: true });
  return { seconds, rssMB: kb / 1024 };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Runs each named script `runs` times, interleaved, and returns medians. */
export function measure(scripts, runs) {
  const samples = Object.fromEntries(Object.keys(scripts).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, script] of Object.entries(scripts)) {
      const t = timeShell(script);
      samples[name].push(t);
      process.stderr.write(`  run ${i + 1}/${runs} ${name}: ${t.seconds.toFixed(2)} s, ${t.rssMB.toFixed(0)} MB\n`);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [
      k,
      {
        seconds: median(v.map((x) => x.seconds)),
        rssMB: median(v.map((x) => x.rssMB)),
        all: v.map((x) => x.seconds),
      },
    ]),
  );
}

export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  ')).join('\n');
}

export const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `nwax serve ARGS` as its own process (the nwax at `bin`); resolves with its URL once it listens, and its process. */
export function startServe(args, bin = NWAX) {
  const server = spawn('node', [bin, 'serve', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    server.stderr.on('data', (d) => {
      err += d;
      const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(err);
      if (m)
        resolve({
          url: m[1],
          server,
          stop: () =>
            new Promise((ok) => {
              server.once('exit', ok);
              server.kill('SIGTERM');
            }),
        });
    });
    server.once('exit', (code) => reject(new Error(`nwax serve exited ${code}: ${err}`)));
  });
}

/**
 * Whether a built index can be reused: it exists and has the schema and analyzer this nwax
 * reads (a bench's index left by an older version is rebuilt, not a crash).
 */
export async function indexIsCurrent(path, root = ROOT) {
  if (!existsSync(path)) return false;
  const { openIndex, SCHEMA_VERSION } = await import(join(root, 'dist', 'index', 'schema.js'));
  try {
    const { db, info } = openIndex(path);
    db.close();
    // An index of an older version is still read, but a benchmark measures the current one.
    return info.version === SCHEMA_VERSION;
  } catch {
    return false;
  }
}
