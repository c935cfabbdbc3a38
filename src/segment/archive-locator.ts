/**
 * Where the archive a CDX line names is: the name itself when it is a path or URL, else the
 * first of the configured locations that has it (nwax.archive.locations / --archives):
 * directories (the file must exist there), http(s) URL prefixes (the name appended; asked
 * with a HEAD request only when a later location could still be tried), and path index
 * files (`name TAB location` lines, as pywb's path index). Answers are cached per name.
 * A WACZ's WARC is named PACKAGE.wacz#ENTRY and found where its package is.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isClusterPath, isRemote, localFileOf } from '../archive/byte-source.js';
import { InputError, describeFsError } from '../util/errors.js';

type Place = { kind: 'dir'; dir: string } | { kind: 'url'; prefix: string } | { kind: 'index'; map: Map<string, string> };

export class ArchiveLocator {
  private readonly places: Place[];
  private readonly cache = new Map<string, string | undefined>();

  constructor(locations: string[]) {
    this.places = locations.map((l) => {
      if (isRemote(l)) return { kind: 'url', prefix: /[/=]$/.test(l) ? l : `${l}/` };
      let st;
      try {
        st = statSync(l);
      } catch (err) {
        throw new InputError(`archive location ${describeFsError(l, err as NodeJS.ErrnoException)}`);
      }
      if (st.isDirectory()) return { kind: 'dir', dir: l };
      const map = new Map<string, string>();
      readFileSync(l, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (line.trim() === '' || line.startsWith('#')) return;
          const tab = line.indexOf('\t');
          if (tab <= 0) throw new InputError(`${l}: line ${i + 1}: not a path index line (name TAB location)`);
          // Columns past the location (a segment's capture list adds the collection) are not the locator's.
          if (!map.has(line.slice(0, tab)))
            map.set(
              line.slice(0, tab),
              line
                .slice(tab + 1)
                .split('\t')[0]
                .trim(),
            );
        });
      return { kind: 'index', map };
    });
  }

  /** The location of archive `name`, or undefined when no place has it. */
  async locate(name: string): Promise<string | undefined> {
    if (this.cache.has(name)) return this.cache.get(name);
    let found: string | undefined;
    if (isRemote(name) || isClusterPath(name) || (isAbsolute(name) && existsSync(localFileOf(name)))) found = name;
    for (let i = 0; !found && i < this.places.length; i++) {
      const p = this.places[i];
      if (p.kind === 'dir') {
        const path = join(p.dir, name);
        // (A WARC in a package, PACKAGE.wacz#ENTRY, is there when its package is.)
        if (existsSync(localFileOf(path))) found = path;
      } else if (p.kind === 'index') {
        found = p.map.get(name);
      } else {
        const url = p.prefix + encodeURIComponent(name).replace(/%2F/g, '/');
        if (i === this.places.length - 1 || (await reachable(url))) found = url;
      }
    }
    this.cache.set(name, found);
    return found;
  }
}

async function reachable(url: string): Promise<boolean> {
  const { request } = await import('undici');
  try {
    const res = await request(url, { method: 'HEAD', headersTimeout: 10_000 });
    await res.body.dump();
    return res.statusCode >= 200 && res.statusCode < 300;
  } catch {
    return false;
  }
}
