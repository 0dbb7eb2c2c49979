/**
 * The settings registry against the emulator (in-process, on a loopback port): every setting the
 * registry can send is accepted by updateQueue and read back through getQueue, and the flags of
 * `queue update` and `queue create` and the rows of `queue show --settings` come from the registry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MergeQueueClient } from '../../src/api/client.js';
import { closeHttp, HttpClient } from '../../src/api/http.js';
import { QUEUE_SETTINGS, updateFlagSettings } from '../../src/domain/queue-settings.js';
import type { Queue } from '../../src/api/schemas.js';
import { queueCreateCommand } from '../../src/commands/queue/create.js';
import { queueUpdateCommand, UPDATE_FLAGS } from '../../src/commands/queue/update.js';
import { startEmulator } from '../../src/emulator/index.js';
import { queueSettingFields } from '../../src/views/queue.js';
import { testDeps } from '../helpers/deps.js';

type Emulator = Awaited<ReturnType<typeof startEmulator>>;
let emu: Emulator;
let client: MergeQueueClient;
const target = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };

beforeAll(async () => {
  emu = await startEmulator({ port: 0, clock: 'manual', seed: 1 });
  client = new MergeQueueClient(
    new HttpClient({ baseUrl: emu.url, token: emu.token, userAgent: 'mq-test', timeoutMs: 5000 }),
  );
  await client.createQueue({ ...target, mode: 'single', concurrency: 1 });
});
afterAll(async () => {
  await emu.close();
  await closeHttp();
});

/** A valid value for a setting that differs from what a new queue has. */
function valueFor(s: (typeof QUEUE_SETTINGS)[number], current: unknown): unknown {
  if (s.kind === 'bool') return !current;
  if (s.kind === 'int' || s.kind === 'minutes') return (typeof current === 'number' ? current : 1) + 2;
  if (s.kind === 'list') return ['ci/build', 'ci/lint'];
  const values = ('requestValues' in s ? s.requestValues : s.values) as readonly string[];
  return values.find((v) => v !== current) ?? values[0];
}

describe('the settings registry', () => {
  it('the emulator accepts every setting of the registry and reads it back', async () => {
    const before = (await client.getQueue(target)) as Record<string, unknown>;
    const settings: Record<string, unknown> = {};
    // The state is changed on its own (switching modes would hold it), the rest in one update.
    for (const s of QUEUE_SETTINGS) if (s.field !== 'state') settings[s.field] = valueFor(s, before[s.field]);
    const after = (await client.updateQueue({ ...target, ...settings })) as Queue;
    for (const [field, value] of Object.entries(settings))
      expect([field, after[field as keyof Queue]]).toEqual([field, value]);
    const paused = await client.updateQueue({ ...target, state: 'paused' });
    expect(paused?.state).toBe('paused');
    expect(Object.keys(settings).length + 1).toBe(QUEUE_SETTINGS.length);
  });

  it('queue update has a flag for every registry setting with a flag, and --[no-] for booleans', () => {
    const { deps } = testDeps();
    const longs = queueUpdateCommand(deps).options.map((o) => o.long);
    for (const s of updateFlagSettings()) {
      expect(longs).toContain(`--${s.flag}`);
      if (s.kind === 'bool') expect(longs).toContain(`--no-${s.flag}`);
    }
    expect(UPDATE_FLAGS).toContain('--[no-]batch');
  });

  it('queue create has exactly the settings marked create', () => {
    const { deps } = testDeps();
    const longs = queueCreateCommand(deps).options.map((o) => o.long);
    expect(longs.filter((l) => l !== '--dry-run')).toEqual(
      QUEUE_SETTINGS.filter((s) => 'create' in s).map((s) => `--${s.flag}`),
    );
  });

  it('queue show --settings has one row per registry setting, keyed as the registry says', () => {
    const rows = queueSettingFields({} as Queue).map((f) => f.key);
    expect(rows).toEqual(['branch', ...QUEUE_SETTINGS.map((s) => s.key), 'enqueued']);
  });
});
