/** SHA-1 digests in the base32 form that CDX files carry. */
import { createHash, type Hash } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

export function sha1Hasher(): Hash {
  return createHash('sha1');
}

export function sha1Base32(data: Uint8Array): string {
  return base32(createHash('sha1').update(data).digest());
}

/**
 * A declared digest (`sha1:XXXX`, any case; base32, hex, base64 or base64url) as bare upper-case base32,
 * so that digests written by different tools compare equal. Other algorithms keep their
 * prefix and value as written (`sha256:9d63...`).
 */
export function normalizeDigest(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const v = value.trim();
  const colon = v.indexOf(':');
  const algo = colon >= 0 ? v.slice(0, colon).toLowerCase() : 'sha1';
  const body = colon >= 0 ? v.slice(colon + 1) : v;
  if (algo !== 'sha1' && algo !== 'sha-1') return v;
  if (/^[0-9a-f]{40}$/i.test(body)) return base32(Buffer.from(body, 'hex'));
  if (/^[A-Za-z0-9+/_-]{27}=$/.test(body)) return base32(Buffer.from(body, 'base64'));
  return body.toUpperCase();
}

/**
 * A record's payload checked against the digest it declares (as normalizeDigest gives it):
 * SHA-1 or SHA-256, in base32, hex or base64. `verdict()` once the payload is through: `ok`, or
 * why the record cannot be vouched for (`digest-mismatch`: the bytes are not those digested;
 * `no-digest`: it declares none, or one of an algorithm not computed here).
 */
export class PayloadCheck {
  private readonly hash: Hash | undefined;
  private readonly algorithm: 'sha1' | 'sha256' | undefined;

  constructor(private readonly declared: string | undefined) {
    const colon = declared?.indexOf(':') ?? -1;
    const algo = declared === undefined ? undefined : colon < 0 ? 'sha1' : declared.slice(0, colon).toLowerCase().replace('-', '');
    this.algorithm = algo === 'sha1' || algo === 'sha256' ? algo : undefined;
    this.hash = this.algorithm && createHash(this.algorithm);
  }

  update(chunk: Uint8Array): void {
    this.hash?.update(chunk);
  }

  verdict(): 'ok' | 'digest-mismatch' | 'no-digest' {
    if (!this.hash || !this.declared) return 'no-digest';
    const got = this.hash.digest();
    const said = this.declared.includes(':') ? this.declared.slice(this.declared.indexOf(':') + 1) : this.declared;
    const forms = [base32(got), got.toString('hex'), got.toString('base64'), got.toString('base64url')];
    return forms.some((f) => f.toLowerCase() === said.replace(/=+$/, '').toLowerCase() || f.toLowerCase() === said.toLowerCase()) ? 'ok' : 'digest-mismatch';
  }
}
