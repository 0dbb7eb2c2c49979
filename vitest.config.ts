import { configDefaults, defineConfig } from 'vitest/config';

// Two lanes: `fast` runs in-process (no spawned binary, browser or npm pack); `spawned` holds
// what needs a real process. `vitest run` runs both; `npm run test:fast` only the first.
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/e2e/**'] },
      },
      { extends: true, test: { name: 'spawned', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
