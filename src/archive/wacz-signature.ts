/**
 * The signature of a WACZ package (WACZ Signing and Verification 0.1.0): datapackage-digest.json's
 * `signedData` signs the hash of datapackage.json, either with the key of a domain's TLS
 * certificate (`domain`, `domainCert`: authsign's domain identity) or anonymously with the
 * `publicKey` it carries (ArchiveWeb.page). Checked here: the signed hash is the digest's own,
 * the ECDSA signature over it verifies with that key (DER, or WebCrypto's r||s), and a domain
 * certificate names the domain, was valid when the package says it was signed, and its chain
 * (the certificates `domainCert` carries after it) leads to a root Node.js trusts
 * (tls.rootCertificates, Mozilla's store): a staging or self-made certificate signs nothing.
 * A domain signature's RFC 3161 timestamp is checked too (wacz-timestamp.ts), as authsign's
 * verifier requires it.
 */
import { X509Certificate, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { certificateChain, timestampProblem, type Timestamped } from './wacz-timestamp.js';

let roots: X509Certificate[] | undefined;

/** undefined when the chain (leaf first, each signed by the next) reaches a trusted root, else why not. */
function trustedChain(chain: X509Certificate[]): string | undefined {
  for (let i = 0; i + 1 < chain.length; i++) {
    if (!chain[i].checkIssued(chain[i + 1]) || !chain[i].verify(chain[i + 1].publicKey))
      return `the certificate chain is broken after ${chain[i].subject.replace(/\n/g, ', ')}`;
  }
  roots ??= rootCertificates.map((pem) => new X509Certificate(pem));
  for (const c of chain) {
    // A root of the store itself, or a certificate one of them issued.
    if (roots.some((r) => (r.subject === c.subject && r.publicKey.equals(c.publicKey)) || (c.checkIssued(r) && c.verify(r.publicKey)))) return undefined;
  }
  return `the domain certificate's chain leads to no trusted root (it ends at ${chain[chain.length - 1].issuer.replace(/\n/g, ', ')})`;
}

export interface SignedData extends Timestamped {
  hash?: string;
  created?: string;
  signature?: string;
  domain?: string;
  domainCert?: string;
  publicKey?: string;
}

/** undefined when the signature holds, else what is wrong with it. */
export async function signatureProblem(digestHash: string | undefined, s: SignedData): Promise<string | undefined> {
  if (!s.signature || !s.hash) return 'signedData has no signature or no hash';
  if (s.hash !== digestHash) return `the signed hash ${s.hash} is not datapackage-digest.json's ${digestHash}`;
  let key: KeyObject;
  let who: string;
  if (s.domainCert) {
    // The first certificate of the chain is the domain's own.
    const chain = certificateChain(s.domainCert, 'domainCert');
    if (typeof chain === 'string') return chain;
    const cert = chain[0];
    if (!s.domain || !cert.checkHost(s.domain))
      return `the certificate is not ${s.domain ?? 'any domain the signature names'}'s (${cert.subject.replace(/\n/g, ', ')})`;
    const created = Date.parse(s.created ?? '');
    if (!(created >= Date.parse(cert.validFrom) && created <= Date.parse(cert.validTo)))
      return `signed ${s.created ?? 'at no stated time'}, outside the certificate's validity (${cert.validFrom} to ${cert.validTo})`;
    const untrusted = trustedChain(chain);
    if (untrusted) return untrusted;
    key = cert.publicKey;
    who = s.domain;
  } else if (s.publicKey) {
    try {
      key = createPublicKey({ key: Buffer.from(s.publicKey, 'base64'), format: 'der', type: 'spki' });
    } catch (err) {
      return `publicKey: ${(err as Error).message}`;
    }
    who = 'its anonymous key';
  } else return 'signedData names neither a domain certificate nor a public key';
  const sig = Buffer.from(s.signature, 'base64');
  const data = Buffer.from(s.hash);
  const ok = (['der', 'ieee-p1363'] as const).some((dsaEncoding) => {
    try {
      return verify('sha256', data, { key, dsaEncoding }, sig);
    } catch {
      return false;
    }
  });
  if (!ok) return `the signature does not verify with ${who}'s key`;
  return s.domainCert ? timestampProblem(s) : undefined;
}
