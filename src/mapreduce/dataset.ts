/**
 * Datasets: a directory of `part-NNNNN` sorted record files plus `_SUCCESS`. A job writes a new
 * version into a temporary sibling and puts it in place at the end (the old version renamed to
 * `.old` until then, then removed), so a crash never leaves a half-written dataset where a
 * good one stood. A `.locked` file with the holder's pid keeps a second job off the dataset.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { NwaxError } from '../util/errors.js';

export const SUCCESS = '_SUCCESS';

export function partName(n: number): string {
  return `part-${String(n).padStart(5, '0')}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lockPath(dir: string): string {
  return `${resolve(dir)}.locked`;
}

/** Takes the dataset's lock; `force` takes over a lock whose holder is gone or not. */
export function lock(dir: string, force = false): () => void {
  const path = lockPath(dir);
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const holder = Number(readFileSync(path, 'utf8').trim());
    if (!force) {
      const state = Number.isInteger(holder) && alive(holder) ? `held by running process ${holder}` : `left by process ${holder}, which is gone`;
      throw new NwaxError('NWAX_LOCKED', `${dir} is locked (${path}, ${state}); use --force if no job is using it`);
    }
    writeFileSync(path, `${process.pid}\n`);
  }
  return () => rmSync(path, { force: true });
}

/** The parts of a complete dataset, in order; an error if it is not complete. */
export function parts(dir: string): string[] {
  if (!existsSync(dir)) throw new NwaxError('NWAX_INPUT', `${dir}: no such dataset`);
  if (!existsSync(join(dir, SUCCESS))) {
    throw new NwaxError('NWAX_INPUT', `${dir}: no ${SUCCESS}: the job that wrote it did not finish`);
  }
  return readdirSync(dir).filter((f) => /^part-\d{5}$/.test(f)).sort().map((f) => join(dir, f));
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
  if (!existsSync(target) && existsSync(join(old, SUCCESS))) renameSync(old, target);
}

/** Temporary versions left by writers that died (a crash, SIGKILL): removed before a new write. */
function removeDeadWriters(target: string): void {
  const prefix = `.${basename(target)}.tmp-`;
  let names: string[] = [];
  try {
    names = readdirSync(dirname(target));
  } catch {
    return;
  }
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const pid = Number(n.slice(prefix.length));
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) rmSync(join(dirname(target), n), { recursive: true, force: true });
  }
}
