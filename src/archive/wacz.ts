/**
 * WACZ packages (Webrecorder's Web Archive Collection Zipped, spec 1.1.1) read where they lie:
 * a ZIP whose `archive/*.warc(.gz)` entries are WARCs like any other. A package given as an
 * input stands for its WARC entries, each named `PACKAGE#ENTRY`
 * (`coll/example.wacz#archive/data.warc.gz`), and that name is a location like a file's path:
 * the reader, stored copies and replay open it again. A stored entry (WACZ writers store the
 * WARCs, already gzipped) is a byte range of the package, read by offset; a deflated one is
 * inflated as a stream. `datapackage.json` gives each resource's SHA-256: an entry whose bytes
 * do not match is named and left out. The ZIP itself (central directory, ZIP64, local headers)
 * is read by yauzl.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import yauzl from 'yauzl';
import { InputError, describeFsError } from '../util/errors.js';
import { isClusterPath, isRemote, type ByteRange, type ByteSource, type RemoteOptions } from './locations.js';
import { openFileRange } from './file-source.js';
import { sliceStream } from './byte-slice.js';
import { signatureProblem, type SignedData } from './wacz-signature.js';

/** One entry of a package, where its bytes lie. */
export interface PackageEntry {
  name: string;
  /** Stored (0) entries are byte ranges of the package; others are inflated as they are read. */
  stored: boolean;
  /** Offset of the entry's data in the package (past its local header). */
  dataStart: number;
  /** Bytes of the entry once extracted. */
  size: number;
  compressedSize: number;
  entry: yauzl.Entry;
}

export interface WaczPackage {
  path: string;
  /** Where its bytes are read: the path, or this machine's copy of a package on a cluster (cluster-copy.ts). */
  readPath: string;
  entries: Map<string, PackageEntry>;
  /** The WARC entries (archive/...), in the package's order. */
  warcs: string[];
  /** datapackage.json's hashes by resource path ("sha256:HEX"), where it has them. */
  hashes: Map<string, string>;
  zip: yauzl.ZipFile;
}

const WARC_ENTRY = /^archive\/[^/].*\.(warc|arc)(\.gz)?$/i;

/** Whether `path` names a package (by its extension, as WACZ tools do). */
export function isPackage(path: string): boolean {
  return /\.wacz$/i.test(path);
}

/** `PACKAGE#ENTRY` split in two, or undefined for any other path. */
export function splitLocation(location: string): { pkg: string; entry: string } | undefined {
  const m = /^(.*\.wacz)#(.+)$/i.exec(location);
  return m ? { pkg: m[1], entry: m[2] } : undefined;
}

function promised<T>(f: (cb: (err: Error | null, v: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => f((err, v) => (err ? reject(err) : resolve(v))));
}

/** Packages opened lately, by path and modification time: a replay reads one record at a time. */
const opened = new Map<string, { mtimeMs: number; pkg: Promise<WaczPackage> }>();
const KEEP_OPEN = 16;

/** Opens a package, local or on a web server: its central directory, each entry's data offset and datapackage.json's hashes. */
export async function openPackage(path: string, remote: RemoteOptions = DEFAULT_REMOTE): Promise<WaczPackage> {
  let stamp: number;
  if (isRemote(path) || isClusterPath(path)) stamp = 0;
  else {
    try {
      stamp = (await fsp.stat(path)).mtimeMs;
    } catch (err) {
      throw new InputError(describeFsError(path, err as NodeJS.ErrnoException));
    }
  }
  const cached = opened.get(path);
  if (cached && cached.mtimeMs === stamp) return cached.pkg;
  const pkg = readPackage(path, remote);
  opened.set(path, { mtimeMs: stamp, pkg });
  pkg.catch(() => opened.delete(path));
  if (opened.size > KEEP_OPEN) {
    const [oldest, was] = opened.entries().next().value!;
    opened.delete(oldest);
    void was.pkg.then(release, () => {});
  }
  return pkg;
}

/** The package's ZIP closed and a cluster package's local copy removed. */
function release(pkg: WaczPackage): void {
  pkg.zip.close();
  if (pkg.readPath !== pkg.path) void import('./cluster-copy.js').then((c) => c.removeCopy(pkg.readPath));
}

/**
 * A package let go (the import of a manifest's package line is done with it): a cluster
 * package's local copy is removed now rather than when it falls out of the open packages.
 */
export async function closePackage(path: string): Promise<void> {
  const was = opened.get(path);
  if (!was) return;
  opened.delete(path);
  await was.pkg.then(release, () => {});
}

const DEFAULT_REMOTE: RemoteOptions = { timeout: 10_000, retries: 3 };

/** A package on a web server, as yauzl reads a ZIP: by byte ranges (its directory first, from its end). */
class RangeReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly url: string,
    private readonly remote: RemoteOptions,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const { url, remote } = this;
    return Readable.from(
      (async function* () {
        const { openRemoteSource } = await import('./remote-source.js');
        const source = await openRemoteSource(url, remote, { offset: start, length: end - start });
        const it = source.chunks();
        for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
      })(),
    );
  }
}

async function openZip(path: string, remote: RemoteOptions): Promise<yauzl.ZipFile> {
  const options = { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true };
  if (!isRemote(path)) return promised<yauzl.ZipFile>((cb) => yauzl.open(path, options, cb));
  const { remoteSize } = await import('./remote-source.js');
  const size = await remoteSize(path, remote);
  return promised<yauzl.ZipFile>((cb) => yauzl.fromRandomAccessReader(new RangeReader(path, remote), size, options, cb));
}

async function readPackage(path: string, remote: RemoteOptions): Promise<WaczPackage> {
  const readPath = isClusterPath(path) ? await (await import('./cluster-copy.js')).copyFromCluster(path, remote.hadoop) : path;
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(readPath, remote);
  } catch (err) {
    if (readPath !== path) (await import('./cluster-copy.js')).removeCopy(readPath);
    if (err instanceof InputError) throw err;
    throw new InputError(`${path}: not a WACZ package: ${zipProblem(err as Error)}`);
  }
  try {
    return await readEntries(path, readPath, zip);
  } catch (err) {
    if (readPath !== path) (await import('./cluster-copy.js')).removeCopy(readPath);
    throw err;
  }
}

/**
 * Whether a ZIP of WARCs without datapackage.json is read as a package (`nwax.wacz.lenient`,
 * set from the configuration when a command or task starts: every reader of packages in the
 * process, replay's included, reads them the same way). py-wacz refuses such a ZIP; so does nwax
 * by default.
 */
let lenient = false;
export function readPackagesLeniently(on: boolean): void {
  lenient = on;
}

/** The package's entries, datapackage.json's hashes checked against its digest and signature. */
async function readEntries(path: string, readPath: string, zip: yauzl.ZipFile): Promise<WaczPackage> {
  const entries = new Map<string, PackageEntry>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (e: yauzl.Entry) => {
        if (/\/$/.test(e.fileName)) return zip.readEntry();
        zip.readLocalFileHeader(e, { minimal: true }, (err, header) => {
          if (err) return reject(err);
          entries.set(e.fileName, {
            name: e.fileName,
            stored: e.compressionMethod === 0,
            dataStart: header.fileDataStart,
            size: e.uncompressedSize,
            compressedSize: e.compressedSize,
            entry: e,
          });
          zip.readEntry();
        });
      });
      zip.once('end', () => resolve());
      zip.once('error', reject);
      zip.readEntry();
    });
  } catch (err) {
    zip.close();
    throw new InputError(`${path}: not a WACZ package: ${zipProblem(err as Error)}`);
  }
  const pkg: WaczPackage = { path, readPath, entries, warcs: [...entries.keys()].filter((n) => WARC_ENTRY.test(n)), hashes: new Map(), zip };
  const dp = entries.get('datapackage.json');
  if (!dp && !lenient) {
    zip.close();
    throw new InputError(
      `${path}: not a WACZ package: no datapackage.json (WACZ 1.1.1 requires it, and py-wacz refuses a package without it; -D nwax.wacz.lenient=true reads its WARCs unchecked)`,
    );
  }
  if (dp) {
    let json: { resources?: { path?: string; hash?: string }[] };
    const bytes = await entryBytes(pkg, dp);
    // datapackage-digest.json vouches for datapackage.json (and is what a signature signs):
    // hashes it does not vouch for are not believed.
    const digestEntry = entries.get('datapackage-digest.json');
    if (digestEntry) {
      let said: string | undefined;
      let signed: SignedData | undefined;
      try {
        ({ hash: said, signedData: signed } = JSON.parse((await entryBytes(pkg, digestEntry)).toString('utf8')) as { hash?: string; signedData?: SignedData });
      } catch (err) {
        zip.close();
        throw new InputError(`${path}: datapackage-digest.json: not JSON (${(err as Error).message})`);
      }
      const got = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      if (said && said.toLowerCase() !== got) {
        zip.close();
        throw new InputError(`${path}: datapackage.json's SHA-256 is ${got}, datapackage-digest.json says ${said}; package left out`);
      }
      // A signed package whose signature fails was changed after it was signed.
      const bad = signed && (await signatureProblem(said, signed));
      if (bad) {
        zip.close();
        throw new InputError(`${path}: datapackage-digest.json: ${bad}; package left out`);
      }
    }
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      zip.close();
      throw new InputError(`${path}: datapackage.json: not JSON (${(err as Error).message})`);
    }
    for (const r of json.resources ?? []) if (r.path && r.hash) pkg.hashes.set(r.path, r.hash);
  }
  if (pkg.warcs.length === 0) {
    zip.close();
    throw new InputError(
      `${path}: not a WACZ package: no archive/*.warc or *.warc.gz entry (entries: ${[...entries.keys()].slice(0, 8).join(', ') || 'none'})`,
    );
  }
  return pkg;
}

function zipProblem(err: Error): string {
  return /end of central directory/i.test(err.message) ? 'not a ZIP file (no end of central directory record)' : err.message;
}

function openEntryStream(pkg: WaczPackage, e: PackageEntry): Promise<Readable> {
  return promised<Readable>((cb) => pkg.zip.openReadStream(e.entry, cb));
}

async function entryBytes(pkg: WaczPackage, e: PackageEntry): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of await openEntryStream(pkg, e)) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** The entry's SHA-256 as datapackage.json writes it ("sha256:HEX"). */
async function entryHash(pkg: WaczPackage, e: PackageEntry): Promise<string> {
  const h = createHash('sha256');
  for await (const c of await openEntryStream(pkg, e)) h.update(c as Buffer);
  return `sha256:${h.digest('hex')}`;
}

/** A package left out (unreadable), or an entry of it (its digest does not match). */
export interface PackageProblem {
  file: string;
  message: string;
  /**
   * 'unreadable': the package (exit 1, as an unreadable file); 'wacz-digest': an entry whose
   * SHA-256 is not datapackage.json's, read record by record, each vouched for by its own
   * digest (the records that are not, skipped).
   */
  reason: 'unreadable' | 'wacz-digest';
}

/** The SHA-256 of an entry: a stored one of a local package on a worker thread (a core of its own), else here. */
function hashEntry(pkg: WaczPackage, e: PackageEntry): Promise<string> {
  if (!e.stored || isRemote(pkg.readPath)) return entryHash(pkg, e);
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./hash-worker.js', import.meta.url), { workerData: { path: pkg.readPath, start: e.dataStart, length: e.size } });
    w.once('message', (hex: string) => resolve(`sha256:${hex}`));
    w.once('error', reject);
    w.once('exit', (code) => reject(new InputError(`${pkg.path}: entry ${e.name}: hashing ended without a result (thread exit code ${code})`)));
  });
}

/** What is said of an entry whose SHA-256 is not datapackage.json's. */
export function mismatch(pkg: string, entry: string, got: string, want: string, strict: boolean): string {
  return `${pkg}: entry ${entry}: its SHA-256 is ${got}, datapackage.json says ${want}; ${strict ? 'package refused (--strict)' : 'its records read one by one, each checked by its own digest'}`;
}

/** What an entry's check finds: undefined when datapackage.json's SHA-256 is its own, else why not. */
export type EntryCheck = () => Promise<string | undefined>;

/**
 * The inputs with every package replaced by its WARC entries (`PACKAGE#ENTRY`); other inputs
 * pass unchanged. Each entry is checked against datapackage.json's SHA-256: with `verify`
 * 'first' here, with 'later' the checks are returned, for the caller to run while it reads the
 * entry (the hash then costs a core, not time) and to act on one that fails as here. An entry
 * that does not match is named, and is read record by record, each record vouched for by its
 * own payload digest (`byRecord`: one damaged record does not cost the others); `strict`
 * refuses the package instead, as an unreadable file.
 */
export async function expandPackages(
  files: string[],
  opts: { verify?: 'first' | 'later'; remote?: RemoteOptions; strict?: boolean } = {},
): Promise<{ files: string[]; problems: PackageProblem[]; checks: Map<string, EntryCheck>; byRecord: Set<string> }> {
  const out: string[] = [];
  const problems: PackageProblem[] = [];
  const checks = new Map<string, EntryCheck>();
  const byRecord = new Set<string>();
  for (const f of files) {
    if (!isPackage(f) || /^file:/i.test(f)) {
      out.push(f);
      continue;
    }
    let pkg: WaczPackage;
    try {
      pkg = await openPackage(f, opts.remote);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      problems.push({ file: f, message: err.message, reason: 'unreadable' });
      continue;
    }
    const entries: string[] = [];
    let refused: string | undefined;
    for (const name of pkg.warcs) {
      const want = pkg.hashes.get(name);
      const location = `${f}#${name}`;
      const check: EntryCheck = async () => {
        const got = await hashEntry(pkg, pkg.entries.get(name)!);
        return got === want!.toLowerCase() ? undefined : mismatch(f, name, got, want!, opts.strict === true);
      };
      if (want && opts.verify === 'later') checks.set(location, check);
      else if (want) {
        const bad = await check();
        if (bad && opts.strict) {
          refused = bad;
          break;
        }
        if (bad) {
          problems.push({ file: location, message: bad, reason: 'wacz-digest' });
          byRecord.add(location);
        }
      }
      entries.push(location);
    }
    if (refused) problems.push({ file: f, message: refused, reason: 'unreadable' });
    else out.push(...entries);
  }
  return { files: out, problems, checks, byRecord };
}

/**
 * The bytes of one WARC entry (`location` is PACKAGE#ENTRY), all of them or a range of them
 * (offsets within the entry, as the entry's CDX lines give them).
 */
export async function openEntrySource(location: string, range?: ByteRange, remote: RemoteOptions = DEFAULT_REMOTE): Promise<ByteSource> {
  const at = splitLocation(location)!;
  const pkg = await openPackage(at.pkg, remote);
  const e = pkg.entries.get(at.entry);
  if (!e) throw new InputError(`${at.pkg}: no entry ${at.entry} in the package`);
  const fileName = `${basename(at.pkg.replace(/[?].*$/, ''))}#${at.entry}`;
  if (e.stored) {
    // A stored entry is a byte range of the package: read by offset, and again after damage.
    const from = range?.offset ?? 0;
    const length = Math.max(0, Math.min(range?.length ?? Infinity, e.size - from));
    // The package itself is a local file (a cluster's package was copied to one) or remote.
    const at = { offset: e.dataStart + from, length };
    const inner = isRemote(pkg.readPath)
      ? await (await import('./remote-source.js')).openRemoteSource(pkg.readPath, remote, at)
      : await openFileRange(pkg.readPath, at);
    return {
      ...inner,
      name: range ? `${location} at ${from}` : location,
      fileName,
      size: length,
      chunks: inner.chunks,
      reopen: inner.reopen,
      close: inner.close,
    };
  }
  // A compressed entry is inflated from its start; a range skips the bytes before it.
  let stream: Readable | undefined;
  const chunks = async function* (): AsyncGenerator<Buffer> {
    stream = await openEntryStream(pkg, e);
    yield* sliceStream(stream as AsyncIterable<Buffer>, range).chunks;
  };
  return { name: location, fileName, size: range?.length ?? e.size, chunks: () => chunks(), close: () => stream?.destroy() };
}

/** The lines of a text entry of a package (pages/pages.jsonl), streamed; none when the package has no such entry. */
export async function* entryLines(pkgPath: string, name: string, remote: RemoteOptions = DEFAULT_REMOTE): AsyncGenerator<string> {
  const pkg = await openPackage(pkgPath, remote);
  const e = pkg.entries.get(name);
  if (!e) return;
  const { createInterface } = await import('node:readline');
  yield* createInterface({ input: await openEntryStream(pkg, e), crlfDelay: Infinity });
}

/**
 * The lines of a package's own index (`indexes/*.cdx`, or `indexes/*.cdx.gz`: a ZipNum
 * cluster's blocks, gzip members read in turn), for `import --cdx PACKAGE.wacz`: the records
 * the package lists, read without indexing its WARCs again.
 */
export async function* packageIndexLines(pkgPath: string, remote: RemoteOptions = DEFAULT_REMOTE): AsyncGenerator<string> {
  const pkg = await openPackage(pkgPath, remote);
  const names = [...pkg.entries.keys()].filter((n) => /^indexes\/[^/]+\.cdxj?(\.gz)?$/i.test(n)).sort();
  if (names.length === 0) throw new InputError(`${pkgPath}: the package has no index (indexes/*.cdx or *.cdx.gz)`);
  const { createInterface } = await import('node:readline');
  const { createGunzip } = await import('node:zlib');
  for (const name of names) {
    let stream: Readable = await openEntryStream(pkg, pkg.entries.get(name)!);
    if (/\.gz$/i.test(name)) stream = stream.pipe(createGunzip());
    yield* createInterface({ input: stream, crlfDelay: Infinity });
  }
}

/** Where a WARC a package's index names (by its file name, as WACZ indexes do) lies: PACKAGE#archive/NAME, if the package has it. */
export async function packageEntryOf(pkgPath: string, filename: string, remote: RemoteOptions = DEFAULT_REMOTE): Promise<string | undefined> {
  const pkg = await openPackage(pkgPath, remote);
  for (const name of [filename, `archive/${filename}`]) if (pkg.entries.has(name) && WARC_ENTRY.test(name)) return `${pkgPath}#${name}`;
  return undefined;
}
