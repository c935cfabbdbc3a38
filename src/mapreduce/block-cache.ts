/**
 * Blocks of record files already inflated, kept by their size in characters, the least
 * recently used dropped first. A reader by key (the searcher's texts from parse_text) reads one
 * block a lookup; a page of hits from one segment, the same query again, or a merge walking keys
 * in order reads the same blocks: each is inflated once while it stays here.
 */
export class BlockCache {
  private readonly blocks = new Map<string, string[]>();
  private size = 0;

  /** `budget`: characters of lines kept (64 KiB blocks: a 16 MiB budget keeps about 256). */
  constructor(private readonly budget: number) {}

  get(key: string): string[] | undefined {
    const lines = this.blocks.get(key);
    if (lines === undefined) return undefined;
    // Map keeps insertion order: taken out and put back is the most recently used.
    this.blocks.delete(key);
    this.blocks.set(key, lines);
    return lines;
  }

  set(key: string, lines: string[]): void {
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
}

function weight(lines: string[]): number {
  let n = 64;
  for (const l of lines) n += l.length + 16;
  return n;
}
