import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The CLI tests spawn the built `nwax`; archives are small, but CI has 2 cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One test file at a time on CI's two cores (vitest's default there). Two at once took the
    // suite from 740 s to 560 s, but a test's long synchronous waits on the processes it spawns
    // then outlast vitest's worker RPC timeout ("Timeout calling onTaskUpdate").
  },
});
