/**
 * Reading a ZipNum cluster (pywb's and OpenWayback's layout, or one `nwax zipnum build`
 * wrote): the summary index is held in memory (one entry per block of thousands of lines);
 * a key range is found by binary search in it, and the blocks that may hold it are read with
 * one positional read (or Range request) per run of up to `maxBlocks` adjacent blocks, each
 * block gunzipped on its own. A part's locations come from the .loc file (`part TAB path...`,
 * tried in order, relative to the .loc file), else `part` or `part.gz` beside the index.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { isRemote } from '../archive/byte-source.js';
import { InputError, NwaxError, describeFsError } from '../util/errors.js';

export class ZipnumCluster {
  readonly keys: string[] = [];
  private readonly parts: string[] = [];
  private readonly offsets: number[] = [];
  private readonly lengths: number[] = [];
  private readonly loc = new Map<string, string[]>();
  /** Blocks read with one request at most (pywb's max_blocks). */
  maxBlocks = 10;

  private constructor(readonly summary: string) {}

  /** Whether a path names a cluster: a .idx/.summary file, or a directory holding one. */
  static isCluster(path: string): boolean {
    if (/\.(idx|summary)$/.test(path)) return true;
    try {
      return statSync(path).isDirectory() && readdirSync(path).some((f) => /\.(idx|summary)$/.test(f));
    } catch {
      return false;
    }
  }

  static open(path: string): ZipnumCluster {
    let summary = path;
    try {
      if (statSync(path).isDirectory()) {
        const found = readdirSync(path)
          .filter((f) => /\.(idx|summary)$/.test(f))
          .sort();
        if (found.length === 0) throw new InputError(`${path}: no ZipNum summary (.idx or .summary file) in this directory`);
        if (found.length > 1) throw new InputError(`${path}: more than one ZipNum summary (${found.join(', ')}); name the .idx file`);
        summary = join(path, found[0]);
      }
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
    }
    const c = new ZipnumCluster(summary);
    c.load();
    return c;
  }

  private load(): void {
    let text: string;
    try {
      text = readFileSync(this.summary, 'utf8');
    } catch (err) {
      throw new InputError(describeFsError(this.summary, err as NodeJS.ErrnoException));
    }
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i];
      if (l === '') continue;
      const f = l.split('\t');
      const off = Number(f[2]);
      const len = Number(f[3]);
      if (f.length < 4 || !Number.isSafeInteger(off) || !Number.isSafeInteger(len) || len <= 0 || off < 0) {
        throw new InputError(`${this.summary}: line ${i + 1}: not a summary line (expected: urlkey timestamp TAB part TAB offset TAB length [TAB block])`);
      }
      if (this.keys.length && this.keys[this.keys.length - 1] > f[0]) throw new InputError(`${this.summary}: line ${i + 1}: not sorted`);
      this.keys.push(f[0]);
      this.parts.push(f[1]);
      this.offsets.push(off);
      this.lengths.push(len);
    }
    const locFile = join(dirname(this.summary), `${basename(this.summary, extname(this.summary))}.loc`);
    if (existsSync(locFile)) {
      for (const l of readFileSync(locFile, 'utf8').split('\n')) {
        const f = l.trimEnd().split('\t');
        if (f[0] === '') continue;
        this.loc.set(
          f[0],
          f
            .slice(1)
            .filter(Boolean)
            .map((p) => (isRemote(p) || p.startsWith('/') ? p : join(dirname(locFile), p))),
        );
      }
    }
  }

  get blocks(): number {
    return this.keys.length;
  }

  /** Where a part may be read, in order. */
  private locations(part: string): string[] {
    const l = this.loc.get(part);
    if (l) {
      if (l.length === 0) throw new NwaxError('NWAX_INPUT', `${this.summary}: part "${part}" has no location in its .loc file`);
      return l;
    }
    if (this.loc.size > 0) throw new NwaxError('NWAX_INPUT', `${this.summary}: part "${part}" is not in its .loc file`);
    const dir = dirname(this.summary);
    return [join(dir, part), join(dir, `${part}.gz`), join(dir, `${part}.cdx.gz`)];
  }

  private async readRange(location: string, offset: number, length: number): Promise<Buffer> {
    if (isRemote(location)) {
      const { request } = await import('undici');
      const res = await request(location, { headers: { range: `bytes=${offset}-${offset + length - 1}` } });
      if (res.statusCode !== 206) {
        await res.body.dump();
        throw new InputError(`${location}: HTTP ${res.statusCode} for a byte range`);
      }
      return Buffer.from(await res.body.arrayBuffer());
    }
    const fh = await open(location, 'r');
    try {
      const buf = Buffer.allocUnsafe(length);
      const { bytesRead } = await fh.read(buf, 0, length, offset);
      if (bytesRead < length) throw new InputError(`${location}: ends before byte ${offset + length} (the summary points past the part file)`);
      return buf;
    } finally {
      await fh.close();
    }
  }

  /**
   * Reads blocks [from, to) of one part with one read, trying each location of the part; their
   * text comes one block at a time, each inflated when it is reached, so a long scan holds the
   * run's compressed bytes and one block's text, not the run's text.
   */
  private async *readBlocks(from: number, to: number): AsyncGenerator<string> {
    const part = this.parts[from];
    const offset = this.offsets[from];
    const length = this.offsets[to - 1] + this.lengths[to - 1] - offset;
    let last: Error | undefined;
    for (const location of this.locations(part)) {
      let buf: Buffer;
      try {
        buf = await this.readRange(location, offset, length);
      } catch (err) {
        last = err as Error;
        continue;
      }
      for (let b = from; b < to; b++) {
        const at = this.offsets[b] - offset;
        let text: string;
        try {
          text = gunzipSync(buf.subarray(at, at + this.lengths[b])).toString('utf8');
        } catch (err) {
          throw new NwaxError(
            'NWAX_FORMAT',
            `${location}: offset ${this.offsets[b]}: block ${b + 1} of ${this.summary} is not a gzip block (${(err as Error).message})`,
          );
        }
        yield text;
      }
      return;
    }
    // A system error (ENOENT, EACCES) is described; nwax's own (a part shorter than the summary says) says what it found.
    const why =
      last && !(last instanceof NwaxError) && (last as NodeJS.ErrnoException).code
        ? describeFsError(this.locations(part).join(' or '), last as NodeJS.ErrnoException)
        : last?.message;
    throw new NwaxError('NWAX_INPUT', `${this.summary}: part "${part}" could not be read (${why})`);
  }

  /** The first block whose summary key is >= `key` (the number of blocks where none is). */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first block that may hold keys >= `key` (the one before the first block starting at or after it). */
  private firstBlock(key: string): number {
    return Math.max(0, this.lowerBound(key) - 1);
  }

  /**
   * The blocks a key range's pages are counted over, as pywb's compute_page_range finds them in
   * the summary: from the block before the first summary line >= startKey to the block before the
   * first one >= endKey (or the last block); undefined where the range touches no block.
   */
  blockSpan(startKey: string, endKey: string): { first: number; last: number } | undefined {
    const n = this.keys.length;
    if (n === 0) return undefined;
    const atEnd = this.lowerBound(endKey);
    const last = atEnd === n ? n - 1 : Math.max(0, atEnd - 1);
    const atStart = this.lowerBound(startKey);
    // No summary line at or after the key: only the last block may hold it.
    if (atStart === n) return { first: n - 1, last };
    const first = Math.max(0, atStart - 1);
    // pywb takes the first block only while its line sorts before endKey.
    if (this.keys[first] >= endKey) return undefined;
    return { first, last };
  }

  /** Lines with startKey <= line < endKey, in order. */
  lines(startKey: string, endKey: string): AsyncGenerator<string> {
    return this.blockLines(this.firstBlock(startKey), this.keys.length, startKey, endKey);
  }

  /** Lines with startKey <= line < endKey of blocks [from, to), in order: a page's, or the range's when `to` is the end. */
  async *blockLines(from: number, to: number, startKey: string, endKey: string): AsyncGenerator<string> {
    to = Math.min(to, this.keys.length);
    for (let b = from; b < to && (b === 0 || this.keys[b] < endKey); ) {
      let e = b + 1;
      while (
        e < to &&
        e - b < this.maxBlocks &&
        this.keys[e] < endKey &&
        this.parts[e] === this.parts[b] &&
        this.offsets[e] === this.offsets[e - 1] + this.lengths[e - 1]
      )
        e++;
      for await (const text of this.readBlocks(b, e)) {
        // Lines are cut from the block's text only from where the range starts (a binary
        // search over the line starts), not split all: a lookup wants a few of 3000.
        for (let at = startOf(text, startKey); at < text.length; ) {
          let nl = text.indexOf('\n', at);
          if (nl < 0) nl = text.length;
          const l = text.slice(at, nl);
          at = nl + 1;
          if (l === '' || l < startKey) continue;
          if (l >= endKey) return;
          yield l;
        }
      }
      b = e;
    }
  }
}

/** Where in a block's text the first line >= key starts (or a line before it). */
function startOf(text: string, key: string): number {
  if (text.startsWith(key) || text.slice(0, key.length) > key) return 0;
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const s = starts[mid];
    if (text.slice(s, s + key.length) < key) lo = mid + 1;
    else hi = mid;
  }
  return starts[Math.max(0, lo - 1)];
}
