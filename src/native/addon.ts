/**
 * The native addon (native/*.c, build/Release/nwax_native.node), built by `npm install`
 * through node-gyp as better-sqlite3 is, loaded once for every layer that uses a part of it,
 * each kernel's surface in a module of its own here: the sort, merge and sums (sort.ts), the
 * HTML extractor (html.ts), the language scores (eld.ts) and JSON strings (json.ts); the
 * numbers the C and TypeScript share are generated from native/shared.json (shared.ts). Beside
 * it, the SQLite extension of the collection-wide BM25 (native/fts-rank.c,
 * build/Release/nwax_rank.node), loaded into each index connection. Without them (no compiler
 * on the machine, or `NWAX_NATIVE` turning a kernel off), their JavaScript twins do the same
 * work, to the same bytes; the module that uses a kernel chooses its twin where this gives it
 * none.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { UsageError } from '../util/errors.js';

/**
 * The addon's kernels, each with a JavaScript twin that gives the same bytes: `sort` (the
 * sort, gather and merge of lines and records, CDX keys and dedup, sums), `html` (the HTML
 * extractor and its UTF-8 decoding), `eld` (language scores), `json` (JSON strings as bytes,
 * and a URL's inlinks' anchors read from theirs), `rank` (BM25 with the collection's
 * statistics, a SQLite extension), `fts` (an FTS5 table's
 * segments written from its rows; its twin is FTS5's own insert), `inflate` (gzip members by
 * libdeflate, built where libdeflate-dev is found; its twin is node:zlib).
 */
export const KERNELS = ['sort', 'html', 'eld', 'json', 'rank', 'fts', 'inflate'] as const;
export type Kernel = (typeof KERNELS)[number];

/**
 * The kernels `NWAX_NATIVE` leaves native: unset or `1`, all of them; `0`, none; a comma list
 * (`html,sort`), those named. An unknown name is refused, so a typo cannot quietly run the
 * twin it meant to test.
 */
function wanted(): Set<Kernel> {
  const v = (process.env.NWAX_NATIVE ?? '').trim();
  if (v === '' || v === '1') return new Set(KERNELS);
  if (v === '0') return new Set();
  const names = v
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(KERNELS as readonly string[]).includes(n));
  if (unknown.length) throw new UsageError(`NWAX_NATIVE=${v}: no kernel named ${unknown.join(', ')} (kernels: ${KERNELS.join(', ')}; 0 for none, 1 for all)`);
  return new Set(names as Kernel[]);
}

const WANTED = wanted();

function load(): Record<string, unknown> | undefined {
  if (WANTED.size === 0) return undefined;
  try {
    // dist/native/addon.js -> build/Release at the package's root.
    return createRequire(import.meta.url)('../../build/Release/nwax_native.node') as Record<string, unknown>;
  } catch (e) {
    // Not built is what the install reported; built but not loadable is worth a word, from the
    // main thread only (the task threads load it too). The JavaScript paths give the same bytes.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'MODULE_NOT_FOUND' && isMainThread)
      process.stderr.write(`nwax: the native addon did not load (${(e as Error).message.split('\n')[0]}); working in JavaScript\n`);
    return undefined;
  }
}

const addon = load();

/** The addon's exports for `kernel`, or undefined where it is not built or `NWAX_NATIVE` leaves that kernel to JavaScript. */
export function nativeKernel(kernel: Kernel): Record<string, unknown> | undefined {
  return WANTED.has(kernel) ? addon : undefined;
}

/** Whether NWAX_NATIVE asks for `kernel` natively (built or not). */
export function nativeWanted(kernel: Kernel): boolean {
  return WANTED.has(kernel);
}

/** The SQLite extension of the `rank` kernel, or undefined where it is not built or NWAX_NATIVE leaves it to JavaScript. */
const RANK_EXTENSION = fileURLToPath(new URL('../../build/Release/nwax_rank.node', import.meta.url));

export function rankExtension(): string | undefined {
  return WANTED.has('rank') && existsSync(RANK_EXTENSION) ? RANK_EXTENSION : undefined;
}

/** The kernels running natively in this process (what `nwax --version` reports). */
export function nativeKernels(): Kernel[] {
  return KERNELS.filter(
    (k) => WANTED.has(k) && (k === 'rank' ? rankExtension() !== undefined : k === 'inflate' ? addon?.gunzipMembers !== undefined : addon !== undefined),
  );
}
