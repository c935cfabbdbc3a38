/**
 * One HTTP GET with undici, as the fetcher needs it for a WARC: the request line and headers
 * sent, the status and headers received, and the payload as it came on the wire (content
 * encodings kept; undici takes off the chunked transfer coding, so Transfer-Encoding is not
 * recorded), cut at http.content.limit (then `truncated`). Redirects are not followed here: the
 * fetcher records each response and decides. A timeout or a refused connection is an error
 * with its code, for the retry status.
 */
import { request, type Dispatcher } from 'undici';
import { STATUS_CODES } from 'node:http';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export interface FetchOptions {
  userAgent: string;
  accept: string;
  timeout: number;
  contentLimit: number;
  dispatcher: Dispatcher;
}

export interface FetchedResponse {
  date: Date;
  ip?: string;
  requestLine: string;
  requestHeaders: [string, string][];
  status: number;
  statusLine: string;
  headers: [string, string][];
  payload: Buffer;
  truncated?: 'length';
}

const ipCache = new Map<string, Promise<string | undefined>>();

/** The address a host resolves to (cached for the run): recorded as WARC-IP-Address, and the byIP queue key. */
export function addressOf(host: string): Promise<string | undefined> {
  const h = host.replace(/^\[|\]$/g, '');
  if (isIP(h)) return Promise.resolve(h);
  let p = ipCache.get(h);
  if (!p)
    ipCache.set(
      h,
      (p = lookup(h).then(
        (a) => a.address,
        () => undefined,
      )),
    );
  return p;
}

export async function httpGet(url: string, o: FetchOptions): Promise<FetchedResponse> {
  const u = new URL(url);
  const requestHeaders: [string, string][] = [
    ['Host', u.host],
    ['User-Agent', o.userAgent],
    ['Accept', o.accept],
    ['Accept-Encoding', 'gzip, deflate, br'],
    ['Connection', 'keep-alive'],
  ];
  const ip = await addressOf(u.hostname);
  const date = new Date();
  const res = await request(url, {
    method: 'GET',
    headers: Object.fromEntries(requestHeaders.filter(([n]) => n !== 'Host' && n !== 'Connection')),
    headersTimeout: o.timeout,
    bodyTimeout: o.timeout,
    dispatcher: o.dispatcher,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated: 'length' | undefined;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (size + chunk.length > o.contentLimit) {
        chunks.push(chunk.subarray(0, o.contentLimit - size));
        size = o.contentLimit;
        truncated = 'length';
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    if (truncated) res.body.destroy();
  }
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(res.headers)) {
    if (name === 'transfer-encoding' || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.push([name, v]);
  }
  return {
    date,
    ip,
    requestLine: `GET ${u.pathname}${u.search} HTTP/1.1`,
    requestHeaders,
    status: res.statusCode,
    statusLine: `HTTP/1.1 ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}`.trimEnd(),
    headers,
    payload: Buffer.concat(chunks, size),
    ...(truncated ? { truncated } : {}),
  };
}
