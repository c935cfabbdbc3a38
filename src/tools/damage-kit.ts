/**
 * Archives damaged in the ways real ones are, made on the spot: large gzip members with a
 * flipped byte or a bad CRC, lengths that lie by a few bytes or by megabytes, members cut
 * short and followed by good ones, garbage without a newline before a record. Each archive
 * comes with the URL and payload digest of every record that is undamaged, so a reader can be
 * held to indexing all of them, before and after the damage. Used by `npm run fuzz` and the
 * damage tests.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { base32 } from '../archive/digest.js';

export interface KitRecord {
  url: string;
  /** The record's bytes as stored (one gzip member each in gzip archives). */
  bytes: Buffer;
  /** SHA-1 base32 of the payload (what a CDX line's digest field holds). */
  digest: string;
}

export type DamageKind =
  | 'big-flip'
  | 'big-crc'
  | 'big-lying-length'
  | 'cut-then-good'
  | 'big-cut-then-good'
  | 'arc-gz-off-by-n'
  | 'arc-off-by-n'
  | 'warc-off-by-n'
  | 'warc-gz-off-by-n'
  | 'plain-lying-length'
  | 'garbage-no-newline'
  | 'trailing-bytes'
  | 'arc-bad-length';

export const DAMAGE_KINDS: DamageKind[] = [
  'big-flip',
  'big-crc',
  'big-lying-length',
  'cut-then-good',
  'big-cut-then-good',
  'arc-gz-off-by-n',
  'arc-off-by-n',
  'warc-off-by-n',
  'warc-gz-off-by-n',
  'plain-lying-length',
  'garbage-no-newline',
  'trailing-bytes',
  'arc-bad-length',
];

export interface DamagedArchive {
  kind: DamageKind;
  /** File name (its ending tells the format). */
  name: string;
  bytes: Buffer;
  /** Records that must be indexed, with their digests. */
  intact: Array<{ url: string; digest: string }>;
  /** URLs of the damaged records: skipped, or read with a warning (lengths that lie). */
  damaged: string[];
  /** Whether the reader must skip something (exit 3); false where a warning is the answer. */
  skips: boolean;
  /** Offset of the first damaged byte. */
  at: number;
}

const sha1 = (b: Buffer) => base32(createHash('sha1').update(b).digest());

/** An HTML page of about `size` bytes whose text differs with `seed`. */
export function page(size: number, seed: string): Buffer {
  const parts = [`<html><head><title>${seed}</title></head><body>\n`];
  let n = parts[0].length;
  for (let i = 0; n < size; i++) {
    const line = `<p>${seed} paragraph ${i}, value ${(i * 7919) % 1000003}</p>\n`;
    parts.push(line);
    n += line.length;
  }
  // No newline at the end: a length one byte short is then told from a separator's newline.
  parts.push('</body></html>');
  return Buffer.from(parts.join(''));
}

function httpHead(body: Buffer, version = 'HTTP/1.1'): Buffer {
  return Buffer.from(`${version} 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\n\r\n`);
}

/**
 * The digest a record whose length is `lie` bytes short is read with: its declared bytes, never
 * more (the bytes after them are no part of it).
 */
function shortDigest(body: Buffer, lie: number): string {
  return sha1(body.subarray(0, body.length + lie));
}

/** A WARC response record; `lie` is added to its Content-Length. */
export function warcResponse(url: string, body: Buffer, n: number, lie = 0): KitRecord {
  const block = Buffer.concat([httpHead(body), body]);
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const head = Buffer.from(
    `WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: ${url}\r\nWARC-Date: 2020-01-01T00:00:${String(n % 60).padStart(2, '0')}Z\r\n` +
      `WARC-Record-ID: <urn:uuid:${id}>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${block.length + lie}\r\n\r\n`,
  );
  return { url, bytes: Buffer.concat([head, block, Buffer.from('\r\n\r\n')]), digest: sha1(body) };
}

/** An ARC v1 record; `lie` is added to its length field. */
export function arcRecord(url: string, body: Buffer, lie = 0): KitRecord {
  const block = Buffer.concat([httpHead(body, 'HTTP/1.0'), body]);
  const head = Buffer.from(`${url} 192.0.2.1 20200101000000 text/html ${block.length + lie}\n`);
  return { url, bytes: Buffer.concat([head, block, Buffer.from('\n')]), digest: sha1(body) };
}

export const ARC_FILEDESC = Buffer.from(
  'filedesc://kit.arc 0.0.0.0 20200101000000 text/plain 76\n1 0 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n\n',
);

/** mulberry32: small, seedable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface KitOptions {
  /** Size of the "big" record's page: above the in-memory window (32 MiB by default) so it streams. */
  bigSize?: number;
}

/** What every kind of damage builds on: the small records around the damaged one, and a lie for a length field. */
interface Kit {
  kind: DamageKind;
  rand: () => number;
  bigSize: number;
  before: number;
  pre: KitRecord[];
  post: KitRecord[];
  preGz: Buffer[];
  postGz: Buffer[];
  intact: { url: string; digest: string }[];
  lie: number;
}

const gz = (b: Buffer) => gzipSync(b, { level: 1 });
const gzipAll = (parts: Buffer[]) => Buffer.concat(parts);
const startOf = (parts: Buffer[]) => parts.reduce((n, b) => n + b.length, 0);

/** big-flip, big-crc, big-cut-then-good */
function damageBigMember(k: Kit): DamagedArchive {
  const { kind, rand, bigSize, before, preGz, postGz, intact } = k;
  const big = warcResponse('http://example.org/big', page(kind === 'big-cut-then-good' ? bigSize / 4 : bigSize, 'big'), before);
  const member = Buffer.from(gz(big.bytes));
  let bad: Buffer;
  let at: number;
  if (kind === 'big-flip') {
    at = Math.floor(member.length * (0.2 + rand() * 0.6));
    for (let i = 0; i < 8; i++) member[at + i] ^= 1 + Math.floor(rand() * 255);
    bad = member;
  } else if (kind === 'big-crc') {
    at = member.length - 8 + Math.floor(rand() * 4);
    member[at] ^= 1 + Math.floor(rand() * 255);
    bad = member;
  } else {
    at = Math.floor(member.length * (0.1 + rand() * 0.8));
    bad = member.subarray(0, at);
  }
  return {
    kind,
    name: `${kind}.warc.gz`,
    bytes: gzipAll([...preGz, bad, ...postGz]),
    intact,
    damaged: [big.url],
    skips: true,
    at: startOf(preGz) + at,
  };
}

/** big-lying-length */
function damageBigLyingLength(k: Kit): DamagedArchive {
  const { kind, rand, bigSize, before, preGz, postGz, intact } = k;
  const liar = warcResponse('http://example.org/liar', page(2000, 'liar'), before, bigSize + Math.floor(rand() * 1000));
  return {
    kind,
    name: `${kind}.warc.gz`,
    bytes: gzipAll([...preGz, gz(liar.bytes), ...postGz]),
    intact: [...intact, { url: liar.url, digest: liar.digest }],
    damaged: [],
    skips: false,
    at: startOf(preGz),
  };
}

/** cut-then-good */
function damageCutThenGood(k: Kit): DamagedArchive {
  const { kind, rand, before, preGz, postGz, intact } = k;
  const victim = gz(warcResponse('http://example.org/cut', page(3000, 'cut'), before).bytes);
  const at = 10 + Math.floor(rand() * (victim.length - 10));
  return {
    kind,
    name: `${kind}.warc.gz`,
    bytes: gzipAll([...preGz, victim.subarray(0, at), ...postGz]),
    intact,
    damaged: ['http://example.org/cut'],
    skips: true,
    at: startOf(preGz) + at,
  };
}

/**
 * A page that ends in a newline, or not: a length a byte short then leaves a newline before
 * the separator, which must not pass for part of it (a gzip member's tail then no longer ends
 * in the separator alone). Plain files keep pages without one: there nothing tells a length
 * short by a newline from a separator's first newline.
 */
function oddPage(k: Kit, gzipped: boolean): Buffer {
  const body = page(1500, 'odd');
  return gzipped && k.rand() < 0.5 ? Buffer.concat([body, Buffer.from('\n')]) : body;
}

/**
 * arc-gz-off-by-n, arc-off-by-n: a length too long ends at the next record (a warning, the
 * true digest). A length too short: in .arc.gz the member shows the record's true end (the
 * bytes before its closing newline), read to there with a warning; in a plain ARC it is read as
 * declared, and the bytes after it, which start no record, are reported and skipped (exit 3).
 */
function damageArcOffByN(k: Kit): DamagedArchive {
  const { kind, before, pre, post, preGz, postGz, intact, lie } = k;
  const gzipped = kind === 'arc-gz-off-by-n';
  const body = oddPage(k, gzipped);
  const odd = arcRecord('http://example.org/odd', body, lie);
  const parts = gzipped
    ? [gz(ARC_FILEDESC), ...preGz, gz(odd.bytes), ...postGz]
    : [ARC_FILEDESC, ...pre.map((r) => r.bytes), odd.bytes, ...post.map((r) => r.bytes)];
  return {
    kind,
    name: gzipped ? `${kind}.arc.gz` : `${kind}.arc`,
    bytes: Buffer.concat(parts),
    intact: [...intact, { url: odd.url, digest: lie > 0 || gzipped ? odd.digest : shortDigest(body, lie) }],
    damaged: [],
    skips: lie < 0 && !gzipped,
    at: startOf(parts.slice(0, 1 + before)),
  };
}

/** warc-off-by-n, warc-gz-off-by-n: as the ARC kinds, with WARC's CRLF CRLF separator. */
function damageWarcOffByN(k: Kit): DamagedArchive {
  const { kind, before, pre, post, preGz, postGz, intact, lie } = k;
  const gzipped = kind === 'warc-gz-off-by-n';
  const body = oddPage(k, gzipped);
  const odd = warcResponse('http://example.org/odd', body, before, lie);
  const parts = gzipped ? [...preGz, gz(odd.bytes), ...postGz] : [...pre.map((r) => r.bytes), odd.bytes, ...post.map((r) => r.bytes)];
  return {
    kind,
    name: gzipped ? `${kind}.warc.gz` : `${kind}.warc`,
    bytes: Buffer.concat(parts),
    intact: [...intact, { url: odd.url, digest: lie > 0 || gzipped ? odd.digest : shortDigest(body, lie) }],
    damaged: [],
    skips: lie < 0 && !gzipped,
    at: startOf(parts.slice(0, before)),
  };
}

/** plain-lying-length */
function damagePlainLyingLength(k: Kit): DamagedArchive {
  const { kind, rand, bigSize, before, pre, post, intact } = k;
  const liar = warcResponse('http://example.org/liar', page(2000, 'liar'), before, bigSize + Math.floor(rand() * 1000));
  const parts = [...pre.map((r) => r.bytes), liar.bytes, ...post.map((r) => r.bytes)];
  return {
    kind,
    name: `${kind}.warc`,
    bytes: Buffer.concat(parts),
    intact,
    damaged: [liar.url],
    skips: true,
    at: startOf(parts.slice(0, before)),
  };
}

/**
 * The records with a fresh page each (ARC or WARC, as `rand` says), and `junk` put before
 * record `cut` (after the last where `cut` is their count): trailing-bytes and
 * garbage-no-newline. `place` chooses the junk, where it goes, and whether it is a skip.
 */
function junkAmongRecords(k: Kit, tag: string, place: (count: number) => { junk: Buffer; cut: number; skips: boolean }): DamagedArchive {
  const { kind, rand, pre, post } = k;
  const isArc = rand() < 0.5;
  const all = [...pre, ...post].map((r, i) => (isArc ? arcRecord(r.url, page(800, `${tag}${i}`)) : warcResponse(r.url, page(800, `${tag}${i}`), i)));
  const { junk, cut, skips } = place(all.length);
  const parts = [...(isArc ? [ARC_FILEDESC] : []), ...all.slice(0, cut).map((r) => r.bytes), junk, ...all.slice(cut).map((r) => r.bytes)];
  return {
    kind,
    name: isArc ? `${kind}.arc` : `${kind}.warc`,
    bytes: Buffer.concat(parts),
    intact: all.map((r) => ({ url: r.url, digest: r.digest })),
    damaged: [],
    skips,
    at: startOf(parts.slice(0, (isArc ? 1 : 0) + cut)),
  };
}

/**
 * trailing-bytes: bytes after a whole record (its separator included) that start no record: a
 * few letters or a line of garbage at the end of the file or between two records, or NUL
 * padding. Every record keeps its digest; the garbage is reported and skipped (exit 3), NULs
 * with a warning.
 */
function damageTrailingBytes(k: Kit): DamagedArchive {
  return junkAmongRecords(k, 't', (count) => {
    const variants = ['ga', 'garbage\n', '\0\0\0\0\0', 'x'];
    const junk = Buffer.from(variants[Math.floor(k.rand() * variants.length)], 'latin1');
    const between = k.rand() < 0.5;
    return { junk, cut: between ? k.before : count, skips: junk[0] !== 0 };
  });
}

/** arc-bad-length */
function damageArcBadLength(k: Kit): DamagedArchive {
  const { kind, rand, before, pre, post, preGz, postGz, intact } = k;
  // One record's ARC header length negative, not a number, or missing. In .arc.gz its
  // member bounds it: read from the member, less the member's closing newline (the ARC
  // separator is no part of the payload), with a warning and its true digest, where the line
  // still has its five fields, as CDX-Writer and warcio read one; skipped where it has four.
  // Never read into the record before it.
  const victim = arcRecord('http://example.org/bad-length', page(1500, 'bad length'));
  const eol = victim.bytes.indexOf(10);
  const field = ['-10', '-1', 'xyz', ''][Math.floor(rand() * 4)];
  const line = victim.bytes.toString('latin1', 0, eol).replace(/ \d+$/, field ? ` ${field}` : '');
  const bad = Buffer.concat([Buffer.from(line, 'latin1'), victim.bytes.subarray(eol)]);
  // Plain: no member bounds the record, so it is skipped whatever its length field says.
  const gzipped = rand() < 0.7;
  const parts = gzipped ? [gz(ARC_FILEDESC), ...preGz, gz(bad), ...postGz] : [ARC_FILEDESC, ...pre.map((r) => r.bytes), bad, ...post.map((r) => r.bytes)];
  const skipped = !gzipped || !field;
  return {
    kind,
    name: gzipped ? `${kind}.arc.gz` : `${kind}.arc`,
    bytes: Buffer.concat(parts),
    intact: skipped ? intact : [...intact, { url: victim.url, digest: victim.digest }],
    damaged: skipped ? [victim.url] : [],
    skips: skipped,
    at: startOf(parts.slice(0, 1 + before)),
  };
}

/** garbage-no-newline: a few letters of garbage between two records, reported and skipped. */
function damageGarbageNoNewline(k: Kit): DamagedArchive {
  return junkAmongRecords(k, 'g', () => ({ junk: Buffer.from('GARBAGE'.slice(0, 1 + Math.floor(k.rand() * 7))), cut: k.before, skips: true }));
}

const DAMAGE: Record<DamageKind, (k: Kit) => DamagedArchive> = {
  'big-flip': damageBigMember,
  'big-crc': damageBigMember,
  'big-cut-then-good': damageBigMember,
  'big-lying-length': damageBigLyingLength,
  'cut-then-good': damageCutThenGood,
  'arc-gz-off-by-n': damageArcOffByN,
  'arc-off-by-n': damageArcOffByN,
  'warc-off-by-n': damageWarcOffByN,
  'warc-gz-off-by-n': damageWarcOffByN,
  'plain-lying-length': damagePlainLyingLength,
  'trailing-bytes': damageTrailingBytes,
  'arc-bad-length': damageArcBadLength,
  'garbage-no-newline': damageGarbageNoNewline,
};

/**
 * One damaged archive of `kind`: a few small records, the damaged one somewhere among them
 * (chosen with `rand`), more small records after it.
 */
export function makeDamaged(kind: DamageKind, rand: () => number, opts: KitOptions = {}): DamagedArchive {
  const bigSize = opts.bigSize ?? 40 << 20;
  const before = 1 + Math.floor(rand() * 3);
  const after = 2 + Math.floor(rand() * 3);
  const small = (i: number, make: (url: string, body: Buffer, n: number) => KitRecord) =>
    make(`http://example.org/page-${i}`, page(500 + Math.floor(rand() * 4000), `page ${i}`), i);
  const warc = (url: string, body: Buffer, n: number) => warcResponse(url, body, n);
  const arc = (url: string, body: Buffer) => arcRecord(url, body);
  const pre = Array.from({ length: before }, (_, i) => small(i, kind.startsWith('arc') ? arc : warc));
  const post = Array.from({ length: after }, (_, i) => small(before + 1 + i, kind.startsWith('arc') ? arc : warc));
  const intact = [...pre, ...post].map((r) => ({ url: r.url, digest: r.digest }));
  const preGz = pre.map((r) => gz(r.bytes));
  const postGz = post.map((r) => gz(r.bytes));
  let lie = (1 + Math.floor(rand() * 6)) * (rand() < 0.5 ? -1 : 1);
  // A record whose length also counts its separator (ARC +1, WARC +4) is read as the length
  // says, as the reference indexers read it: the next record starts right there (in gzip, the
  // member ends there), and nothing tells those bytes from a payload's own last newlines.
  if ((kind.startsWith('arc') && lie === 1) || (kind.startsWith('warc') && lie === 4)) lie = 2;

  return DAMAGE[kind]({ kind, rand, bigSize, before, pre, post, preGz, postGz, intact, lie });
}
