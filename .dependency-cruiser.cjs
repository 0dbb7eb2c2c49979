/**
 * Layering rules checked in CI (`npm run deps`). Each rule's name and comment are what a
 * violation prints, so the message says which rule was broken and why it exists.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make load order fragile and hide layering mistakes: break the cycle by moving the shared piece down a layer.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-is-pure',
      severity: 'error',
      comment: 'src/emulator/engine/ is the pure queue model: it imports nothing outside itself, Node built-ins and packages included (no I/O, no clock, no wire shapes).',
      from: { path: '^src/emulator/engine/' },
      to: { pathNot: '^src/emulator/engine/' },
    },
        {
      name: 'api-below-commands',
      severity: 'error',
      comment: 'src/api/ is the client library: it must not import commands, views or output (data flows up from it, never back).',
      from: { path: '^src/api/' },
      to: { path: '^src/(commands|views|output)/' },
    },
    {
      name: 'views-take-data',
      severity: 'error',
      comment: 'Views are pure functions from data to rows and lines: they import no API client or HTTP layer.',
      from: { path: '^src/views/' },
      to: { path: '^src/api/(client|http|transport)' },
    },
    {
      name: 'no-orphans',
      severity: 'warn',
      comment: 'A module nothing imports is probably dead code.',
      from: { orphan: true, pathNot: ['\\.d\\.ts$', '^src/(main|cli|index|emulator/index)\\.ts$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
