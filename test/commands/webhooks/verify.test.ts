/** `mq webhooks verify` in-process: body from a file or stdin, headers as flags or a file, secrets from env or file. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/run.js';
import { FIXED_NOW } from '../../helpers/clock.js';
import { testDeps } from '../../helpers/deps.js';
import { KEY, SECRET, sign } from './helpers.js';

const TS = FIXED_NOW / 1000;
const BODY =
  '{"type":"pull_request_batch.merged","action":"merged","status":"merged","pr_numbers":[3,4],' +
  '"pr_numbers_in_batch":[3,4],"repository":{"host":"github.com","owner":"acme","name":"widgets"},' +
  '"target_branch":"main","timestamp":"2026-11-22T12:00:00Z","test_branch":"trunk-merge/x","test_branch_sha":"abc"}';
const H = sign(BODY, 'msg_7', TS);
const OTHER = `whsec_${Buffer.from('another secret key 24byt').toString('base64')}`;

function setup(opts: { stdin?: string; env?: Record<string, string> } = {}) {
  const t = testDeps({ stdin: opts.stdin, env: { MQ_WEBHOOK_SECRET: SECRET, ...opts.env } });
  const file = (name: string, text: string) => {
    writeFileSync(join(t.deps.cwd, name), text);
    return name;
  };
  return { ...t, file };
}

const flags = (h = H) => [
  '--id',
  h['svix-id']!,
  '--timestamp',
  h['svix-timestamp']!,
  '--signature',
  h['svix-signature']!,
];

describe('mq webhooks verify', () => {
  it('a valid delivery: exit 0, its type and PRs printed', async () => {
    const { deps, io, file } = setup();
    expect(await run(deps, ['webhooks', 'verify', '--body', file('b.json', BODY), ...flags()])).toBe(0);
    expect(io.stdout).toBe(
      'result\tvalid\ntype\tpull_request_batch.merged\nprs\t3,4\nid\tmsg_7\ntimestamp\t2026-11-22T12:00:00.000Z\n',
    );
    expect(io.stderr).toBe('');
  });

  it('reads the body from stdin and the headers from a file of lines or JSON', async () => {
    const sig = H['svix-signature'];
    const lines = `POST /hooks HTTP/1.1\nSvix-Id: msg_7\nsvix-timestamp: ${TS}\nsvix-signature: ${sig}\n`;
    for (const text of [lines, JSON.stringify(H)]) {
      const { deps, io, file } = setup({ stdin: BODY });
      expect(await run(deps, ['webhooks', 'verify', '--headers', file('h', text), '--json'])).toBe(0);
      expect(JSON.parse(io.stdout)).toMatchObject({
        ok: true,
        id: 'msg_7',
        event: { family: 'pull_request_batch', pr_numbers: [3, 4] },
      });
    }
  });

  it('a re-serialised body is invalid: exit 4, the reason in one line and a hint; --json has the result', async () => {
    const { deps, io } = setup({ stdin: JSON.stringify(JSON.parse(BODY), null, 1) });
    expect(await run(deps, ['webhooks', 'verify', ...flags(), '--json'])).toBe(4);
    expect(JSON.parse(io.stdout)).toEqual({
      ok: false,
      reason: 'bad-signature',
      message: 'no v1 signature matches the raw body',
    });
    expect(io.stderr).toBe(
      'mq: webhooks verify: invalid: bad-signature: no v1 signature matches the raw body\n' +
        'hint: verify the raw body bytes as received (not re-serialised JSON) with the endpoint secret\n',
    );
  });

  it.each([
    [{ MQ_WEBHOOK_SECRET: 'whsec_short' }, [], 'secret-format'],
    [{}, ['--id', 'msg_7', '--signature', H['svix-signature']!], 'missing-header'],
    [{}, flags(sign(BODY, 'msg_7', TS - 600)), 'timestamp-too-old'],
    [{}, flags(sign(BODY, 'msg_7', TS + 600)), 'timestamp-in-future'],
  ])('%j %j: exit 4 (%s)', async (env, argv, reason) => {
    const { deps, io } = setup({ stdin: BODY, env });
    expect(await run(deps, ['webhooks', 'verify', ...(argv.length ? argv : flags())])).toBe(4);
    expect(io.stderr).toMatch(new RegExp(`^mq: webhooks verify: invalid: ${reason}: .*\\nhint: .*\\n$`));
    expect(io.stdout).toBe('');
  });

  it('tries each secret of MQ_WEBHOOK_SECRET or --secret-file (comma or newline separated)', async () => {
    const a = setup({ stdin: BODY, env: { MQ_WEBHOOK_SECRET: `${OTHER}, ${SECRET}` } });
    expect(await run(a.deps, ['webhooks', 'verify', ...flags()])).toBe(0);
    const b = setup({ stdin: BODY, env: { MQ_WEBHOOK_SECRET: '' } });
    const file = b.file('secrets', `${OTHER}\n${SECRET}\n`);
    expect(await run(b.deps, ['webhooks', 'verify', '--secret-file', file, ...flags()])).toBe(0);
    const c = setup({ stdin: BODY, env: { MQ_WEBHOOK_SECRET: OTHER } });
    expect(await run(c.deps, ['webhooks', 'verify', ...flags()])).toBe(4);
  });

  it('--secret works but warns that argv is visible, and the secret is never printed', async () => {
    const { deps, io } = setup({ stdin: BODY, env: { MQ_WEBHOOK_SECRET: '' } });
    const wrong = `whsec_${Buffer.from(KEY).reverse().toString('base64')}`;
    expect(await run(deps, ['webhooks', 'verify', '--secret', wrong, ...flags()])).toBe(4);
    expect(io.stderr).toMatch(/warning: --secret puts the secret in argv, visible to other users/);
    expect(io.stderr + io.stdout).not.toContain(wrong.slice(6));
  });

  it('bad usage is exit 2, nothing verified: no secret, a missing file, a bad headers file', async () => {
    const none = setup({ stdin: BODY, env: { MQ_WEBHOOK_SECRET: '' } });
    expect(await run(none.deps, ['webhooks', 'verify', ...flags()])).toBe(2);
    expect(none.io.stderr).toMatch(/^mq: usage: no webhook secret: set MQ_WEBHOOK_SECRET or pass --secret-file FILE\n/);
    const missing = setup();
    expect(await run(missing.deps, ['webhooks', 'verify', '--body', 'nope.json', ...flags()])).toBe(2);
    expect(missing.io.stderr).toMatch(/^mq: usage: --body: cannot read "nope.json" \(ENOENT\)/);
    const bad = setup({ stdin: BODY });
    expect(await run(bad.deps, ['webhooks', 'verify', '--headers', bad.file('h', 'svix-id msg_7\n')])).toBe(2);
    expect(bad.io.stderr).toMatch(/--headers: line 1 of "h" is not "name: value"/);
  });
});
