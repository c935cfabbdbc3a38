/**
 * The native addon (native/*.c, build/Release/nwax_native.node), built by `npm install`
 * through node-gyp as better-sqlite3 is, loaded once for every layer that uses a part of it:
 * the sort and merge (src/mapreduce/native.ts) and the HTML extractor
 * (src/parse/native-html.ts). Without it (no compiler on the machine, or `NWAX_NATIVE=0`),
 * their JavaScript twins do the same work, to the same bytes.
 */
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';

function load(): Record<string, unknown> | undefined {
  if (process.env.NWAX_NATIVE === '0') return undefined;
  try {
    // dist/util/native-addon.js -> build/Release at the package's root.
    return createRequire(import.meta.url)('../../build/Release/nwax_native.node') as Record<string, unknown>;
  } catch (e) {
    // Not built is what the install reported; built but not loadable is worth a word, from the
    // main thread only (the task threads load it too). The JavaScript paths give the same bytes.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'MODULE_NOT_FOUND' && isMainThread) process.stderr.write(`nwax: the native addon did not load (${(e as Error).message.split('\n')[0]}); working in JavaScript\n`);
    return undefined;
  }
}

/** The addon's exports, or undefined where it is not built or `NWAX_NATIVE=0` turns it off. */
export const nativeAddon: Record<string, unknown> | undefined = load();
