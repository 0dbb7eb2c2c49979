/**
 * The one Context builder for in-process behaviour tests: a memory IO, a fixed or virtual clock, a
 * fake client (or, with `apiUrl`, the real HTTP client) and a private config dir; the target is
 * acme/widgets, branch main.
 */
import { Context, type GlobalOptions } from '../../src/context.js';
import type { Clock } from '../../src/util/clock.js';
import { fixedClock } from './clock.js';
import { fakeClient, type FakeClient } from './fake-client.js';
import { memoryIO, type MemoryIO, type MemoryIOOptions } from './memory-io.js';
import { tempDir, TOKEN } from './run-cli.js';

export interface TestDeps {
  deps: Context;
  io: MemoryIO;
  fake: FakeClient;
}

export function testDeps(
  opts: MemoryIOOptions & {
    clock?: Clock;
    /** Talk HTTP to this URL (a fake server) with the test token, instead of the fake client. */
    apiUrl?: string;
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
    ...(opts.apiUrl ? { MQ_API_URL: opts.apiUrl, MQ_TOKEN: TOKEN, MQ_RETRY_BASE_MS: '5' } : {}),
    ...opts.env,
  };
  const deps = new Context({
    env,
    io,
    cwd: tempDir('mq-cwd-'),
    clock: opts.clock ?? fixedClock(),
    signal: opts.signal,
    client: opts.apiUrl ? undefined : async () => fake.client,
  });
  deps.options = opts.options ?? {};
  return { deps, io, fake };
}
