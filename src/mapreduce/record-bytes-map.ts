/**
 * A map task of a `records` job with `mapRecordBytes` (index, updatedb): its split read as
 * chunks of lines, and each record offered to mapRecordBytes as the bytes it is, so a value
 * the job only wraps and passes on (a page's text), or does not take at all, goes from the
 * input's bytes to the sort's, or nowhere, without becoming a string. A record it declines,
 * or one that is not valid UTF-8, is decoded and goes through `map`, which reads it as the
 * streaming task does (invalid bytes become U+FFFD there).
 */
import { isUtf8 } from 'node:buffer';
import { newContext, type Counters, type Job } from './job.js';
import type { RecordBytesEmit } from './job-encoding.js';
import { hashPartitionBytes } from './partition.js';
import { splitChunks, type Split } from './splits.js';
import { lineChunks } from './line-reader.js';

/** Where the task's output goes: the key `key[start, end)`, the value's pieces, the partition. */
export type RecordPiecesSink = (key: Buffer, start: number, end: number, valueJson: readonly (Uint8Array | string)[], partition: number) => void;

export async function mapRecordsAsBytes(
  job: Job,
  split: Split,
  reduces: number,
  counters: Counters,
  properties: readonly string[],
  out: RecordPiecesSink,
  map: (line: string, lineNo?: number) => void | Promise<void>,
): Promise<void> {
  const ctx = newContext(counters, properties, split.path);
  const custom = job.partition;
  const emit: RecordBytesEmit = (key, s, e, value) => {
    counters['map output records'] = (counters['map output records'] ?? 0) + 1;
    const p = reduces === 1 ? 0 : custom ? custom(key.toString('utf8', s, e), reduces) : hashPartitionBytes(key, s, e, reduces);
    out(key, s, e, value, p);
  };
  const mapRecord = job.encoding!.mapRecordBytes!;
  let lineNo = 0;
  // The same chunks the string path's lines come from: a whole file (gzip included) or a split.
  const chunks = split.start === 0 && split.end < 0 ? lineChunks(split.path, () => lineNo) : splitChunks(split);
  let records = 0;
  for await (const chunk of chunks) {
    const valid = isUtf8(chunk);
    for (let s = 0; s < chunk.length; ) {
      const nl = chunk.indexOf(0x0a, s);
      lineNo++;
      if (nl > s) {
        const tab = chunk.indexOf(0x09, s);
        if (tab >= 0 && tab < nl && (valid || isUtf8(chunk.subarray(s, nl))) && mapRecord(chunk, s, tab, nl, emit, ctx)) records++;
        else {
          // `map` counts its own input records.
          const mapped = map(chunk.toString('utf8', s, nl), lineNo);
          if (mapped) await mapped;
        }
      }
      s = nl + 1;
    }
  }
  counters['map input records'] = (counters['map input records'] ?? 0) + records;
}
