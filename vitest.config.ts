import { configDefaults, defineConfig } from 'vitest/config';

// Two lanes: `fast` runs in-process (no spawned binary, browser or npm pack); `spawned` holds
// what needs a real process: test/e2e/ and any `*.spawn.test.ts` (a command's own spawned tests
// in test/commands/). `vitest run` runs both; `npm run test:fast` only the first. One worker a core
// (vitest's default leaves one idle); the fast lane's files share their workers' loaded modules.
const SPAWNED = ['test/e2e/**/*.test.ts', 'test/**/*.spawn.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    maxWorkers: '100%',
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SPAWNED],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'spawned', include: SPAWNED } },
    ],
  },
});
