/**
 * Datasets: a directory of `part-NNNNN.gz` sorted record files plus `_SUCCESS`, the layout both
 * engines write (a Hadoop Streaming reduce writes the same files as task side-effect files). A job writes a new
 * version into a temporary sibling and puts it in place at the end (the old version renamed to
 * `.old` until then, then removed), so a crash never leaves a half-written dataset where a
 * good one stood. A `.locked` file with the holder's pid and host keeps a second job off the
 * dataset; a lock left by a job that is gone from this host is taken over with a warning.
 */
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { NwaxError } from '../util/errors.js';
import { pidAlive, sweepDead } from '../util/litter.js';

export const SUCCESS = '_SUCCESS';

export function partName(n: number): string {
  return `part-${String(n).padStart(5, '0')}`;
}

/** A record file part: `.gz`, so that Hadoop's TextInputFormat inflates it. */
export function recordPartName(n: number): string {
  return `${partName(n)}.gz`;
}

/**
 * The files of a dataset that are its parts: `part-NNNNN.gz` (record files), `part-NNNNN`
 * (older nwax, or Hadoop Streaming's plain text), `part-r-NNNNN`; never the hidden block
 * indexes, `.crc` checksums or `_SUCCESS`.
 */
export const PART = /^part-(?:[mr]-)?\d{5}(?:\.gz)?$/;

function lockPath(dir: string): string {
  return `${resolve(dir)}.locked`;
}

/** What a lock file says: `PID HOST` (older nwax wrote the pid alone: this host). */
function lockHolder(path: string): { pid: number; host: string } {
  const [pid, host] = readFileSync(path, 'utf8').trim().split(/\s+/);
  return { pid: /^\d+$/.test(pid) ? Number(pid) : NaN, host: host || hostname() };
}

/**
 * Creates the lock file whole or not at all: written aside, then hard-linked into place (link
 * fails if the name exists, as `O_EXCL` does). A job killed between creating the lock and
 * writing its pid would otherwise leave an empty lock that names no process.
 */
function createLock(path: string, content: string): boolean {
  const aside = `${path}.tmp-${process.pid}`;
  writeFileSync(aside, content);
  try {
    linkSync(aside, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * Takes the dataset's lock. A lock whose holder is gone from this host (a killed job) is
 * taken over with a warning; one held by a running process, or by a process on another host
 * (whose state this one cannot see), only with `force`.
 */
export function lock(dir: string, force = false, warn: (message: string) => void = stderrWarning): () => void {
  const path = lockPath(dir);
  mkdirSync(dirname(path), { recursive: true });
  const mine = `${process.pid} ${hostname()}\n`;
  sweepDead(dirname(path), `${basename(path)}.tmp-`);
  if (!createLock(path, mine)) {
    const holder = lockHolder(path);
    const here = holder.host === hostname();
    // A lock naming no process (empty or garbage: written by an older nwax killed mid-write,
    // or by hand) has no holder to wait for.
    const nameless = !(holder.pid > 0);
    const gone = nameless || (here && !pidAlive(holder.pid));
    if (!force && !gone) {
      const state = here ? `held by running process ${holder.pid}` : `held by process ${holder.pid} on ${holder.host}`;
      throw new NwaxError('NWAX_LOCKED', `${dir} is locked (${path}, ${state}); use --force if no job is using it`);
    }
    if (nameless) warn(`${dir}: took over a lock that names no process (${path})`);
    else if (gone) warn(`${dir}: took over the lock left by process ${holder.pid}, which is gone (${path})`);
    writeFileSync(path, mine);
  }
  return () => rmSync(path, { force: true });
}

function stderrWarning(message: string): void {
  process.stderr.write(`nwax: ${message}\n`);
}

/**
 * The parts of a complete dataset, in order; an error if it is not complete. A named output of
 * a Hadoop job (a segment's `content`) is complete when the job's `_SUCCESS` is in its parent.
 */
export function parts(dir: string): string[] {
  // A writer killed between its two renames left the previous version (of this dataset, or of
  // the job output holding it) aside: it is put back before the reading.
  if (!existsSync(dir)) for (const d of [dir, dirname(dir)]) recover(d);
  if (!existsSync(dir)) throw new NwaxError('NWAX_INPUT', `${dir}: no such dataset`);
  if (!existsSync(join(dir, SUCCESS)) && !existsSync(join(dir, '..', SUCCESS))) {
    throw new NwaxError('NWAX_INPUT', `${dir}: no ${SUCCESS}: the job that wrote it did not finish`);
  }
  return readdirSync(dir)
    .filter((f) => PART.test(f))
    .sort()
    .map((f) => join(dir, f));
}

export interface WriteOptions {
  /** Take over a stale lock. */
  force?: boolean;
}

/**
 * Writes a new version of the dataset at `dir`: `fill` writes parts into the temporary
 * directory it is given; when it returns, `_SUCCESS` is written and the new version replaces
 * the old. If `fill` throws (or the process dies), the old version is untouched.
 */
export async function writeDataset(dir: string, fill: (tmp: string) => Promise<void>, opts: WriteOptions = {}): Promise<void> {
  const target = resolve(dir);
  const unlock = lock(target, opts.force);
  const tmp = join(dirname(target), `.${basename(target)}.tmp-${process.pid}`);
  try {
    recover(target);
    removeDeadWriters(target);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    await fill(tmp);
    writeFileSync(join(tmp, SUCCESS), '');
    const old = `${target}.old`;
    rmSync(old, { recursive: true, force: true });
    if (existsSync(target)) renameSync(target, old);
    renameSync(tmp, target);
    rmSync(old, { recursive: true, force: true });
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    unlock();
  }
}

/**
 * A dataset found as `.old` beside no current version (a crash between the two renames) is
 * put back; called before reading or writing a dataset.
 */
export function recover(dir: string): void {
  const target = resolve(dir);
  const old = `${target}.old`;
  try {
    if (!existsSync(target) && existsSync(join(old, SUCCESS))) renameSync(old, target);
  } catch {
    // A reader without the right to rename reads what is there.
  }
}

/** Temporary versions left by writers that died (a crash, SIGKILL): removed before a new write. */
function removeDeadWriters(target: string): void {
  sweepDead(dirname(target), `.${basename(target)}.tmp-`);
}
