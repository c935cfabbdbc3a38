/**
 * A sliding window over a chunked byte stream, addressed by absolute file offset. Readers ask
 * for a range to be present (`fill`), look at it without copying (`view`) and drop what they
 * are done with (`release`), so memory stays bounded by the largest range asked for.
 */
export class ByteWindow {
  private buf: Buffer = Buffer.alloc(0);
  /** Absolute offset of buf[0]. */
  private base: number;
  private done = false;

  /** `base`: the file offset of the source's first byte (a window reopened further on). */
  constructor(
    private readonly source: AsyncIterator<Buffer>,
    base = 0,
  ) {
    this.base = base;
  }

  get end(): number {
    return this.base + this.buf.length;
  }

  /** Offset of the first byte still held. */
  get start(): number {
    return this.base;
  }

  get eof(): boolean {
    return this.done;
  }

  /** Makes bytes [pos, pos+n) present where the stream has them; returns how many are. */
  async fill(pos: number, n: number): Promise<number> {
    const want = pos + n;
    if (this.end < want && !this.done) {
      const parts: Buffer[] = [this.buf];
      let end = this.end;
      while (end < want) {
        const r = await this.source.next();
        if (r.done) {
          this.done = true;
          break;
        }
        parts.push(r.value);
        end += r.value.length;
      }
      this.buf = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    }
    return Math.max(0, Math.min(this.end, want) - pos);
  }

  /** Bytes [pos, pos+n) (or fewer at the end); valid until the next fill or release. */
  view(pos: number, n: number): Buffer {
    const from = pos - this.base;
    if (from < 0) throw new Error(`ByteWindow: offset ${pos} already released`);
    return this.buf.subarray(from, Math.min(this.buf.length, from + n));
  }

  /** Forgets everything before `pos`. */
  release(pos: number): void {
    const drop = pos - this.base;
    if (drop <= 0) return;
    if (drop >= this.buf.length) {
      this.base += this.buf.length;
      this.buf = Buffer.alloc(0);
      // Positions past the end: keep base at pos so later views line up.
      this.base = Math.max(this.base, pos);
    } else {
      this.buf = this.buf.subarray(drop);
      this.base = pos;
    }
  }

  /**
   * Offset of the first occurrence of `needle` at or after `pos`, reading ahead up to `limit`
   * bytes; -1 if none. `dropBehind`: forget what has been searched as the search goes (a scan
   * past damage never comes back), so a long stretch of garbage is not held in memory.
   */
  async find(needle: Buffer, pos: number, limit: number, dropBehind = false): Promise<number> {
    let searched = pos;
    for (;;) {
      if (dropBehind && searched - needle.length > pos) {
        limit -= searched - needle.length - pos;
        pos = searched - needle.length;
        this.release(pos);
      }
      const have = await this.fill(pos, Math.min(limit, searched - pos + (1 << 20)));
      const v = this.view(pos, have);
      const from = Math.max(0, searched - pos - needle.length + 1);
      const i = v.indexOf(needle, from);
      if (i >= 0) return pos + i;
      searched = pos + have;
      if (have >= limit || (this.done && this.end <= searched)) return -1;
    }
  }
}
