/**
 * Blocks of record files already inflated, kept by their size (characters of lines, bytes of a
 * block kept as bytes), the least recently used dropped first. A reader by key (the searcher's
 * texts from parse_text) reads one block a lookup; a page of hits from one segment, the same
 * query again, or a merge walking keys in order reads the same blocks: each is inflated once
 * while it stays here.
 *
 * A lookup by key inflates its block only as far as its line, and keeps nothing: most blocks a
 * searcher touches once are not touched again. A block asked for a second time while it is
 * still among the last `budget / 64 KiB * 4` blocks asked for is one that comes back (a popular
 * page, a query asked again by another user: what SQLite's page cache did for the texts when
 * the index held them); it is inflated whole and kept as bytes (secondTouch).
 */
export class BlockCache {
  private readonly blocks = new Map<string, string[] | Buffer>();
  private size = 0;
  /** Blocks asked for once, recently (keys only), oldest first. */
  private readonly seen = new Map<string, true>();
  private readonly seenMax: number;

  /** `budget`: characters of lines kept (64 KiB blocks: a 16 MiB budget keeps about 256). */
  constructor(private readonly budget: number) {
    this.seenMax = Math.max(64, Math.ceil(budget / (64 << 10)) * 4);
  }

  /** A block's lines, where it was kept as lines. */
  get(key: string): string[] | undefined {
    const v = this.take(key);
    return Array.isArray(v) ? v : undefined;
  }

  /** A block's inflated bytes, where it was kept as bytes. */
  getBytes(key: string): Buffer | undefined {
    const v = this.take(key);
    return Buffer.isBuffer(v) ? v : undefined;
  }

  set(key: string, lines: string[] | Buffer): void {
    const size = weight(lines);
    if (size > this.budget) return;
    const old = this.blocks.get(key);
    if (old !== undefined) {
      this.size -= weight(old);
      this.blocks.delete(key);
    }
    this.blocks.set(key, lines);
    this.size += size;
    for (const [k, v] of this.blocks) {
      if (this.size <= this.budget) break;
      this.blocks.delete(k);
      this.size -= weight(v);
    }
  }

  /** Whether a block not kept was asked for before, recently: it is worth inflating whole and keeping. */
  secondTouch(key: string): boolean {
    if (this.seen.delete(key)) return true;
    this.seen.set(key, true);
    if (this.seen.size > this.seenMax) this.seen.delete(this.seen.keys().next().value!);
    return false;
  }

  private take(key: string): string[] | Buffer | undefined {
    const v = this.blocks.get(key);
    if (v === undefined) return undefined;
    // Map keeps insertion order: taken out and put back is the most recently used.
    this.blocks.delete(key);
    this.blocks.set(key, v);
    return v;
  }
}

function weight(v: string[] | Buffer): number {
  if (Buffer.isBuffer(v)) return 64 + v.length;
  let n = 64;
  for (const l of v) n += l.length + 16;
  return n;
}
