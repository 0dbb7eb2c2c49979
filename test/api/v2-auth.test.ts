/**
 * Credentials on v2 (issue 30.1): the credential check is one read on either wire (v2's write probe
 * one more, in parallel); `auth login` and `auth status` with a v2 key against the in-process emulator.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MergeQueueClient } from '../../src/api/client.js';
import { HttpClient } from '../../src/api/http.js';
import { V2Client } from '../../src/api/v2/client.js';
import { memoryIdStore } from '../../src/api/v2/ids.js';
import { repo, TOKEN, useEmulator } from '../emulator/http-helpers.js';
import { runMq } from '../helpers/in-process.js';
import { baseEnv } from '../helpers/run-cli.js';

const KEY = 'trunk_v2_auth0123456789abcdef';
const READER = 'trunk_v2_reader0123456789abc';
const { emu } = useEmulator({
  rateLimits: false,
  apiKeys: [
    { name: 'ci', key: KEY, permissions: ['merge', 'priority', 'skipBatching', 'direct', 'settings'] },
    { name: 'dashboard', key: READER, permissions: [] },
  ],
});
const origin = () => emu.url.replace(/\/v1$/, '');
const target = { repo, targetBranch: 'main' };

function clients(key = KEY) {
  const sent: string[] = [];
  const http = (api: 'v1' | 'v2', baseUrl: string, token: string) =>
    new HttpClient({
      baseUrl,
      api,
      token,
      userAgent: 'mq-test',
      timeoutMs: 5000,
      debug: (line) => {
        const m = /^> (GET|POST|PUT|PATCH|DELETE) (\S+)/.exec(line);
        if (m) sent.push(`${api} ${m[1]} ${new URL(m[2] as string).pathname}`);
      },
    });
  return {
    sent,
    v1: new MergeQueueClient(http('v1', emu.url, TOKEN)),
    v2: new V2Client(http('v2', origin(), key), memoryIdStore()),
  };
}

describe('checkCredential: one read on both wires', () => {
  it('a good credential: v1 one request, v2 one request; both answer the same', async () => {
    const c = clients();
    expect(await c.v1.checkCredential(target)).toEqual({});
    expect(await c.v2.checkCredential(target)).toEqual({});
    expect(c.sent).toEqual(['v1 POST /v1/getSubmittedPullRequest', 'v2 GET /v2/merge-queues']);
  });

  it('a bad credential is refused on both (exit 4)', async () => {
    const v1 = new MergeQueueClient(
      new HttpClient({ baseUrl: emu.url, token: 'wrong-token-0123456789', userAgent: 't', timeoutMs: 5000 }),
    );
    const c = clients('trunk_v2_wrong0123456789abcdef');
    await expect(v1.checkCredential(target)).rejects.toMatchObject({ exitCode: 4 });
    await expect(c.v2.checkCredential(target)).rejects.toMatchObject({ exitCode: 4, status: 401 });
  });

  it('the v2 write probe: allowed for a key with the permission, refused (403) for a read-only key', async () => {
    const full = clients();
    expect((await full.v2.checkCredential({ ...target, probeWrite: true })).write).toEqual({
      permission: 'Merge and cancel PRs',
      verdict: 'allowed',
      detail: 'probe answered 404, not 403',
      probe: 'POST /v2/pull-requests/00000000-0000-0000-0000-000000000000/dequeue',
    });
    const reader = clients(READER);
    const r = await reader.v2.checkCredential({ ...target, probeWrite: true });
    expect(r.write).toMatchObject({ verdict: 'refused', detail: '403 INSUFFICIENT_PERMISSIONS' });
    expect(reader.sent.sort()).toEqual([
      'v2 GET /v2/merge-queues',
      'v2 POST /v2/pull-requests/00000000-0000-0000-0000-000000000000/dequeue',
    ]);
    // Nothing changed: the emulator's journal has no entry.
    expect(Object.values(emu.engine.state.queues).flatMap((q) => Object.keys(q.entries))).toEqual([]);
  });
});

/** The requests a `--debug` run shows it sent. */
const sentIn = (stderr: string) =>
  [...stderr.matchAll(/^mq: debug: > (\w+) (\S+)/gm)].map((m) => `${m[1]} ${new URL(m[2] as string).pathname}`);

function v2Env(key = KEY): Record<string, string | undefined> {
  return { ...baseEnv(emu.url), MQ_API_URL: origin(), MQ_TOKEN: key };
}

describe('mq auth status on v2', () => {
  it('shows the API, why, the base URL and whether the key can write; v1 shows none of it', async () => {
    const r = await runMq(['auth', 'status'], { env: v2Env() });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.slice(-5)).toEqual([
      'api\tv2',
      'api_source\tauto: the token is a v2 API key',
      `base_url\t${origin()}`,
      'write_check\tallowed',
      'write_check_detail\tMerge and cancel PRs: allowed (probe answered 404, not 403; ' +
        'POST /v2/pull-requests/00000000-0000-0000-0000-000000000000/dequeue)',
    ]);
    const v1 = await runMq(['auth', 'status'], { env: { ...baseEnv(emu.url), MQ_TOKEN: TOKEN } });
    expect(v1.exitCode).toBe(0);
    expect(v1.stdout).not.toMatch(/^(api|base_url|write_check)\t/m);
    expect(v1.stdout.trim().split('\n').at(-1)).toBe('token_check_detail\taccepted');
  });

  it('a read-only key: the token is good (exit 0), and the write is refused, in the table and JSON', async () => {
    const r = await runMq(['auth', 'status', '-o', 'table'], { env: { ...v2Env(READER), MQ_API: 'v2' } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/API\s+v2 \(env MQ_API\)/);
    expect(r.stdout).toMatch(/Key can write\s+Merge and cancel PRs: refused \(403 INSUFFICIENT_PERMISSIONS;/);
    const j = await runMq(['auth', 'status', '--json'], { env: v2Env(READER) });
    expect(JSON.parse(j.stdout)).toMatchObject({
      api: { api: 'v2', baseUrl: origin() },
      writeCheck: { verdict: 'refused', permission: 'Merge and cancel PRs' },
    });
  });
});

describe('mq auth login with a v2 key', () => {
  it('checks it with one read, says it is for v2, names the origin it goes to, and stores it', async () => {
    const env: Record<string, string | undefined> = { ...v2Env(), MQ_TOKEN: undefined };
    const r = await runMq(['--api-url', origin(), 'auth', 'login', '--with-token', '--json'], { env, input: KEY });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`for ${origin()}\nthe credential is for the v2 API\n✓ the service accepted the token`);
    expect(JSON.parse(r.stdout)).toMatchObject({ api: 'v2', tokenCheck: { ok: true } });
    const saved = JSON.parse(readFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), 'utf8'));
    // auto stays auto: the stored key decides again each run.
    expect(saved.profiles.default).toEqual({ token: KEY, apiUrl: origin() });
    // Login checks the key with one read; status reads once and probes once, in parallel.
    const debugged = await runMq(['--debug', '--api-url', origin(), 'auth', 'login', '--with-token'], {
      env,
      input: KEY,
    });
    expect(sentIn(debugged.stderr)).toEqual(['GET /v2/merge-queues']);
    const s = await runMq(['--debug', 'auth', 'status'], { env });
    expect(s.stdout).toContain('api_source\tauto: the token is a v2 API key');
    expect(sentIn(s.stderr).sort()).toEqual([
      'GET /v2/merge-queues',
      'POST /v2/pull-requests/00000000-0000-0000-0000-000000000000/dequeue',
    ]);
  });

  it('a key the service refuses is not saved (exit 4); an explicit --api is kept in the profile', async () => {
    const env: Record<string, string | undefined> = { ...v2Env(), MQ_TOKEN: undefined };
    const bad = await runMq(['--api-url', origin(), 'auth', 'login', '--with-token'], {
      env,
      input: 'trunk_v2_wrong0123456789abcdef',
    });
    expect(bad.exitCode).toBe(4);
    expect(bad.stderr).toContain(`${origin()} refused the token`);
    const r = await runMq(['--api', 'v2', '--api-url', origin(), 'auth', 'login', '--with-token'], { env, input: KEY });
    expect(r.exitCode).toBe(0);
    const saved = JSON.parse(readFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), 'utf8'));
    expect(saved.profiles.default).toEqual({ token: KEY, apiUrl: origin(), api: 'v2' });
  });
});

describe('mq auth login into a profile that says api v1', () => {
  it('refuses a v2 key before checking or saving it (exit 7)', async () => {
    const env: Record<string, string | undefined> = { ...v2Env(), MQ_TOKEN: undefined };
    expect((await runMq(['profile', 'set', 'api', 'v1'], { env })).exitCode).toBe(0);
    const r = await runMq(['--debug', '--api-url', origin(), 'auth', 'login', '--with-token'], { env, input: KEY });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('works only on the v2 API');
    expect(sentIn(r.stderr)).toEqual([]);
    const saved = JSON.parse(readFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), 'utf8'));
    expect(saved.profiles.default.token).toBeUndefined();
  });
});

describe('a stored token goes only to the origin it was stored for', () => {
  const login = async (env: Record<string, string | undefined>, args: string[], token: string) => {
    const r = await runMq([...args, 'auth', 'login', '--with-token'], { env, input: token });
    expect(r.exitCode).toBe(0);
  };

  it('a v2 key stored for https://api.trunk.io is not sent to another URL (exit 7, nothing sent)', async () => {
    const env: Record<string, string | undefined> = { ...v2Env(), MQ_TOKEN: undefined, MQ_API_URL: undefined };
    // As `auth login` stores it for the default service (no API URL in the profile).
    const config = { activeProfile: 'default', profiles: { default: { token: KEY } } };
    writeFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), JSON.stringify(config), { mode: 0o600 });
    // Refused before any request (exit 7 is configuration; a request would have been answered).
    const r = await runMq(['status', '5'], { env: { ...env, MQ_API_URL: origin() } });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain(`is for https://api.trunk.io; mq will not send it to ${origin()}`);
    expect(r.stderr).not.toContain(KEY);
  });

  it("a v1 profile's token is not sent to a v2 origin on another host", async () => {
    const env: Record<string, string | undefined> = { ...baseEnv(emu.url), MQ_TOKEN: undefined, MQ_API_URL: undefined };
    await login(env, ['--api-url', emu.url], TOKEN);
    const other = origin().replace('127.0.0.1', 'localhost');
    const r = await runMq(['--api', 'v2', '--api-url', other, 'status', '5'], { env });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain(`mq will not send it to ${other}`);
  });
});
