import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One line per run where the third-party fixtures are missing (the tests that read them skip).
    globalSetup: ['test/global-setup.ts'],
    // The CLI tests spawn the built `nwax`; archives are small, but CI has 2 cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least two test files at once, even on CI's two cores (vitest's default there is one):
    // the CLI tests spend much of their time waiting on the processes they spawn. Tests wait on
    // those processes asynchronously (helpers.ts `run`): a synchronous wait of a minute starves
    // vitest's worker RPC ("Timeout calling onTaskUpdate").
    poolOptions: { forks: { maxForks: Math.max(2, availableParallelism() - 1) } },
  },
});
