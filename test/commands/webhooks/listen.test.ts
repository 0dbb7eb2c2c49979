/**
 * `mq webhooks listen` in-process on loopback: verify (200/401/413), a line per delivery, duplicates,
 * forwarding the raw request, recording, the --no-verify guard, and the per-event hook.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runListen } from '../../../src/commands/webhooks/listen.js';
import { run } from '../../../src/run.js';
import { FIXED_NOW } from '../../helpers/clock.js';
import { testDeps } from '../../helpers/deps.js';
import { postTo, Receiver, SECRET, sign, until } from './helpers.js';

const TS = FIXED_NOW / 1000;
const event = (type: string, pr: number) =>
  `{"type":"${type}","action":"x","status":"x","pr_number":${pr},"author":"ann\\u001b[31m","repository":{}}`;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** Starts `mq webhooks listen ARGS` in-process; resolves once it printed where it listens. */
async function listen(args: string[], env: Record<string, string> = { MQ_WEBHOOK_SECRET: SECRET }, tty = false) {
  const stop = new AbortController();
  const t = testDeps({ env, signal: stop.signal, stdoutIsTTY: tty });
  const exit = run(t.deps, ['webhooks', 'listen', ...args]);
  let settled = false;
  void exit.finally(() => {
    settled = true;
  });
  await until(() => settled || /listening/.test(t.io.stdout), 'the listening line');
  const url = /"?listening"?(?: on |:")(http:\/\/[^\s"]+)/.exec(t.io.stdout)?.[1] ?? '';
  const end = async () => {
    stop.abort();
    return exit;
  };
  cleanups.push(end);
  return { ...t, url, exit, end };
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('mq webhooks listen', () => {
  it('verifies each delivery, answers 200/401, prints a line each, reports a duplicate svix-id', async () => {
    const l = await listen([]);
    expect(lines(l.io.stdout)[0]).toMatch(/^mq webhooks listening on http:\/\/127\.0\.0\.1:\d+\/$/);
    const body = event('pull_request.failed', 42);
    const ok = await postTo(l.url, body, sign(body, 'msg_a', TS));
    expect([ok.status, await ok.text()]).toEqual([200, 'valid\n']);
    const bad = await postTo(l.url, `${body} `, sign(body, 'msg_b', TS));
    expect([bad.status, await bad.text()]).toEqual([401, 'bad-signature: no v1 signature matches the raw body\n']);
    const again = await postTo(l.url, body, sign(body, 'msg_a', TS));
    expect(again.status).toBe(200);
    await until(() => lines(l.io.stdout).length === 4, 'three lines');
    expect(await l.end()).toBe(0);
    expect(lines(l.io.stdout).slice(1)).toEqual([
      '2026-11-22T12:00:00.000Z\tmsg_a\tpull_request.failed\t42\t200\tvalid\t',
      '2026-11-22T12:00:00.000Z\tmsg_b\t\t\t401\tbad-signature\t',
      '2026-11-22T12:00:00.000Z\tmsg_a\tpull_request.failed\t42\t200\tduplicate\t',
    ]);
  });

  it('on a terminal: a header, then one aligned line per delivery, service text made inert', async () => {
    const l = await listen([], { MQ_WEBHOOK_SECRET: SECRET }, true);
    const body = JSON.stringify({ type: 'pull_request.\u001b]0;x\u0007merged', pr_number: 42 });
    expect((await postTo(l.url, body, sign(body, 'msg_t', TS))).status).toBe(200);
    await until(() => lines(l.io.stdout).length === 3, 'the delivery line');
    expect(lines(l.io.stdout).slice(1)).toEqual([
      'time     status result               type                             PRs        svix-id  forward',
      // An unknown type (no PR read from it), escaped.
      '12:00:00 200    valid                pull_request.\\x1b]0;x\\x07merged                   msg_t',
    ]);
  });

  it('forwards the raw request unchanged, records it (0600), and survives a dead forward target', async () => {
    const r = new Receiver();
    const to = await r.start();
    cleanups.push(() => r.close());
    const dir = join(testDeps().deps.cwd, 'rec');
    const l = await listen(['--forward', to, '--record', dir, '--json']);
    expect(JSON.parse(lines(l.io.stdout)[0]!)).toEqual({ listening: l.url });
    const body = Buffer.from(`${event('pull_request.merged', 7)}\n`);
    const h = sign(body, 'msg_c', TS);
    expect((await postTo(l.url, body, h)).status).toBe(200);
    await until(() => lines(l.io.stdout).length === 2, 'the delivery line');
    expect(r.got).toHaveLength(1);
    expect(r.got[0]!.raw.equals(body)).toBe(true);
    expect(r.got[0]!.headers).toMatchObject({ ...h, 'content-type': 'application/json' });
    expect(JSON.parse(lines(l.io.stdout)[1]!)).toEqual({
      at: '2026-11-22T12:00:00.000Z',
      id: 'msg_c',
      type: 'pull_request.merged',
      prs: [7],
      status: 200,
      result: 'valid',
      forward: { status: 204 },
    });
    const [name] = readdirSync(dir);
    expect(name).toBe('20261122T120000.000Z-msg_c.json');
    expect(statSync(join(dir, name!)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, name!), 'utf8'))).toMatchObject({ id: 'msg_c', body: body.toString() });
    await r.close();
    const body2 = event('pull_request.queued', 8);
    expect((await postTo(l.url, body2, sign(body2, 'msg_d', TS))).status).toBe(200);
    await until(() => lines(l.io.stdout).length === 3, 'the second line');
    expect(JSON.parse(lines(l.io.stdout)[2]!).forward.error).toMatch(/^ECONN(REFUSED|RESET)$/);
    expect(await l.end()).toBe(0);
  });

  it('refuses a body over 1 MiB with 413; renders service text inert', async () => {
    const l = await listen([]);
    const big = Buffer.alloc(1024 * 1024 + 10, 0x20);
    const res = await postTo(l.url, big, sign(big, 'msg_e', TS)).catch((e: Error) => e);
    if (res instanceof Response) expect(res.status).toBe(413);
    const odd = JSON.stringify({ type: 'pull_request.\u001b[2Jx', pr_number: 1 });
    await postTo(l.url, odd, sign(odd, 'msg_f', TS)).catch(() => undefined);
    await until(() => lines(l.io.stdout).length === 3, 'two lines');
    expect(l.io.stdout).not.toMatch(/\u001b/);
    expect(lines(l.io.stdout)[2]).toContain('pull_request.\\x1b[2Jx');
    expect(lines(l.io.stdout)[1]).toMatch(/\t413\ttoo-large\t$/);
  });

  it('without a secret it refuses to start unless --no-verify, which it reports loudly', async () => {
    const none = testDeps({ env: {} });
    expect(await run(none.deps, ['webhooks', 'listen'])).toBe(2);
    expect(none.io.stderr).toMatch(/^mq: usage: no webhook secret.*\n(hint: .*\n)*hint: or --no-verify/);
    const l = await listen(['--no-verify'], {});
    expect(l.io.stderr).toMatch(/--no-verify {2}deliveries are NOT verified/);
    expect((await postTo(l.url, event('pull_request.testing', 5), { 'svix-id': 'msg_g' })).status).toBe(200);
    await until(() => lines(l.io.stdout).length === 2, 'the line');
    expect(lines(l.io.stdout)[1]).toMatch(/\tmsg_g\tpull_request.testing\t5\t200\tunverified\t$/);
  });

  it('calls the per-event hook once per accepted event, in order (what --notify plugs into)', async () => {
    const stop = new AbortController();
    const { deps, io } = testDeps({ env: { MQ_WEBHOOK_SECRET: SECRET }, signal: stop.signal });
    const seen: string[] = [];
    const done = runListen({ host: '127.0.0.1', port: 0, noVerify: false }, deps, {
      onEvent: (e) => void seen.push(e.type),
    });
    await until(() => /listening/.test(io.stdout), 'the listening line');
    const url = /on (\S+)/.exec(io.stdout)![1]!;
    for (const [id, type] of [
      ['m1', 'pull_request.queued'],
      ['m2', 'pull_request.testing'],
      ['m1', 'pull_request.queued'],
    ] as const) {
      const b = event(type, 1);
      await postTo(url, b, sign(b, id, TS));
    }
    await postTo(url, event('pull_request.merged', 1), sign('other', 'm3', TS));
    await until(() => lines(io.stdout).length === 5, 'four lines');
    stop.abort();
    expect((await done).exitCode).toBe(0);
    expect(seen).toEqual(['pull_request.queued', 'pull_request.testing']);
  });
});
