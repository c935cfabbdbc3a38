/**
 * A byte range of a stream that cannot seek (a `hadoop fs -cat`, an inflated ZIP entry): the
 * bytes before the offset read and dropped, the stream left once the length is given.
 */
import type { ByteRange } from './locations.js';

export interface ByteSlice {
  chunks: AsyncGenerator<Buffer>;
  /** After the chunks end: whether the stream ended before the offset. */
  short(): boolean;
  /** After the chunks end: whether the whole length was given (the stream was left early). */
  full(): boolean;
}

export function sliceStream(source: AsyncIterable<Buffer>, range?: ByteRange): ByteSlice {
  let skip = range?.offset ?? 0;
  let left = range?.length ?? Infinity;
  const chunks = async function* (): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      let c = chunk;
      if (skip > 0) {
        if (c.length <= skip) {
          skip -= c.length;
          continue;
        }
        c = c.subarray(skip);
        skip = 0;
      }
      if (c.length > left) c = c.subarray(0, left);
      left -= c.length;
      yield c;
      if (left <= 0) return;
    }
  };
  return { chunks: chunks(), short: () => skip > 0, full: () => left <= 0 };
}
