/**
 * Where CDX lines are looked up: a ZipNum cluster, a sorted CDX file (plain, searched by
 * seeking; gzipped, scanned), or a directory of either, merged into one ordered stream of
 * lines, each with the legend of the file it came from.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ZipnumCluster } from './zipnum-reader.js';
import { SortedCdxFile } from './sorted-cdx.js';
import { CdxLineReader } from './cdx-reader.js';
import { InputError, describeFsError } from '../util/errors.js';

/** Every data line: ' CDX' legends and '!' header lines sort before '"'. */
export const ALL_KEYS = { startKey: '"', endKey: '\uffff' } as const;

export interface CdxSource {
  readonly name: string;
  /** Parses this source's lines (its legend taken in). */
  readonly reader: CdxLineReader;
  lines(startKey: string, endKey: string): AsyncIterable<string>;
  /** The blocks /cdx pages count (cdx-pages.ts): a cluster's, or a flat file's byte blocks; none for a gzipped file. */
  readonly blocks?: PagedBlocks;
}

/** A source read by blocks: which blocks a key range spans, and the range's lines in some of them. */
export interface PagedBlocks {
  span(startKey: string, endKey: string): { first: number; last: number } | undefined;
  lines(from: number, to: number, startKey: string, endKey: string): AsyncIterable<string>;
}

export interface CdxSourceOptions {
  /** Bytes of a flat file's block, for paging (nwax.cdx.flat.block.size). */
  flatBlockBytes?: number;
}

/** A flat file's blocks for paging: as many bytes as a ZipNum block of 3000 lines holds, about. */
export const FLAT_BLOCK_BYTES = 1 << 20;

function readerFor(legend: string | undefined): CdxLineReader {
  const r = new CdxLineReader();
  if (legend) r.parse(legend);
  return r;
}

const CDX_FILE = /\.(cdx|cdxj|cdx11|cdx9)(\.gz)?$/i;

/** Opens what a path names: cluster, file, or a directory of them (not recursive). */
export function openCdxSources(path: string, opts: CdxSourceOptions = {}): CdxSource[] {
  if (ZipnumCluster.isCluster(path)) {
    const c = ZipnumCluster.open(path);
    return [
      {
        name: c.summary,
        reader: readerFor(undefined),
        lines: (s, e) => c.lines(s, e),
        blocks: { span: (s, e) => c.blockSpan(s, e), lines: (from, to, s, e) => c.blockLines(from, to, s, e) },
      },
    ];
  }
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (err) {
    throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
  }
  if (isDir) {
    const files = readdirSync(path)
      .filter((f) => CDX_FILE.test(f))
      .sort();
    const subClusters = readdirSync(path).filter((f) => ZipnumCluster.isCluster(join(path, f)) && statSync(join(path, f)).isDirectory());
    const out = [...files.flatMap((f) => openCdxSources(join(path, f), opts)), ...subClusters.flatMap((d) => openCdxSources(join(path, d), opts))];
    if (out.length === 0) throw new InputError(`${path}: no CDX files (.cdx, .cdxj, .cdx.gz) or ZipNum clusters in this directory`);
    return out;
  }
  const f = new SortedCdxFile(path);
  const bytes = opts.flatBlockBytes ?? FLAT_BLOCK_BYTES;
  const blocks: PagedBlocks | undefined = f.gzip
    ? undefined
    : { span: (s, e) => f.blockSpan(s, e, bytes), lines: (from, to, s, e) => f.blockLines(from, to, s, e, bytes) };
  return [{ name: path, reader: readerFor(f.legend), lines: (s, e) => f.lines(s, e), ...(blocks ? { blocks } : {}) }];
}

export interface SourcedLine {
  line: string;
  source: CdxSource;
}

/** The lines of all sources in one order (a k-way merge; sources are few). */
export async function* mergedLines(sources: CdxSource[], startKey: string, endKey: string): AsyncGenerator<SourcedLine> {
  if (sources.length === 1) {
    for await (const line of sources[0].lines(startKey, endKey)) yield { line, source: sources[0] };
    return;
  }
  const its = sources.map((s) => s.lines(startKey, endKey)[Symbol.asyncIterator]());
  const heads = await Promise.all(its.map((it) => it.next()));
  try {
    for (;;) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        if (!heads[i].done && (best < 0 || (heads[i].value as string) < (heads[best].value as string))) best = i;
      }
      if (best < 0) return;
      yield { line: heads[best].value as string, source: sources[best] };
      heads[best] = await its[best].next();
    }
  } finally {
    await Promise.all(its.map((it) => it.return?.()));
  }
}
