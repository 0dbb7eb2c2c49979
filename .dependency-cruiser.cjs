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
      name: 'domain-is-neutral',
      severity: 'error',
      comment: "src/domain/ is the service's vocabulary and mq's own types, shared by the client, the emulator, the planner, stats and the Action: it imports nothing outside itself, Node built-ins and packages included.",
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'engine-is-pure',
      severity: 'error',
      comment: 'src/emulator/engine/ is the pure queue model: it imports nothing outside itself but src/domain/, Node built-ins and packages included (no I/O, no clock, no wire shapes).',
      from: { path: '^src/emulator/engine/' },
      to: { pathNot: '^src/(emulator/engine|domain)/' },
    },
    {
      name: 'api-not-emulator',
      severity: 'error',
      comment: "src/api/ is the client: it imports nothing from the emulator (the vocabulary they share is in src/domain/).",
      from: { path: '^src/api/' },
      to: { path: '^src/emulator/' },
    },
    {
      name: 'planner-not-emulator-http',
      severity: 'error',
      comment: "The planner drives the emulator's engine, never its HTTP layer (wire shapes): what it needs lives in the engine or src/domain/.",
      from: { path: '^src/planner/' },
      to: { path: '^src/emulator/http/' },
    },
    {
      name: 'webhooks-are-neutral',
      severity: 'error',
      comment: 'src/webhooks/ signs and verifies deliveries for the emulator, the CLI and the library alike: it imports neither the emulator nor commands, views or output.',
      from: { path: '^src/webhooks/' },
      to: { path: '^src/(emulator|commands|views|output)/' },
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
