/**
 * Progress of a long job on stderr (records, bytes, rate), redrawn twice a second, only when
 * stderr is a terminal; and the one-line summary every job prints when done.
 */
export class Progress {
  private timer: NodeJS.Timeout | undefined;
  private readonly start = Date.now();
  records = 0;
  /** Bytes of the inputs finished; `current` is how far into the one being read. */
  bytes = 0;
  current = 0;
  lines = 0;

  constructor(
    private readonly label: string,
    enabled = process.stderr.isTTY === true,
  ) {
    if (enabled) {
      this.timer = setInterval(() => this.draw(), 500);
      this.timer.unref();
    }
  }

  private draw(): void {
    const s = (Date.now() - this.start) / 1000;
    const bytes = this.bytes + this.current;
    process.stderr.write(
      `\r${this.label}: ${this.records} records, ${formatBytes(bytes)}, ${formatBytes(bytes / Math.max(s, 0.001))}/s, ${this.lines} lines   `,
    );
  }

  get seconds(): number {
    return (Date.now() - this.start) / 1000;
  }

  stop(): void {
    if (this.timer) {
      clearInterval(this.timer);
      process.stderr.write('\r\x1b[K');
    }
  }
}

export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${Math.round(n)} B`;
}

export function formatCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}
