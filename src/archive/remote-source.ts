/**
 * An archive on a web server as a ByteSource, streamed (never downloaded whole first) with
 * undici. When the connection drops part way, the read resumes where it stopped: with a Range
 * request where the server honours ranges (206), else by reading the body again and skipping
 * what was already delivered. Statuses other than 2xx, and retries used up, are errors naming
 * the URL and what happened. With a byte range (one record a CDX line points at) only that
 * range is asked for, and a server that answers with the whole file is refused, not read.
 */
import { Agent, interceptors, request, type Dispatcher } from 'undici';
import { basename } from 'node:path';
import { InputError } from '../util/errors.js';
import type { ByteRange, ByteSource, RemoteOptions } from './locations.js';

let dispatcher: Dispatcher | undefined;

/** One connection pool for all remote archives, following redirects (an archive moved). */
function pool(): Dispatcher {
  return (dispatcher ??= new Agent().compose(interceptors.redirect({ maxRedirections: 5 })));
}

function fileNameOf(url: string): string {
  try {
    return decodeURIComponent(basename(new URL(url).pathname)) || url;
  } catch {
    return url;
  }
}

const RETRY_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  return code ? `${code}: ${e.message ?? e.cause?.message}` : String(e.message ?? err);
}

function retriable(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return RETRY_CODES.has(e.code ?? '') || RETRY_CODES.has(e.cause?.code ?? '') || (err as Error).name === 'AbortError';
}

export async function openRemoteSource(url: string, opts: RemoteOptions, range?: ByteRange): Promise<ByteSource> {
  const headers: Record<string, string> = { 'user-agent': opts.userAgent ?? 'nwax' };
  const base = range?.offset ?? 0;
  const last = range?.length !== undefined ? `${range.offset + range.length - 1}` : '';
  const get = async (from: number) => {
    const res = await request(url, {
      headers: from > 0 || range ? { ...headers, range: `bytes=${base + from}-${last}` } : headers,
      headersTimeout: opts.timeout,
      bodyTimeout: opts.timeout,
      dispatcher: pool(),
    });
    if (res.statusCode < 200 || res.statusCode > 299) {
      await res.body.dump().catch(() => {});
      throw new InputError(`${url}: HTTP ${res.statusCode}${range ? ` for bytes ${base + from}-${last}` : from > 0 ? ` (resuming at byte ${from})` : ''}`);
    }
    if (range && res.statusCode !== 206) {
      res.body.on('error', () => {});
      res.body.destroy();
      throw new InputError(
        `${url}: HTTP ${res.statusCode} to a request for bytes ${base + from}-${last}: the server does not serve byte ranges (nwax reads only the records the CDX lists, never the whole file)`,
      );
    }
    return res;
  };
  let first;
  for (let attempt = 0; ; attempt++) {
    try {
      first = await get(0);
      break;
    } catch (err) {
      if (err instanceof InputError) throw err;
      if (!retriable(err) || attempt >= opts.retries) throw new InputError(`${url}: ${describe(err)}`);
    }
  }
  const length = Number(first.headers['content-length']);
  let body: AsyncIterator<Buffer> | undefined;
  let closed = false;
  return {
    name: range ? `${url} at ${range.offset}` : url,
    fileName: fileNameOf(url),
    size: Number.isFinite(length) ? length : undefined,
    chunks() {
      let delivered = 0;
      let retries = 0;
      let res = first!;
      body = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      let skip = 0;
      return {
        next: async (): Promise<IteratorResult<Buffer>> => {
          for (;;) {
            try {
              const r = await body!.next();
              if (r.done) {
                if (length && delivered < length && !closed)
                  throw Object.assign(new Error(`body ended at byte ${delivered} of ${length}`), { code: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' });
                return r;
              }
              let chunk = r.value;
              if (skip > 0) {
                // A server without ranges sent the body again from the start: drop what we had.
                const drop = Math.min(skip, chunk.length);
                skip -= drop;
                chunk = chunk.subarray(drop);
                if (chunk.length === 0) continue;
              }
              delivered += chunk.length;
              return { done: false, value: chunk };
            } catch (err) {
              if (err instanceof InputError || closed) throw err;
              if (!retriable(err) || retries >= opts.retries) {
                throw new InputError(`${url}: connection lost at byte ${delivered} (${describe(err)})${retries ? ` after ${retries} retries` : ''}`);
              }
              retries++;
              res = await get(delivered);
              skip = res.statusCode === 206 ? 0 : delivered;
              body = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
            }
          }
        },
        return: async () => {
          closed = true;
          await body?.return?.();
          return { done: true, value: undefined };
        },
      };
    },
    close() {
      closed = true;
      void body?.return?.();
      if (!body) void first?.body.dump().catch(() => {});
    },
  };
}

/** The size of a file on a web server (a HEAD request's Content-Length), for reading it by ranges from its end (a ZIP's directory). */
export async function remoteSize(url: string, opts: RemoteOptions): Promise<number> {
  let res;
  try {
    res = await request(url, { method: 'HEAD', headers: { 'user-agent': opts.userAgent ?? 'nwax' }, headersTimeout: opts.timeout, dispatcher: pool() });
  } catch (err) {
    throw new InputError(`${url}: ${describe(err)}`);
  }
  await res.body.dump().catch(() => {});
  if (res.statusCode < 200 || res.statusCode > 299) throw new InputError(`${url}: HTTP ${res.statusCode}`);
  const size = Number(res.headers['content-length']);
  if (!Number.isSafeInteger(size) || size < 0) throw new InputError(`${url}: the server gives no Content-Length; a package is read from its end, by ranges`);
  return size;
}
