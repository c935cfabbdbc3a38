/**
 * `import --cdx`, one map task: the records of one archive that the CDX lines listed, each read
 * at its offset and length (a positional read of a local file, a Range request to a remote
 * one; a few at a time, `nwax.import.cdx.fetches`), never the rest of the file. A listed offset
 * must start a record of the listed URL: when it does not, the CDX file and line are named and
 * the record skipped. From there each record is imported as a full import would (importer.ts).
 */
import { ArchiveReader, type ReadIssue } from '../archive/reader.js';
import { openByteRange, type ByteSource } from '../archive/byte-source.js';
import { surt } from '../cdx/surt.js';
import type { Emit, TaskContext } from '../mapreduce/job.js';
import { importRecord, type ImportOptions } from './importer.js';
import type { PlannedRecord, RecordGroup } from './cdx-plan.js';
import { InputError } from '../util/errors.js';

function sameUrl(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return surt(a) === surt(b);
  } catch {
    return false;
  }
}

export async function importRecords(g: RecordGroup, opts: ImportOptions, emit: Emit, ctx: TaskContext): Promise<void> {
  const entry = { location: g.archive, collection: g.collection };
  let failed: string | undefined;
  const one = async ([offset, length, ref, url]: PlannedRecord) => {
    if (failed) {
      ctx.count('records not read');
      return;
    }
    let source: ByteSource;
    try {
      source = await openByteRange(g.archive, { offset, length: length >= 0 ? length : undefined }, opts.remote);
    } catch (err) {
      if (opts.strict || !(err instanceof InputError)) throw err;
      // The archive is not there, or its server refuses ranges: its other records would fail alike.
      failed = (err as Error).message;
      ctx.count('archives failed');
      ctx.count('records not read');
      ctx.warn(`${ref}: ${failed}; the archive's listed records are skipped`);
      return;
    }
    const issues: ReadIssue[] = [];
    const reader = new ArchiveReader(source, {
      strict: false,
      remote: opts.remote,
      onIssue: (i) => (i.skipped ? void issues.push(i) : ctx.count(`warning ${i.reason}`)),
    });
    let found = false;
    try {
      for await (const r of reader) {
        found = true;
        if (!sameUrl(r.url, url)) {
          ctx.count('cdx-offset-mismatch');
          ctx.warn(`${ref}: ${g.archive}: offset ${offset} holds a ${r.type} record of ${r.url || '(no URL)'}, not ${url}; skipped`);
          break;
        }
        if (!(await importRecord(r, source.fileName, entry, opts, emit, ctx, offset))) {
          ctx.count('read-error');
          ctx.warn(`${ref}: ${g.archive}: offset ${offset}: ${issues[0]?.detail ?? 'damaged record'}; skipped`);
        }
        break; // one record per listed offset
      }
    } catch (err) {
      if (opts.strict || !(err instanceof InputError)) throw err;
      ctx.count('read-error');
      ctx.warn(`${ref}: ${(err as Error).message}; record skipped`);
      return;
    } finally {
      source.close();
    }
    if (!found) {
      ctx.count('cdx-offset-mismatch');
      ctx.warn(`${ref}: ${g.archive}: offset ${offset} does not start a record (${issues[0]?.detail ?? 'nothing there'}); skipped`);
    }
  };
  const queue = [...g.records];
  const lanes = Math.max(1, Math.min(opts.fetches ?? 4, queue.length));
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let rec = queue.shift(); rec; rec = queue.shift()) await one(rec);
    }),
  );
}
