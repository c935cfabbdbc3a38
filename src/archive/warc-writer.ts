/**
 * Writing WARC files (the fetcher's output) with warcio.js: one gzip member per record, the
 * WARC-Payload-Digest and WARC-Block-Digest as `sha1:` + base32 (computed here with node's
 * crypto over the exact block written: warcio's own digesting instantiates a WASM hasher per
 * record, which was a third of the fetcher's CPU on a 2,000-page crawl), a
 * warcinfo record at the head of each file, request and response linked by WARC-Concurrent-To,
 * revisit records (identical-payload-digest profile) for unchanged payloads, WARC-Truncated for
 * payloads cut at http.content.limit. Files roll over at `maxSize` bytes; a file being written
 * is named `.open` and renamed when closed, so a crash never leaves a WARC that looks complete.
 * Records are serialized whole: the fetcher bounds them by http.content.limit.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { base32 } from './digest.js';
import { hostname } from 'node:os';
import { gzipSync } from 'node:zlib';
import { dateTo14 } from './dates.js';

type Warcio = typeof import('warcio');
let warcio: Warcio | undefined;

const DIGEST = { algo: 'sha-1' as const, prefix: 'sha1:', base32: true };
const sha1 = (...parts: Buffer[]) => {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return `sha1:${base32(h.digest())}`;
};

/** An HTTP message head as it goes in a WARC block: start line, headers, blank line. */
function httpHead(startLine: string, headers: [string, string][]): Buffer {
  return Buffer.from(`${startLine}\r\n${headers.map(([n, v]) => `${n}: ${v.replace(/[\r\n]+/g, ' ')}\r\n`).join('')}\r\n`, 'latin1');
}

export interface HttpExchange {
  url: string;
  /** When the request was sent. */
  date: Date;
  ip?: string;
  requestLine: string;
  requestHeaders: [string, string][];
  statusLine: string;
  responseHeaders: [string, string][];
  payload: Buffer;
  /** Why the payload was cut (WARC-Truncated: length, time). */
  truncated?: 'length' | 'time';
  /** Write a revisit (payload not stored) instead of a response. */
  revisitOf?: { url: string; date: string; digest: string };
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const recordId = () => `<urn:uuid:${randomUUID()}>`;

export class WarcWriter {
  private fd: number | undefined;
  private path = '';
  private size = 0;
  private serial = 0;
  private queue: Promise<void> = Promise.resolve();
  readonly files: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly prefix: string,
    private readonly maxSize: number,
    private readonly info: Record<string, string>,
  ) {}

  private async ensureFile(): Promise<void> {
    if (this.fd !== undefined && this.size < this.maxSize) return;
    this.closeFile();
    warcio ??= await import('warcio');
    const ts = dateTo14();
    const name = `${this.prefix}-${ts}-${String(this.serial++).padStart(5, '0')}-${process.pid}~${hostname()}.warc.gz`;
    this.path = join(this.dir, name);
    this.fd = openSync(`${this.path}.open`, 'w');
    this.size = 0;
    const rec = warcio.WARCRecord.createWARCInfo({ filename: name, warcVersion: 'WARC/1.1' }, this.info);
    this.append(await warcio.WARCSerializer.serialize(rec, { gzip: true, digest: DIGEST }));
  }

  private append(bytes: Uint8Array): void {
    writeSync(this.fd!, bytes);
    this.size += bytes.length;
  }

  /** Writes the request and the response (or revisit) of one fetch; returns the payload digest. */
  async write(x: HttpExchange): Promise<{ file: string; offset: number; length: number }> {
    warcio ??= await import('warcio');
    const w = warcio;
    const date = iso(x.date);
    const reqId = recordId();
    const respId = recordId();
    const common: Record<string, string> = x.ip ? { 'WARC-IP-Address': x.ip } : {};
    const respHeaders: Record<string, string> = { 'WARC-Record-ID': respId, ...common };
    if (x.truncated) respHeaders['WARC-Truncated'] = x.truncated;
    if (x.revisitOf) {
      respHeaders['WARC-Profile'] = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
      respHeaders['WARC-Refers-To-Target-URI'] = x.revisitOf.url;
      respHeaders['WARC-Refers-To-Date'] = x.revisitOf.date;
      respHeaders['WARC-Payload-Digest'] = x.revisitOf.digest;
    }
    const type = x.revisitOf ? 'revisit' : 'response';
    // The blocks are made here (application/http), so that their digests are of these bytes.
    const respHead = httpHead(x.statusLine, x.responseHeaders);
    const respBody = x.revisitOf ? Buffer.alloc(0) : x.payload;
    respHeaders['Content-Type'] = 'application/http; msgtype=response';
    respHeaders['WARC-Block-Digest'] = sha1(respHead, respBody);
    if (!x.revisitOf) respHeaders['WARC-Payload-Digest'] = sha1(respBody);
    const response = w.WARCRecord.create({ url: x.url, date, type, warcVersion: 'WARC/1.1', keepHeadersCase: true, warcHeaders: respHeaders }, [
      respHead,
      respBody,
    ]);
    const reqHead = httpHead(x.requestLine, x.requestHeaders);
    const request = w.WARCRecord.create(
      {
        url: x.url,
        date,
        type: 'request',
        warcVersion: 'WARC/1.1',
        keepHeadersCase: true,
        warcHeaders: {
          'WARC-Record-ID': reqId,
          'WARC-Concurrent-To': respId,
          ...common,
          'Content-Type': 'application/http; msgtype=request',
          'WARC-Block-Digest': sha1(reqHead),
        } as Record<string, string>,
      },
      [reqHead],
    );
    // The HTTP heads are in the blocks already: warcio must not add its own.
    response.httpHeaders = null;
    request.httpHeaders = null;
    // warcio lays the records out; each is then one gzip member of its own, compressed by node's
    // zlib in one call (warcio's own gzip goes through web streams, several times slower).
    const [respBytes, reqBytes] = (await Promise.all([w.WARCSerializer.serialize(response), w.WARCSerializer.serialize(request)])).map((b) => gzipSync(b));
    // Records are compressed concurrently and appended one exchange at a time.
    const turn = this.queue.then(async () => {
      await this.ensureFile();
      const offset = this.size;
      this.append(respBytes);
      this.append(reqBytes);
      return { file: this.path, offset, length: respBytes.length };
    });
    this.queue = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  private closeFile(): void {
    if (this.fd === undefined) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    renameSync(`${this.path}.open`, this.path);
    this.files.push(this.path);
    this.fd = undefined;
  }

  /** Waits for the appends under way, then closes the file. */
  async close(): Promise<void> {
    await this.queue;
    this.closeFile();
  }
}
