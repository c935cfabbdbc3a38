/**
 * The RFC 3161 timestamp of a WACZ signed with a domain certificate (WACZ Signing and
 * Verification 0.1.0, as authsign writes and verifies it): `timeSignature` is a time-stamp
 * authority's TimeStampResp (base64 DER) over the SHA-256 of `signature` (its base64 text),
 * `timestampCert` the authority's certificate chain (PEM, its root last). A domain certificate
 * lives for weeks; the timestamp is what says the package was signed while it was valid.
 * Checked as authsign's verifier checks it: the token's message imprint is the signature's
 * hash, the authority's CMS signature over the token verifies with its certificate, that
 * certificate chains to a trusted timestamp root, and the time stamped is within ten minutes
 * after `created`. The CMS and TSTInfo are read by PKI.js (PeculiarVentures), not by hand.
 */
import { X509Certificate, webcrypto } from 'node:crypto';

/**
 * SHA-256 fingerprints of the timestamp roots trusted, as authsign's `trusted/roots.yaml`
 * lists them (the authorities Webrecorder's signing uses): freetsa.org's root. Node's TLS store
 * holds web server roots only; a time-stamp authority is trusted by name, like this.
 */
const TIMESTAMP_ROOTS = new Set(['a6379e7cecc05faa3cbf076013d745e327bbbaa38c0b9af22469d4701d18aabc']);
/** How long after `created` the timestamp may be (authsign's STAMP_DURATION). */
const STAMP_WITHIN_MS = 10 * 60 * 1000;

export interface Timestamped {
  signature?: string;
  created?: string;
  timeSignature?: string;
  timestampCert?: string;
}

/** The certificates of a PEM chain (`field` names it), or what is wrong with it. */
export function certificateChain(pem: string, field: string): X509Certificate[] | string {
  const pems = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!pems) return `${field} holds no certificate`;
  try {
    return pems.map((p) => new X509Certificate(p));
  } catch (err) {
    return `${field}: ${(err as Error).message}`;
  }
}

const fingerprint = (c: X509Certificate) => c.fingerprint256.replace(/:/g, '').toLowerCase();

/** undefined when the timestamp holds, else what is wrong with it. */
export async function timestampProblem(s: Timestamped): Promise<string | undefined> {
  if (!s.timeSignature || !s.timestampCert) return 'the signature has no RFC 3161 timestamp (timeSignature, timestampCert), which a domain signature needs';
  const chain = certificateChain(s.timestampCert, 'timestampCert');
  if (typeof chain === 'string') return chain;
  const root = chain[chain.length - 1];
  if (!TIMESTAMP_ROOTS.has(fingerprint(root)))
    return `the timestamp certificate's chain leads to no trusted timestamp root (it ends at ${root.subject.replace(/\n/g, ', ')})`;
  const pkijs = await import('pkijs');
  pkijs.setEngine(
    'node',
    new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'] }),
  );
  let signed: InstanceType<typeof pkijs.SignedData>;
  let genTime: Date;
  try {
    const resp = pkijs.TimeStampResp.fromBER(Buffer.from(s.timeSignature, 'base64'));
    // 0: granted, 1: granted with modifications.
    if (resp.status.status > 1 || !resp.timeStampToken) return `timeSignature: the authority did not grant the timestamp (status ${resp.status.status})`;
    signed = new pkijs.SignedData({ schema: resp.timeStampToken.content });
    genTime = pkijs.TSTInfo.fromBER(signed.encapContentInfo.eContent!.getValue()).genTime;
  } catch (err) {
    return `timeSignature: not an RFC 3161 timestamp response (${(err as Error).message})`;
  }
  // The token carries no certificate (authsign asks for none): the chain given beside it.
  const certs = chain.map((c) => pkijs.Certificate.fromBER(c.raw));
  signed.certificates = certs.slice(0, -1);
  const result = await signed
    .verify({
      signer: 0,
      data: new TextEncoder().encode(s.signature ?? '').buffer,
      trustedCerts: certs.slice(-1),
      checkChain: true,
      extendedMode: true,
    })
    .catch((err: { message?: string; signatureVerified?: boolean | null; signerCertificateVerified?: boolean | null }) => err);
  if (!result.signatureVerified) {
    const why = /TSTInfo verification/i.test(result.message ?? '')
      ? "it stamps another signature (its message imprint is not this signature's SHA-256)"
      : "the authority's signature over it does not verify";
    return `the RFC 3161 timestamp does not hold: ${why}`;
  }
  if (!result.signerCertificateVerified)
    return `the RFC 3161 timestamp does not hold: its certificate does not chain to ${root.subject.replace(/\n/g, ', ')} (${result.message ?? 'chain not verified'})`;
  const created = Date.parse(s.created ?? '');
  const stamped = Math.floor(genTime.getTime() / 1000) * 1000;
  if (!(stamped >= created && stamped <= created + STAMP_WITHIN_MS))
    return `the RFC 3161 timestamp (${genTime.toISOString()}) is not within ten minutes after the signature's date (${s.created ?? 'none'})`;
  return undefined;
}
