/**
 * NWAX_NATIVE per kernel: `0` none, `1` (or unset) all, a list the kernels named; a name that
 * is no kernel is refused (a typo must not quietly test the wrong twin). `nwax conf` says which
 * kernels run natively. Where the addon is not built, every kernel is JavaScript whatever is set;
 * where it was built without libdeflate, `inflate` is.
 */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, nwax } from './helpers.js';

const ADDON = join(ROOT, 'build', 'Release', 'nwax_native.node');
const BUILT = existsSync(ADDON);
/** The inflate kernel is built only where libdeflate was found (.ci/run installs it: under CI it must be). */
const INFLATE = BUILT && typeof (createRequire(import.meta.url)(ADDON) as Record<string, unknown>).gunzipMembers === 'function';
if (BUILT && !INFLATE && process.env.CI === 'true') throw new Error('under CI the addon must be built with libdeflate (.ci/run installs libdeflate-dev)');

describe('NWAX_NATIVE', () => {
  const kernels = async (value: string) => {
    const r = await nwax(['conf', 'nwax.sort.memory'], { env: { NWAX_NATIVE: value } });
    expect(r.code, r.stderr).toBe(0);
    return /native kernels: (.*?)(;|\s\(|$)/m.exec(r.stderr)![1];
  };

  it('turns kernels off all at once or one by one, and says which run natively', async () => {
    expect(await kernels('0')).toBe('none');
    expect(await kernels('1')).toBe(BUILT ? `sort, html, eld, json, rank, fts${INFLATE ? ', inflate' : ''}` : 'none');
    expect(await kernels('inflate')).toBe(INFLATE ? 'inflate' : 'none');
    expect(await kernels('rank')).toBe(BUILT ? 'rank' : 'none');
    expect(await kernels('html,sort')).toBe(BUILT ? 'sort, html' : 'none');
    expect(await kernels(' eld ')).toBe(BUILT ? 'eld' : 'none');
  });

  it('refuses a name that is no kernel', async () => {
    const r = await nwax(['conf', 'nwax.sort.memory'], { env: { NWAX_NATIVE: 'html,sotr' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('NWAX_NATIVE=html,sotr: no kernel named sotr (kernels: sort, html, eld, json, rank, fts, inflate; 0 for none, 1 for all)');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
