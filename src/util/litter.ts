/**
 * What a killed run leaves behind (temporary directories, spills, outputs written aside) is
 * named with its process id, so a later run can tell it from the work of a run still going:
 * before it makes its own, each command removes the ones whose process is gone on this host.
 * A live pid (a run under way, or a pid reused by another program) is always left alone.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Whether a process with this id runs on this host. Only a positive integer names one process:
 * `kill(0, 0)` would ask about this process group (always alive), `kill(-1, 0)` about every
 * process.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the entries of `parent` named `<prefix><pid>...` whose process is gone. Returns the
 * number removed.
 */
export function sweepDead(parent: string, prefix: string): number {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const m = /^(\d+)(?:$|[^\d])/.exec(n.slice(prefix.length));
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || pidAlive(pid)) continue;
    rmSync(join(parent, n), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/**
 * A new temporary directory `<parent>/<prefix><pid>-XXXXXX`, after removing the ones a dead
 * run of the same kind left there.
 */
export function makeTempDir(parent: string, prefix: string): string {
  mkdirSync(parent, { recursive: true });
  sweepDead(parent, prefix);
  return mkdtempSync(join(parent, `${prefix}${process.pid}-`));
}
