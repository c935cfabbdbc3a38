/**
 * HTTP/1.1 chunked transfer decoding, streamed: `size CRLF data CRLF ... 0 CRLF trailers CRLF`.
 * Archives hold badly chunked responses (warcio's example-wrong-chunks); when the framing is
 * not chunked after all, the rest is passed through as stored, as browsers and pywb do.
 */
export async function* dechunk(raw: AsyncIterable<Buffer>, onMalformed?: () => void): AsyncGenerator<Buffer> {
  let buf: Buffer = Buffer.alloc(0);
  let left = 0; // data bytes left in the current chunk
  let state: 'size' | 'data' | 'crlf' | 'trailer' | 'raw' | 'done' = 'size';
  for await (const piece of raw) {
    buf = buf.length ? Buffer.concat([buf, piece]) : piece;
    for (;;) {
      if (state === 'raw') {
        if (buf.length) yield buf;
        buf = Buffer.alloc(0);
        break;
      }
      if (state === 'done') {
        buf = Buffer.alloc(0);
        break;
      }
      if (state === 'data') {
        if (buf.length === 0) break;
        const n = Math.min(left, buf.length);
        yield buf.subarray(0, n);
        buf = buf.subarray(n);
        left -= n;
        if (left === 0) state = 'crlf';
        continue;
      }
      const eol = buf.indexOf(10);
      if (eol < 0) {
        if (buf.length > 1024) {
          // No line end in sight where a chunk size or CRLF should be: not chunked.
          onMalformed?.();
          state = 'raw';
          continue;
        }
        break;
      }
      const line = buf.toString('latin1', 0, eol).trim();
      if (state === 'crlf') {
        if (line !== '') {
          onMalformed?.();
          state = 'raw';
          continue;
        }
        buf = buf.subarray(eol + 1);
        state = 'size';
        continue;
      }
      if (state === 'trailer') {
        buf = buf.subarray(eol + 1);
        if (line === '') state = 'done';
        continue;
      }
      // state === 'size'
      const m = /^([0-9a-fA-F]+)(?:\s*;.*)?$/.exec(line);
      if (!m) {
        onMalformed?.();
        state = 'raw';
        continue;
      }
      buf = buf.subarray(eol + 1);
      left = parseInt(m[1], 16);
      state = left === 0 ? 'trailer' : 'data';
    }
  }
  if (state === 'raw' && buf.length) yield buf;
}
