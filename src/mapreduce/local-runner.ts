/**
 * The local runner: a job over input files on this machine, in bounded memory. Map output is
 * buffered per partition up to the budget (`mapreduce.task.io.sort.mb`), sorted, combined and
 * appended to the partition's spill file; each partition is then sorted with the external sort
 * (the shuffle is a sort), grouped and reduced into `part-NNNNN` of the output dataset, which
 * is written aside and put in place at the end. The partitioner is Hadoop's, so a key lands in
 * the same part here and on a cluster; `nwax job NAME map | LC_ALL=C sort | nwax job NAME
 * reduce` gives the same bytes per partition (the equivalence test proves it).
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPartition, type Counters, type Job } from './job.js';
import { mapper, reducer, combiner } from './streaming.js';
import { lineBatches } from './line-reader.js';
import { externalSort } from './external-sort.js';
import { sortByteOrder } from './byte-order.js';
import { RecordFileWriter } from './record-file.js';
import { partName, writeDataset } from './dataset.js';

export interface LocalRunOptions {
  inputs: string[];
  output: string;
  numReduces?: number;
  /** Bytes of map output buffered before a spill (default 64 MiB). */
  sortMemory?: number;
  tmpDir?: string;
  force?: boolean;
  /** Called now and then with the counters (progress). */
  onProgress?: (counters: Counters) => void;
}

export interface LocalRunResult {
  counters: Counters;
  parts: number;
}

export async function runLocal(job: Job, opts: LocalRunOptions): Promise<LocalRunResult> {
  const reduces = opts.numReduces ?? job.numReduces ?? 1;
  const budget = opts.sortMemory ?? 64 << 20;
  const partition = job.partition ?? hashPartition;
  const counters: Counters = {};
  const work = mkdtempSync(join(opts.tmpDir ?? tmpdir(), 'nwax-job-'));
  try {
    // Map: every input line through map; output held per partition, spilled sorted and combined.
    const spills = Array.from({ length: reduces }, (_, p) => join(work, `map-out-${p}`));
    let held: string[][] = spills.map(() => []);
    let used = 0;
    const spill = () => {
      held.forEach((lines, p) => {
        if (lines.length === 0) return;
        let out = sortByteOrder(lines);
        if (job.combine) {
          const combined: string[] = [];
          const c = combiner(job, (l) => combined.push(l), counters);
          for (const l of out) c.push(l);
          c.flush();
          out = combined;
        }
        appendFileSync(spills[p], `${out.join('\n')}\n`);
      });
      held = spills.map(() => []);
      used = 0;
    };
    const map = mapper(job, (line) => {
      const key = line.slice(0, line.indexOf('\t'));
      held[partition(key, reduces)].push(line);
      used += line.length + 64;
      if (used >= budget) spill();
    }, counters);
    for (const input of opts.inputs) {
      for await (const batch of lineBatches(input)) {
        for (const line of batch) map(line);
        opts.onProgress?.(counters);
      }
    }
    spill();

    // Shuffle and reduce: one sorted pass over each partition into its part.
    await writeDataset(opts.output, async (tmp) => {
      for (let p = 0; p < reduces; p++) {
        const writer = new RecordFileWriter(join(tmp, partName(p)));
        const reduce = reducer(job, (line) => {
          const tab = line.indexOf('\t');
          writer.appendLine(line.slice(0, tab), line.slice(tab + 1));
        }, counters);
        const input = existsOrEmpty(spills[p]);
        for await (const batch of externalSort(input, { memory: budget, tmpDir: work })) {
          for (const line of batch) reduce.push(line);
        }
        reduce.flush();
        writer.close();
      }
    }, { force: opts.force });
    return { counters, parts: reduces };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function* existsOrEmpty(path: string): AsyncGenerator<string[]> {
  try {
    yield* lineBatches(path);
  } catch (err) {
    if ((err as Error).message.includes('no such file')) return;
    throw err;
  }
}
