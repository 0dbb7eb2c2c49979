/**
 * Deps for in-process behaviour tests: a memory IO, a fixed or virtual clock, a fake client and a
 * private config dir; the target is acme/widgets, branch main.
 */
import { Context, type GlobalOptions } from '../../src/context.js';
import type { Clock } from '../../src/util/clock.js';
import { fixedClock } from './clock.js';
import { fakeClient, type FakeClient } from './fake-client.js';
import { memoryIO, type MemoryIO, type MemoryIOOptions } from './memory-io.js';
import { tempDir } from './run-cli.js';

export interface TestDeps {
  deps: Context;
  io: MemoryIO;
  fake: FakeClient;
}

export function testDeps(
  opts: MemoryIOOptions & {
    clock?: Clock;
    env?: Record<string, string | undefined>;
    options?: GlobalOptions;
    fake?: FakeClient;
    signal?: AbortSignal;
  } = {},
): TestDeps {
  const io = memoryIO(opts);
  const fake = opts.fake ?? fakeClient();
  const env: NodeJS.ProcessEnv = {
    MQ_CONFIG_DIR: tempDir('mq-config-'),
    MQ_REPO: 'github.com/acme/widgets',
    MQ_BRANCH: 'main',
    ...opts.env,
  };
  const deps = new Context({
    env,
    io,
    cwd: tempDir('mq-cwd-'),
    clock: opts.clock ?? fixedClock(),
    signal: opts.signal,
    client: async () => fake.client,
  });
  deps.options = opts.options ?? {};
  return { deps, io, fake };
}
