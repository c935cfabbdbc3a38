/**
 * Which indexes a searcher opens under its directory (`searcher.dir`): every
 * `pindexes/<name>` is one parallel set (main + dates + ...); where a set has no `main`, the
 * matching `indexes/part-N` serves as main (`part-N` or `pN` by name, else by order); parts of
 * `indexes/` that no set claims are searched alone. The parts of a set must agree on their
 * document count, or the searcher refuses the set, naming them.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NwaxError } from '../util/errors.js';

export interface IndexSet {
  name: string;
  main: string;
  dates?: string;
}

function sorted(dir: string, test: (name: string) => boolean): string[] {
  return existsSync(dir) ? readdirSync(dir).filter(test).sort() : [];
}

export function findIndexSets(dir: string): IndexSet[] {
  const indexes = sorted(join(dir, 'indexes'), (n) => /^part-\d{5}$/.test(n)).map((n) => join(dir, 'indexes', n));
  const pdir = join(dir, 'pindexes');
  const setNames = sorted(pdir, (n) => !n.startsWith('.') && statSync(join(pdir, n)).isDirectory());
  const sets: IndexSet[] = [];
  const claimed = new Set<string>();
  setNames.forEach((name, i) => {
    const own = join(pdir, name, 'main');
    let main = existsSync(own) ? own : undefined;
    if (!main) {
      const m = /^(?:part-|p)(\d+)$/.exec(name);
      main = m ? join(dir, 'indexes', `part-${m[1].padStart(5, '0')}`) : indexes[i];
      if (!main || !existsSync(main)) throw new NwaxError('NWAX_INPUT', `${join(pdir, name)}: no main index, and no indexes part to serve as one`);
    }
    claimed.add(main);
    const dates = join(pdir, name, 'dates');
    sets.push({ name, main, ...(existsSync(dates) ? { dates } : {}) });
  });
  for (const main of indexes) if (!claimed.has(main)) sets.push({ name: main.slice(main.lastIndexOf('/') + 1), main });
  if (sets.length === 0) throw new NwaxError('NWAX_INPUT', `${dir}: no indexes (neither ${join(dir, 'indexes')} nor ${pdir}); run nwax index first`);
  return sets;
}
