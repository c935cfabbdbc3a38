/**
 * Where a command's lines go: stdout, or a file written aside (`FILE.tmp-PID`) and renamed
 * into place when complete, so a failed or interrupted run never leaves a half-written file
 * where a good one stood.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { InputError } from './errors.js';
import { basename, dirname, resolve } from 'node:path';
import { sweepDead } from './litter.js';

export class LineOutput {
  private stream: NodeJS.WritableStream | undefined;
  /**
   * A file is written synchronously: no copy of each chunk to hand to a stream (the copies of
   * a 2 GB sort's output were a gigabyte of garbage that V8 collected late: 100 MB of RSS).
   */
  private fd: number | undefined;
  private buf = '';
  private readonly tmp: string | undefined;
  private broken = false;
  private draining: Promise<void> | undefined;
  /** Bytes written to the file so far. */
  private written = 0;

  constructor(readonly path: string | undefined) {
    if (path && path !== '-') {
      // What a killed run wrote aside is removed first.
      sweepDead(dirname(resolve(path)), `${basename(path)}.tmp-`);
      this.tmp = `${path}.tmp-${process.pid}`;
      try {
        this.fd = openSync(this.tmp, 'w');
      } catch (err) {
        throw new InputError(`${path}: cannot write (${(err as NodeJS.ErrnoException).code})`);
      }
    } else {
      this.stream = process.stdout;
      // A reader that went away (`| head`) ends the output quietly.
      process.stdout.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE') {
          this.broken = true;
          process.exit(0);
        }
      });
    }
  }

  /** Buffers a line; past 1 MiB writes it out and returns the promise of that (await it to follow a slow reader). */
  write(line: string): Promise<void> | undefined {
    this.buf += `${line}\n`;
    return this.buf.length >= 1 << 20 ? this.flush() : undefined;
  }

  async writeAll(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    this.buf += `${lines.join('\n')}\n`;
    if (this.buf.length >= 1 << 20) await this.flush();
  }

  /**
   * Writes lines given as bytes (whole lines with their newlines). The bytes are copied: the
   * caller may reuse its buffer.
   */
  async writeBytes(bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return;
    await this.flush();
    if (this.fd !== undefined) this.writeFile(bytes);
    else if (!this.broken) await this.send(Buffer.from(bytes));
  }

  async flush(): Promise<void> {
    // Writers that do not wait share one wait for 'drain' (one listener, not one per write).
    if (this.draining) await this.draining;
    if (!this.buf || this.broken) return;
    const b = this.buf;
    this.buf = '';
    if (this.fd !== undefined) this.writeFile(Buffer.from(b));
    else await this.send(b);
  }

  /**
   * For a file: writes `first` (when given), then tells where the next bytes written will
   * stand (the file being written aside, and the offset), so that a writer elsewhere (the
   * sort's worker) may fill the file from a later offset while this one writes up to it.
   * Undefined, and nothing written, for stdout.
   */
  position(first?: Uint8Array): { path: string; at: number } | undefined {
    if (this.fd === undefined || this.buf !== '') return undefined;
    if (first) this.writeFile(first);
    return { path: this.tmp!, at: this.written };
  }

  private writeFile(bytes: Uint8Array): void {
    try {
      for (let off = 0; off < bytes.length; ) off += writeSync(this.fd!, bytes, off, bytes.length - off);
      this.written += bytes.length;
    } catch (err) {
      throw new InputError(`${this.path}: cannot write (${(err as NodeJS.ErrnoException).code})`);
    }
  }

  /** Writes to the stream; past its high-water mark, waits for 'drain' (one shared wait). */
  private async send(data: string | Buffer): Promise<void> {
    if (!this.stream!.write(data)) {
      this.draining ??= once(this.stream!, 'drain').then(() => {
        this.draining = undefined;
      });
      await this.draining;
    }
  }

  /** Flushes and, for a file, renames it into place. */
  async close(): Promise<void> {
    await this.flush();
    if (this.tmp && this.path) {
      closeSync(this.fd!);
      this.fd = undefined;
      try {
        renameSync(this.tmp, this.path);
      } catch (err) {
        throw new InputError(`${this.path}: cannot write (${(err as NodeJS.ErrnoException).code})`);
      }
    }
  }

  /** Drops a file being written (on failure). */
  abort(): void {
    if (this.tmp) {
      if (this.fd !== undefined) closeSync(this.fd);
      this.fd = undefined;
      rmSync(this.tmp, { force: true });
    }
  }
}

/** Runs `fill` on a new output and closes it; on failure a file being written is dropped. */
export async function writeOutput(path: string | undefined, fill: (out: LineOutput) => Promise<void>): Promise<void> {
  const out = new LineOutput(path);
  try {
    await fill(out);
    await out.close();
  } catch (err) {
    out.abort();
    throw err;
  }
}
