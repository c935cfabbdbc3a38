/**
 * The signature of a WACZ package (WACZ Signing and Verification 0.1.0): datapackage-digest.json's
 * `signedData` signs the hash of datapackage.json, either with the key of a domain's TLS
 * certificate (`domain`, `domainCert`: authsign's domain identity) or anonymously with the
 * `publicKey` it carries (ArchiveWeb.page). Checked here: the signed hash is the digest's own,
 * the ECDSA signature over it verifies with that key (DER, or WebCrypto's r||s), and a domain
 * certificate names the domain and was valid when the package says it was signed. Not checked:
 * the certificate's chain to a trusted root and the RFC 3161 timestamp (`timeSignature`), which
 * authsign's verifier also requires.
 */
import { X509Certificate, createPublicKey, verify, type KeyObject } from 'node:crypto';

export interface SignedData {
  hash?: string;
  created?: string;
  signature?: string;
  domain?: string;
  domainCert?: string;
  publicKey?: string;
}

/** undefined when the signature holds, else what is wrong with it. */
export function signatureProblem(digestHash: string | undefined, s: SignedData): string | undefined {
  if (!s.signature || !s.hash) return 'signedData has no signature or no hash';
  if (s.hash !== digestHash) return `the signed hash ${s.hash} is not datapackage-digest.json's ${digestHash}`;
  let key: KeyObject;
  let who: string;
  if (s.domainCert) {
    // The first certificate of the chain is the domain's own.
    const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(s.domainCert)?.[0];
    if (!pem) return 'domainCert holds no certificate';
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(pem);
    } catch (err) {
      return `domainCert: ${(err as Error).message}`;
    }
    if (!s.domain || !cert.checkHost(s.domain)) return `the certificate is not ${s.domain ?? 'any domain the signature names'}'s (${cert.subject.replace(/\n/g, ', ')})`;
    const created = Date.parse(s.created ?? '');
    if (!(created >= Date.parse(cert.validFrom) && created <= Date.parse(cert.validTo))) return `signed ${s.created ?? 'at no stated time'}, outside the certificate's validity (${cert.validFrom} to ${cert.validTo})`;
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
  return ok ? undefined : `the signature does not verify with ${who}'s key`;
}
