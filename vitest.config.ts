import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: the CLI tests start a dozen processes each, and CI's two cores run several files at once.
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Both cores: a test file mostly waits on its peers (databases, spawned CLIs, slapd,
    // FreeRADIUS), and vitest's default on two cores is one file at a time.
    maxWorkers: 2,
  },
});
