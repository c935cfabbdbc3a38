/**
 * Reads the decompressed bytes of an archive across slice boundaries and keeps track of
 * where they came from in the file, so a record's compressed offset and length can be told.
 * Damage events become a DamageError thrown at the point where the reader reaches them.
 */
import type { DamageEvent, Slice, SliceEvent } from './slices.js';

export class DamageError extends Error {
  constructor(readonly damage: DamageEvent) {
    super(damage.detail);
  }
}

export class SliceCursor {
  private slices: Slice[] = [];
  /** Read position inside slices[0]. */
  private pos = 0;
  private damage: DamageEvent | undefined;
  private done = false;
  /** gzip: end offset of the last member whose final byte was consumed. */
  private lastEnd = -1;
  /** gzip: the last slice consumed was not its member's last. */
  private midMember = false;

  constructor(
    private events: AsyncIterator<SliceEvent>,
    readonly gzip: boolean,
  ) {}

  /** Reads on from other events (the archive reopened further on); what was buffered is dropped. */
  reset(events: AsyncIterator<SliceEvent>, offset: number): void {
    void this.events.return?.();
    this.events = events;
    this.slices = [];
    this.pos = 0;
    this.damage = undefined;
    this.done = false;
    this.lastEnd = offset;
    this.midMember = false;
  }

  /** Pulls one more slice; false at the end or at damage. */
  private async pull(): Promise<boolean> {
    if (this.done || this.damage) return false;
    const r = await this.events.next();
    if (r.done) {
      this.done = true;
      return false;
    }
    if (r.value.kind === 'damage') {
      this.damage = r.value;
      return false;
    }
    this.slices.push(r.value);
    return true;
  }

  /** Bytes available from the read position without pulling. */
  private buffered(): number {
    let n = -this.pos;
    for (const s of this.slices) n += s.data.length;
    return n;
  }

  /** Makes `n` bytes available if the archive has them; returns how many are. */
  async ensure(n: number): Promise<number> {
    if (this.slices.length > 0 && this.slices[0].data.length - this.pos >= n) return n;
    let have = this.buffered();
    while (have < n && (await this.pull())) have += this.slices[this.slices.length - 1].data.length;
    return Math.min(have, n);
  }

  /** Throws the damage that stopped the last `ensure`, if any and nothing is left before it. */
  throwIfDamaged(): void {
    if (this.damage && this.buffered() === 0) throw new DamageError(this.damage);
  }

  get atDamage(): boolean {
    return this.damage !== undefined && this.buffered() === 0;
  }

  /** Up to `n` bytes from the read position; a view when they lie in one slice, else a copy. */
  peek(n: number): Buffer {
    if (this.slices.length === 0) return Buffer.alloc(0);
    const head = this.slices[0].data;
    if (head.length - this.pos >= n || this.slices.length === 1) return head.subarray(this.pos, this.pos + n);
    const parts: Buffer[] = [head.subarray(this.pos)];
    let len = parts[0].length;
    for (let i = 1; i < this.slices.length && len < n; i++) {
      const d = this.slices[i].data;
      parts.push(d.subarray(0, n - len));
      len += Math.min(d.length, n - len);
    }
    return Buffer.concat(parts, len);
  }

  advance(n: number): void {
    while (n > 0 && this.slices.length > 0) {
      const s = this.slices[0];
      const left = s.data.length - this.pos;
      if (n < left) {
        this.pos += n;
        return;
      }
      n -= left;
      this.dropHead();
    }
  }

  private dropHead(): void {
    const s = this.slices.shift()!;
    this.pos = 0;
    if (s.memberEnd >= 0) this.lastEnd = s.memberEnd;
    this.midMember = s.memberEnd < 0;
  }

  /** Offset in the file of the next byte: its member's offset (gzip) or its own (plain). */
  async offsetHere(): Promise<number> {
    await this.ensure(1);
    // Nothing buffered: the next byte is where the last consumed member (or byte) ended.
    if (this.slices.length === 0) return this.lastEnd;
    const s = this.slices[0];
    return this.gzip ? s.offset : s.offset + this.pos;
  }

  /**
   * Where the bytes consumed so far end in the file. gzip: the end of the member holding the
   * last byte consumed (pulling ahead until that member's end is known, and its CRC checked);
   * plain: the offset of the next byte. -1 when damage comes before that member's end: the
   * bytes consumed are not to be trusted (`atDamage` tells what it was).
   */
  async endHere(): Promise<number> {
    if (!this.gzip) {
      if (this.slices.length === 0) return this.lastEnd;
      const s = this.slices[0];
      return s.offset + this.pos;
    }
    // Nothing of a member consumed beyond its last slice: it ended where that slice did.
    if (this.pos === 0 && !this.midMember) return this.lastEnd;
    // The member of the last consumed byte is slices[0]'s (when pos is 0, the rest of the member
    // the last dropped slice belonged to); find its last slice.
    for (let i = 0; ; i++) {
      while (i >= this.slices.length) if (!(await this.pull())) return this.damage ? -1 : this.lastEnd;
      if (i === 0 && this.pos === 0 && this.slices[0].memberStart) return this.lastEnd;
      if (this.slices[i].memberEnd >= 0) return this.slices[i].memberEnd;
    }
  }

  /** gzip: bytes left in the head slice, and whether it is its member's last (call after ensure). */
  headSlice(): { left: number; endsMember: boolean } {
    if (this.slices.length === 0) return { left: 0, endsMember: false };
    return { left: this.slices[0].data.length - this.pos, endsMember: this.slices[0].memberEnd >= 0 };
  }

  /** Up to `n` bytes from the read position within one slice, consumed; empty at the end or damage. */
  async takeSlice(n: number): Promise<Buffer> {
    if (n <= 0 || (await this.ensure(1)) === 0) return Buffer.alloc(0);
    const head = this.slices[0].data;
    const len = Math.min(n, head.length - this.pos);
    const slice = head.subarray(this.pos, this.pos + len);
    this.advance(len);
    return slice;
  }

  /** After damage: forget what is buffered and carry on after it. Returns the damage. */
  clearDamage(): DamageEvent | undefined {
    const d = this.damage;
    this.damage = undefined;
    this.slices = [];
    this.pos = 0;
    this.midMember = false;
    return d;
  }

  /** gzip: drops the rest of the current member, so reading resumes at the next one. */
  async skipToNextMember(): Promise<void> {
    if (this.slices.length === 0) return;
    for (;;) {
      const s = this.slices[0];
      this.dropHead();
      if (s.memberEnd >= 0) break;
      if (this.slices.length === 0 && !(await this.pull())) return;
    }
  }

  /** Whether the read position is at the first byte of a gzip member. */
  get atMemberStart(): boolean {
    return this.slices.length > 0 && this.pos === 0 && this.slices[0].memberStart;
  }

  /**
   * gzip: whether the last byte consumed was its member's last (the next byte, if any, is a
   * new member's first). The rest of a record's member is then empty: the next member is never
   * counted as part of it, whatever it starts with.
   */
  get memberConsumed(): boolean {
    return this.slices.length === 0 ? !this.midMember : this.pos === 0 && this.slices[0].memberStart;
  }

  /** Bytes left in the member of the read position (gzip), pulling up to `limit`, to tell where it ends. */
  async bytesLeftInMember(limit: number): Promise<number> {
    let n = 0;
    for (let i = 0; ; i++) {
      while (i >= this.slices.length) if (!(await this.pull())) return n;
      const s = this.slices[i];
      n += s.data.length - (i === 0 ? this.pos : 0);
      if (s.memberEnd >= 0 || n >= limit) return n;
    }
  }
}
