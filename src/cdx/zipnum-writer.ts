/**
 * `nwax zipnum build`: a sorted CDX into a ZipNum cluster in the layout pywb and OpenWayback
 * read: part files of gzip blocks (`part-00000.cdx.gz`, ...), the summary index
 * (`NAME.idx`: `urlkey timestamp TAB part TAB offset TAB length TAB block number`, one line
 * per block, block numbers running on across parts as pywb's page counts expect) and the
 * location file (`NAME.loc`: `part TAB path`, relative to the cluster).
 *
 * Large inputs become several shards written in parallel, one per core: the split points are
 * found by seeking to evenly spaced bytes of the sorted input and moving to the next line
 * (the sorted-input case of webarchive-indexing's sampled splits); a gzipped input is one
 * shard. The cluster is written beside the target and swapped in whole at the end.
 */
import { Worker } from 'node:worker_threads';
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { writeShard, type ShardResult, type ShardTask } from './zipnum-shard.js';
import { isGzip } from '../mapreduce/splits.js';
import { InputError, NwaxError, describeFsError } from '../util/errors.js';
import { sweepDead } from '../util/litter.js';

export interface ZipnumBuildOptions {
  /** Lines per gzip block (nwax.zipnum.lines, default 3000). */
  linesPerBlock: number;
  /** Shards (part files); 0: one per `shardSize` bytes of input. */
  shards: number;
  shardSize: number;
  /** Name of the .idx and .loc files. */
  name: string;
  level?: number;
}

export interface ZipnumBuildResult {
  lines: number;
  blocks: number;
  shards: number;
  inputBytes: number;
  clusterBytes: number;
}

/** The byte after the first newline at or after `at` (a line start), or `size`. */
function nextLineStart(fd: number, at: number, size: number): number {
  const buf = Buffer.allocUnsafe(64 * 1024);
  for (let pos = at; pos < size; ) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) break;
    const nl = buf.subarray(0, n).indexOf(0x0a);
    if (nl >= 0) return pos + nl + 1;
    pos += n;
  }
  return size;
}

/** Split points of a sorted plain file: `n` ranges starting at line starts. */
export function splitPoints(path: string, size: number, n: number): [number, number][] {
  const fd = openSync(path, 'r');
  try {
    const starts = [0];
    for (let i = 1; i < n; i++) {
      const s = nextLineStart(fd, Math.floor((size * i) / n) - 1, size);
      if (s > starts[starts.length - 1] && s < size) starts.push(s);
    }
    return starts.map((s, i) => [s, i + 1 < starts.length ? starts[i + 1] : size]);
  } finally {
    closeSync(fd);
  }
}

function runShard(task: ShardTask, inWorker: boolean): Promise<ShardResult> {
  if (!inWorker) return writeShard(task);
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./zipnum-worker.js', import.meta.url), { workerData: task });
    w.once('message', (m: { ok: boolean; result: ShardResult; message: string; code?: string }) => {
      void w.terminate();
      if (m.ok) resolve(m.result);
      else reject(m.code === 'NWAX_INPUT' ? new InputError(m.message) : new NwaxError(m.code ?? 'NWAX_FORMAT', m.message));
    });
    w.once('error', reject);
  });
}

export async function buildZipnum(input: string, outDir: string, o: ZipnumBuildOptions): Promise<ZipnumBuildResult> {
  let size: number;
  try {
    const st = statSync(input);
    if (!st.isFile()) throw new InputError(`${input}: not a file; zipnum build takes one sorted CDX file`);
    size = st.size;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(describeFsError(input, err as NodeJS.ErrnoException));
  }
  const gzip = size >= 2 && isGzip(input);
  const wanted = gzip ? 1 : o.shards > 0 ? o.shards : Math.max(1, Math.ceil(size / o.shardSize));
  const ranges = gzip ? [[0, size] as [number, number]] : splitPoints(input, size, wanted);
  sweepDead(dirname(resolve(outDir)), `.${basename(outDir)}.tmp-`);
  const tmp = join(dirname(outDir), `.${basename(outDir)}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const parts = ranges.map((_, i) => `part-${String(i).padStart(5, '0')}`);
    const tasks: ShardTask[] = ranges.map(([start, end], i) => ({
      input,
      start,
      end,
      gzip,
      firstLine: 0,
      out: join(tmp, `${parts[i]}.cdx.gz`),
      linesPerBlock: o.linesPerBlock,
      level: o.level ?? 6,
    }));
    // Shards on the cores, a few at a time.
    const results: ShardResult[] = new Array(tasks.length);
    const threads = Math.min(tasks.length, availableParallelism());
    let next = 0;
    await Promise.all(
      Array.from({ length: threads }, async () => {
        while (next < tasks.length) {
          const i = next++;
          results[i] = await runShard(tasks[i], tasks.length > 1);
        }
      }),
    );
    // Each shard checked its own order; the seams between them are checked here.
    for (let i = 1; i < results.length; i++) {
      const a = results[i - 1].last;
      const b = results[i].first;
      if (a !== undefined && b !== undefined && Buffer.compare(Buffer.from(a), Buffer.from(b)) > 0) {
        throw new NwaxError(
          'NWAX_FORMAT',
          `${input}: not sorted near byte ${ranges[i][0]} ("${b.slice(0, 80)}" after "${a.slice(0, 80)}"); sort with LC_ALL=C sort or nwax sort-cdx first`,
        );
      }
    }
    const idx: string[] = [];
    let block = 0;
    let clusterBytes = 0;
    results.forEach((r, i) => {
      for (const [key, off, len] of r.blocks) idx.push(`${key}\t${parts[i]}\t${off}\t${len}\t${++block}`);
      clusterBytes += r.blocks.reduce((s, b) => s + b[2], 0);
    });
    if (block === 0) throw new InputError(`${input}: no CDX lines to write`);
    writeFileSync(join(tmp, `${o.name}.idx`), `${idx.join('\n')}\n`);
    writeFileSync(join(tmp, `${o.name}.loc`), parts.map((p) => `${p}\t${p}.cdx.gz\n`).join(''));
    // Swap the new cluster in whole: a reader sees the old one or the new one.
    if (existsSync(outDir)) {
      const old = `${tmp}.old`;
      renameSync(outDir, old);
      renameSync(tmp, outDir);
      rmSync(old, { recursive: true, force: true });
    } else {
      mkdirSync(dirname(outDir), { recursive: true });
      renameSync(tmp, outDir);
    }
    return { lines: results.reduce((s, r) => s + r.lines, 0), blocks: block, shards: parts.length, inputBytes: size, clusterBytes };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
