/** `mq notify 42 --slack` end to end: the built binary, the emulator, a local fake Slack receiver. */
import { expect, it } from 'vitest';
import { useEmulator } from '../../emulator/http-helpers.js';
import { useFakeServer } from '../../helpers/fake-server.js';
import { baseEnv, runCli } from '../../helpers/run-cli.js';

const { emu, client: c } = useEmulator();
const rx = useFakeServer();

it('mq notify 42 --slack posts Block Kit once, says so on stderr, exits 0', async () => {
  await c.queueWithFailedPr(42, { title: 'Add <!here> cache' });
  rx.on('POST /services/T0/B0/XYZ', { status: 200, body: 'ok' });
  const env = {
    ...baseEnv(emu.url),
    MQ_TOKEN: emu.token,
    MQ_REPO: 'acme/app',
    MQ_NOTIFY_SLACK_URL: `${rx.url.replace(/\/v1$/, '')}/services/T0/B0/XYZ`,
  };
  const r = await runCli(['notify', '42', '--slack'], { env });
  expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '✓ PR #42 (failed) posted to Slack\n']);
  expect(rx.requests).toHaveLength(1);
  const body = rx.requests[0]?.body as { text: string; blocks: unknown[] };
  expect(body.text).toBe('PR #42 failed in the merge queue: Add &lt;!here&gt; cache');
  expect(body.blocks).toHaveLength(4);
});
