/**
 * `npm run fuzz`: damaged copies of the fixture archives (random byte flips, truncations,
 * splices of foreign bytes, cut-outs), each indexed in a worker thread under a time limit.
 * Checks: no crash, no hang, no stack trace in any message, and every record that ends before
 * the damage still indexed, to the letter. Seeded, so a failing case can be replayed.
 *
 *   node dist/tools/fuzz.js [--cases 1000] [--seed 1] [--timeout 10000]
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { readManifest } from './conformance-refs.js';
import { conformanceDir } from './conformance.js';

type Mutation = 'flip' | 'truncate' | 'splice' | 'cut';

interface Case {
  id: number;
  file: string;
  mutation: Mutation;
  /** First damaged byte. */
  at: number;
  bytes: Buffer;
}

/** mulberry32: small, seedable. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(id: number, file: string, clean: Buffer, donor: Buffer, rand: () => number): Case {
  const mutations: Mutation[] = ['flip', 'truncate', 'splice', 'cut'];
  const mutation = mutations[Math.floor(rand() * mutations.length)];
  const at = Math.floor(rand() * clean.length);
  let bytes: Buffer;
  if (mutation === 'flip') {
    bytes = Buffer.from(clean);
    const n = 1 + Math.floor(rand() * 16);
    for (let i = 0; i < n; i++) {
      const p = Math.min(clean.length - 1, at + Math.floor(rand() * 64));
      bytes[p] ^= 1 + Math.floor(rand() * 255);
    }
  } else if (mutation === 'truncate') {
    bytes = clean.subarray(0, at);
  } else if (mutation === 'splice') {
    const from = Math.floor(rand() * donor.length);
    bytes = Buffer.concat([clean.subarray(0, at), donor.subarray(from, from + 1 + Math.floor(rand() * 4096)), clean.subarray(at)]);
  } else {
    bytes = Buffer.concat([clean.subarray(0, at), clean.subarray(Math.min(clean.length, at + 1 + Math.floor(rand() * 2048)))]);
  }
  return { id, file, mutation, at, bytes };
}

interface Outcome {
  lines: string[];
  messages: string[];
  error?: string;
}

class Pool {
  private worker: Worker | undefined;
  constructor(private readonly timeout: number) {}

  private spawn(): Worker {
    this.worker = new Worker(new URL('./fuzz-worker.js', import.meta.url));
    this.worker.unref();
    return this.worker;
  }

  run(bytes: Buffer, name: string): Promise<Outcome | 'hang'> {
    const w = this.worker ?? this.spawn();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        w.removeAllListeners('message');
        void w.terminate();
        this.worker = undefined;
        resolve('hang');
      }, this.timeout);
      w.once('message', (o: Outcome) => {
        clearTimeout(timer);
        resolve(o);
      });
      w.postMessage({ bytes, name });
    });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string, d: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : d;
  };
  const cases = opt('cases', 1000);
  const seed = opt('seed', 1);
  const timeout = opt('timeout', 10000);
  const dir = conformanceDir();
  const files = readManifest(join(dir, 'manifest.tsv')).map((r) => r.file).filter((f) => statSync(join(dir, f)).size <= 1 << 20);
  const rand = rng(seed);
  const pools = [new Pool(timeout), new Pool(timeout)];
  const baseline = new Map<string, Outcome>();
  const counts = { cases: 0, hangs: 0, crashes: 0, stacks: 0, lost: 0, withIssues: 0, clean: 0 };
  const byMutation: Record<string, number> = {};
  const failures: string[] = [];
  let next = 0;

  const work = async (pool: Pool) => {
    while (next < cases) {
      const id = next++;
      const file = files[Math.floor(rand() * files.length)];
      const clean = readFileSync(join(dir, file));
      const donor = readFileSync(join(dir, files[Math.floor(rand() * files.length)]));
      if (!baseline.has(file)) {
        const b = await pool.run(clean, file);
        if (b === 'hang') throw new Error(`${file}: the clean file hangs`);
        baseline.set(file, b);
      }
      const c = mutate(id, file, clean, donor, rand);
      byMutation[c.mutation] = (byMutation[c.mutation] ?? 0) + 1;
      counts.cases++;
      const o = await pool.run(c.bytes, file);
      const tag = `case ${id} (${c.mutation} at ${c.at} of ${file}, seed ${seed})`;
      if (o === 'hang') {
        counts.hangs++;
        failures.push(`${tag}: no result in ${timeout} ms`);
        continue;
      }
      if (o.error) {
        counts.crashes++;
        failures.push(`${tag}: ${o.error}`);
        continue;
      }
      if (o.messages.some((m) => /\n\s+at .*:\d+:\d+/.test(m))) {
        counts.stacks++;
        failures.push(`${tag}: a message carries a stack trace`);
      }
      if (o.messages.length) counts.withIssues++;
      else counts.clean++;
      // Every record that ends before the damage is still there, to the letter.
      const plain = !file.endsWith('.gz') && !file.endsWith('.bad');
      const got = new Set(o.lines);
      for (const l of baseline.get(file)!.lines) {
        const f = l.split(' ');
        const end = Number(f[9]) + Number(f[8]) + (plain ? 4 : 0);
        if (end <= c.at && !got.has(l)) {
          counts.lost++;
          failures.push(`${tag}: lost the record at offset ${f[9]}`);
          break;
        }
      }
    }
  };
  await Promise.all(pools.map(work));
  console.log(`fuzz: ${counts.cases} damaged copies of ${baseline.size} fixture archives (${Object.entries(byMutation).map(([k, v]) => `${k} ${v}`).join(', ')})`);
  console.log(`fuzz: ${counts.withIssues} reported damage, ${counts.clean} read clean; crashes ${counts.crashes}, hangs ${counts.hangs}, stack traces ${counts.stacks}, records lost before the damage ${counts.lost}`);
  for (const f of failures.slice(0, 20)) console.log(`FAIL ${f}`);
  const failed = counts.crashes + counts.hangs + counts.stacks + counts.lost;
  console.log(`${counts.cases - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(`fuzz: ${(err as Error).message}`);
  process.exit(1);
});
