/**
 * Once per test run: where the third-party fixtures (real archives written by other tools, with
 * reference indexes) are missing, one line says so and how to point the tests at a copy. The
 * tests that read them skip; under CI=true helpers.ts fails instead.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export default function setup(): void {
  const root = resolve(__dirname, '..');
  const fixtures = resolve(process.env.NWAX_CONFORMANCE_DIR ?? join(root, '..', 'shared', 'fixtures'));
  if (existsSync(join(fixtures, 'manifest.tsv')) || process.env.CI === 'true') return;
  console.warn(
    `nwax tests: no third-party fixtures at ${fixtures} (manifest.tsv); the tests that read them are skipped. ` +
      'To run them, set NWAX_CONFORMANCE_DIR to a copy of the fixtures folder (docs/conformance.md lists its archives and reference indexes).',
  );
}
