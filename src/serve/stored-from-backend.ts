/**
 * A shard front's /stored: the stored copy asked of the backend that holds the set, passed on
 * only where the front's own rules allow its capture (a front with rules enforces them whatever
 * its backends do). The backend names the capture in a header (stored.ts); a copy that comes
 * without one is not passed on where the front has rules: closed when in doubt.
 */
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import type { AccessPolicy } from '../access/policy.js';
import type { ShardSearcher } from './shards.js';
import { CAPTURE_HEADER } from './stored.js';

/** The headers of a stored copy that the front passes on. */
const PASSED = [
  'location',
  'content-type',
  'content-encoding',
  'content-security-policy',
  'x-content-type-options',
  'x-archive-src',
  CAPTURE_HEADER.toLowerCase(),
];

export async function storedFromBackend(
  shards: ShardSearcher,
  set: string,
  doc: number,
  res: ServerResponse,
  user: string | undefined,
  policy: AccessPolicy | undefined,
): Promise<'sent' | 'none' | 'blocked'> {
  // (A backend's redirect to replay is passed on, as its copy is, where the capture it names is allowed.)
  const url = shards.storedUrl(set, doc);
  if (!url) return 'none';
  const r = await request(url, { headers: shards.userHeaders(user) });
  if (r.statusCode === 404 || r.statusCode === 451) {
    await r.body.dump();
    return r.statusCode === 451 ? 'blocked' : 'none';
  }
  if (policy?.active) {
    const capture = r.headers[CAPTURE_HEADER.toLowerCase()];
    const m = typeof capture === 'string' ? /^(\d{14}) (\S+)$/.exec(capture) : null;
    const access = m ? policy.decide(m[2], m[1], user).access : 'exclude';
    if (access !== 'allow') {
      await r.body.dump();
      return access === 'block' ? 'blocked' : 'none';
    }
  }
  const headers: Record<string, string> = {};
  for (const h of PASSED) {
    const v = r.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  res.writeHead(r.statusCode, headers);
  for await (const chunk of r.body) if (!res.write(chunk)) await new Promise((ok) => res.once('drain', ok));
  res.end();
  return 'sent';
}
