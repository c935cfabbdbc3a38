/** Worker of the fuzz run: indexes one damaged copy (all records, CDX11) and reports lines and messages. */
import { parentPort } from 'node:worker_threads';
import { writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cdxEntries } from '../cdx/indexer.js';
import { formatEntry } from '../cdx/cdx-format.js';
import { describeIssue } from '../cdx/cdx-job.js';

const dir = mkdtempSync(join(tmpdir(), 'nwax-fuzz-'));
let n = 0;
interface Job {
  bytes: Uint8Array;
  name: string;
  /** Reader limits (the damage kit's cases stream members above a small window). */
  inflateMaxBuffer?: number;
  inflateWindow?: number;
}

parentPort!.on('message', async ({ bytes, name, inflateMaxBuffer, inflateWindow }: Job) => {
  const path = join(dir, `${n++}-${name.replace(/\//g, '_')}`);
  writeFileSync(path, bytes);
  const messages: string[] = [];
  const lines: string[] = [];
  try {
    const run = await cdxEntries(path, { allRecords: true, inflateMaxBuffer, inflateWindow, onIssue: (i) => messages.push(describeIssue(i)) });
    for await (const e of run.entries) lines.push(formatEntry({ ...e, filename: name }, 'cdx11'));
    parentPort!.postMessage({ lines, messages });
  } catch (err) {
    const e = err as Error & { code?: string };
    // A clean one-line error of ours is an answer; anything else is a crash.
    if (e.code?.startsWith('NWAX_')) parentPort!.postMessage({ lines, messages: [...messages, e.message] });
    else parentPort!.postMessage({ lines, messages, error: `${e.name}: ${e.message}\n${e.stack}` });
  } finally {
    rmSync(path, { force: true });
  }
});
