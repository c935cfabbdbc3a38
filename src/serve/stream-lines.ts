/**
 * Streamed answers (the /cdx API's): lines written as they come, in batches of about 64 KiB,
 * waiting for the socket to drain when it is full, so a request holds one batch whatever the
 * answer's size; a client that goes away stops the reading. And a gate on how many stream at
 * once, so the whole service's memory is bounded too.
 */
import type { ServerResponse } from 'node:http';

const BATCH = 64 * 1024;

export class StreamGate {
  private open = 0;
  constructor(readonly limit: number) {}

  /** Whether another stream may start (then `leave` when it ends). */
  enter(): boolean {
    if (this.open >= this.limit) return false;
    this.open++;
    return true;
  }

  leave(): void {
    this.open--;
  }
}

/** Sends `lines` as a chunked 200 answer. An error after the first byte ends the response unfinished. */
export async function streamLines(res: ServerResponse, type: string, lines: AsyncGenerator<string>, log?: (line: string) => void): Promise<void> {
  let gone = false;
  res.once('close', () => (gone = true));
  res.writeHead(200, { 'Content-Type': `${type}; charset=utf-8`, 'X-Content-Type-Options': 'nosniff' });
  let batch = '';
  const flush = async () => {
    const chunk = batch;
    batch = '';
    if (res.write(chunk)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  };
  try {
    for await (const line of lines) {
      batch += `${line}\n`;
      if (batch.length >= BATCH) await flush();
      if (gone) break;
    }
    if (gone) return;
    if (batch) await flush();
    res.end();
  } catch (err) {
    log?.(`cdx: the answer stopped after its first lines: ${(err as Error).message}`);
    res.destroy(err as Error);
  } finally {
    await lines.return(undefined);
  }
}
