/**
 * Who may ask a backend's shard protocol (/api/shard/*: counts of every document holding a
 * word, withheld ones included, which no member of the public may see) and name a user class
 * in the user header: a request carrying the shared secret (`nwax.serve.shard.key`, header
 * `X-Nwax-Shard-Key`; a shard front sends it), or one from `nwax.access.trusted.proxies`
 * (loopback by default). Anyone else is the public, and the shard protocol is closed to them.
 */
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { addressList, inList } from '../access/policy.js';

/** The header a shard front sends its secret in. */
export const SHARD_KEY_HEADER = 'x-nwax-shard-key';

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

export class ShardTrust {
  private readonly key: Buffer | undefined;
  private readonly proxies;

  constructor(key: string | undefined, proxies: string[] | undefined) {
    this.key = key ? Buffer.from(key) : undefined;
    this.proxies = addressList(proxies ?? LOOPBACK, 'nwax.access.trusted.proxies');
  }

  /** Whether the request comes from a front or proxy this service believes. */
  vouched(req: IncomingMessage): boolean {
    if (this.key) {
      const h = req.headers[SHARD_KEY_HEADER];
      const given = Buffer.from((Array.isArray(h) ? h[0] : h) ?? '');
      // Compared in constant time: a secret found a byte at a time by its answer's speed is none.
      if (given.length === this.key.length && timingSafeEqual(given, this.key)) return true;
    }
    return inList(this.proxies, req.socket.remoteAddress);
  }
}
