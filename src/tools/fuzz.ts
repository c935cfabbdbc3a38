/**
 * `npm run fuzz`: damaged copies of the fixture archives (random byte flips, truncations,
 * splices of foreign bytes, cut-outs), each indexed in a worker thread under a time limit.
 * Checks: no crash, no hang, no stack trace in any message, and every record that ends before
 * the damage still indexed, to the letter. Then the damage kit's archives (src/tools/damage-kit.ts:
 * members larger than the in-memory window with a flipped byte or a bad CRC, lengths that lie by
 * a few bytes or by megabytes, members cut short and followed by good ones, ARC lengths off by
 * N, garbage without a newline before a record): every undamaged record, before and after the
 * damage, indexed with its right digest, the damaged one skipped and reported. Seeded, so a
 * failing case can be replayed.
 *
 *   node dist/tools/fuzz.js [--cases 1000] [--kit-cases N] [--seed 1] [--timeout 10000]
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { readManifest } from './conformance-refs.js';
import { conformanceDir } from './conformance.js';
import { DAMAGE_KINDS, makeDamaged, rng, type DamagedArchive } from './damage-kit.js';

type Mutation = 'flip' | 'truncate' | 'splice' | 'cut' | 'append';

interface Case {
  id: number;
  file: string;
  mutation: Mutation;
  /** First damaged byte. */
  at: number;
  bytes: Buffer;
}

function mutate(id: number, file: string, clean: Buffer, donor: Buffer, rand: () => number): Case {
  const mutations: Mutation[] = ['flip', 'truncate', 'splice', 'cut', 'append'];
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
  } else if (mutation === 'cut') {
    bytes = Buffer.concat([clean.subarray(0, at), clean.subarray(Math.min(clean.length, at + 1 + Math.floor(rand() * 2048)))]);
  } else {
    // Bytes after the last record: a few letters, a line of garbage, NULs, or foreign bytes.
    const tails = [Buffer.from('ga'), Buffer.from('garbage\n'), Buffer.alloc(1 + Math.floor(rand() * 8)), donor.subarray(0, 1 + Math.floor(rand() * 512))];
    bytes = Buffer.concat([clean, tails[Math.floor(rand() * tails.length)]]);
    return { id, file, mutation, at: clean.length, bytes };
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

  run(bytes: Buffer, name: string, limits: { inflateMaxBuffer?: number; inflateWindow?: number } = {}): Promise<Outcome | 'hang'> {
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
      w.postMessage({ bytes, name, ...limits });
    });
  }
}

/** Hangs, crashes and stack traces counted, and every failure said once. */
class Judge {
  readonly failures: string[] = [];

  constructor(private readonly timeout: number) {}

  /** Counts a hang, a crash or a stack trace; whether there is an outcome to check further. */
  answered(o: Outcome | 'hang', tag: string, c: { hangs: number; crashes: number; stacks: number }): o is Outcome {
    if (o === 'hang') {
      c.hangs++;
      this.failures.push(`${tag}: no result in ${this.timeout} ms`);
      return false;
    }
    if (o.error) {
      c.crashes++;
      this.failures.push(`${tag}: ${o.error}`);
      return false;
    }
    if (o.messages.some((m) => /\n\s+at .*:\d+:\d+/.test(m))) {
      c.stacks++;
      this.failures.push(`${tag}: a message carries a stack trace`);
    }
    return true;
  }
}

/** Damaged copies of the fixture archives: none hangs, crashes or says a stack trace, and every record before the damage is still there. */
async function fuzzFixtures(pools: Pool[], dir: string, files: string[], cases: number, seed: number, judge: Judge) {
  const rand = rng(seed);
  const baseline = new Map<string, Outcome>();
  const counts = { cases: 0, hangs: 0, crashes: 0, stacks: 0, lost: 0, withIssues: 0, clean: 0 };
  const byMutation: Record<string, number> = {};
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
      if (!judge.answered(o, tag, counts)) continue;
      if (o.messages.length) counts.withIssues++;
      else counts.clean++;
      // Every record that ends before the damage is still there, to the letter: bytes damaged
      // right after a record (its separator, garbage appended) never change it.
      const got = new Set(o.lines);
      for (const l of baseline.get(file)!.lines) {
        const f = l.split(' ');
        const end = Number(f[9]) + Number(f[8]);
        if (end <= c.at && !got.has(l)) {
          counts.lost++;
          judge.failures.push(`${tag}: lost the record at offset ${f[9]}`);
          break;
        }
      }
    }
  };
  await Promise.all(pools.map(work));
  return { counts, byMutation, archives: baseline.size };
}

/**
 * The damage kit: each kind in turn, every undamaged record checked by URL and digest. Most
 * cases use a 1 MiB in-memory limit and 3 MiB "big" records (the streamed path, at a tenth of
 * the cost); one case in eight uses the defaults and 40 MiB records.
 */
async function fuzzKit(pools: Pool[], kitCases: number, seed: number, judge: Judge) {
  const kitRand = rng(seed + 7919);
  const kit = { cases: 0, hangs: 0, crashes: 0, stacks: 0, lost: 0, unreported: 0, wrongExit: 0 };
  const kitByKind: Record<string, number> = {};
  let nextKit = 0;
  const kitWork = async (pool: Pool) => {
    while (nextKit < kitCases) {
      const id = nextKit++;
      const kind = DAMAGE_KINDS[id % DAMAGE_KINDS.length];
      const full = id % 8 === 7;
      const a: DamagedArchive = makeDamaged(kind, kitRand, full ? {} : { bigSize: 3 << 20 });
      const limits = full ? {} : { inflateMaxBuffer: 1 << 20, inflateWindow: 256 << 10 };
      kitByKind[kind] = (kitByKind[kind] ?? 0) + 1;
      kit.cases++;
      const tag = `kit case ${id} (${kind}${full ? ', 40 MiB' : ''}, damage at ${a.at}, seed ${seed})`;
      const o = await pool.run(a.bytes, a.name, limits);
      if (!judge.answered(o, tag, kit)) continue;
      const got = new Map(
        o.lines.map((l) => {
          const f = l.split(' ');
          return [f[2], f[5]];
        }),
      );
      const lost = a.intact.filter((r) => got.get(r.url) !== r.digest);
      const leaked = a.skips ? a.damaged.filter((u) => got.has(u)) : [];
      if (lost.length || leaked.length) {
        kit.lost++;
        judge.failures.push(
          `${tag}: ${lost.length ? `lost or wrong: ${lost.map((r) => r.url).join(', ')}` : ''}${leaked.length ? ` indexed though damaged: ${leaked.join(', ')}` : ''}`,
        );
      }
      const skipped = o.messages.some((m) => /(record|bytes) skipped/.test(m));
      if (a.skips !== skipped) {
        kit.wrongExit++;
        judge.failures.push(`${tag}: ${a.skips ? 'the damage was not reported as a skip (exit 3)' : 'a record was skipped where a warning was the answer'}`);
      }
      if (!o.messages.length) {
        kit.unreported++;
        judge.failures.push(`${tag}: nothing reported`);
      }
    }
  };
  await Promise.all(pools.map(kitWork));
  return { kit, kitByKind };
}

const tally = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

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
  const files = readManifest(join(dir, 'manifest.tsv'))
    .map((r) => r.file)
    .filter((f) => statSync(join(dir, f)).size <= 1 << 20);
  const pools = [new Pool(timeout), new Pool(timeout)];
  const judge = new Judge(timeout);
  const { counts, byMutation, archives } = await fuzzFixtures(pools, dir, files, cases, seed, judge);
  const { kit, kitByKind } = await fuzzKit(pools, opt('kit-cases', Math.max(DAMAGE_KINDS.length * 2, Math.round(cases / 5))), seed, judge);
  console.log(`fuzz: ${counts.cases} damaged copies of ${archives} fixture archives (${tally(byMutation)})`);
  console.log(
    `fuzz: ${counts.withIssues} reported damage, ${counts.clean} read clean; crashes ${counts.crashes}, hangs ${counts.hangs}, stack traces ${counts.stacks}, records lost before the damage ${counts.lost}`,
  );
  console.log(`fuzz: damage kit ${kit.cases} archives (${tally(kitByKind)})`);
  console.log(
    `fuzz: damage kit: crashes ${kit.crashes}, hangs ${kit.hangs}, stack traces ${kit.stacks}, undamaged records lost or wrong ${kit.lost}, damage not reported ${kit.unreported}, wrong skip/warning ${kit.wrongExit}`,
  );
  for (const f of judge.failures.slice(0, 20)) console.log(`FAIL ${f}`);
  const failed = counts.crashes + counts.hangs + counts.stacks + counts.lost;
  const kitFailed = new Set(judge.failures.filter((f) => f.startsWith('kit case')).map((f) => f.split(':')[0])).size;
  console.log(`${counts.cases - failed + kit.cases - kitFailed} passed, ${failed + kitFailed} failed`);
  process.exit(failed + kitFailed ? 1 : 0);
}

main().catch((err) => {
  console.error(`fuzz: ${(err as Error).message}`);
  process.exit(1);
});
