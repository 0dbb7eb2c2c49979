import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { baseEnv, runCli, tempDir, TOKEN } from '../helpers/run-cli.js';

const fake = useFakeServer();
beforeEach(() => {
  fake.on('POST /getSubmittedPullRequest', { status: 200, body: { state: 'pending', prNumber: 1 } });
});

/** An environment with no token or URL in it: everything must come from the profile store. */
function bareEnv(): Record<string, string | undefined> {
  return baseEnv();
}

async function login(env: Record<string, string | undefined>, token = TOKEN, extra: string[] = []) {
  return runCli(['--api-url', fake.url, ...extra, 'auth', 'login', '--with-token'], { env, input: `${token}\n` });
}

describe('profiles and auth', () => {
  it('login stores the token in a 0600 file inside a 0700 directory; the token is never printed', async () => {
    const env = bareEnv();
    const r = await login(env);
    expect(r.exitCode).toBe(0);
    const file = join(env.MQ_CONFIG_DIR as string, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(env.MQ_CONFIG_DIR as string).mode & 0o777).toBe(0o700);
    const data = JSON.parse(readFileSync(file, 'utf8'));
    expect(data.profiles.default.token).toBe(TOKEN);
    expect(data.profiles.default.apiUrl).toBe(fake.url);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it('the stored token and URL are used by later commands', async () => {
    const env = bareEnv();
    await login(env);
    const r = await runCli(['status', '1', '--repo', 'acme/widgets', '--branch', 'main'], { env });
    expect(r.exitCode).toBe(0);
    expect(fake.requests[0]?.headers['x-api-token']).toBe(TOKEN);
  });

  it('MQ_TOKEN beats the profile, TRUNK_API_TOKEN is the fallback, empty counts as unset', async () => {
    const env = bareEnv();
    await login(env);
    await runCli(['status', '1', '-R', 'a/b', '-B', 'main'], { env: { ...env, MQ_TOKEN: 'tok_from_env_123' } });
    expect(fake.requests.at(-1)?.headers['x-api-token']).toBe('tok_from_env_123');
    await runCli(['status', '1', '-R', 'a/b', '-B', 'main'], {
      env: { ...env, MQ_TOKEN: '', TRUNK_API_TOKEN: 'tok_trunk_456' },
    });
    expect(fake.requests.at(-1)?.headers['x-api-token']).toBe('tok_trunk_456');
  });

  it('auth status shows each source and checks the token without printing it', async () => {
    const env = bareEnv();
    await login(env);
    fake.on('POST /getSubmittedPullRequest', { status: 404, body: 'not found' });
    const r = await runCli(['auth', 'status', '--repo', 'acme/widgets', '--branch', 'main'], {
      env: { ...env, MQ_BRANCH: '' },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`api_url\t${fake.url}\napi_url_source\tprofile "default"\n`);
    expect(r.stdout).toContain('token_set\ttrue\ntoken_source\tprofile "default"\n');
    expect(r.stdout).toContain('repo\tgithub.com/acme/widgets\nrepo_source\tflag --repo\n');
    expect(r.stdout).toContain('token_check\tok\ntoken_check_detail\taccepted\n');
    expect(r.stdout).toContain(`config_file\t${join(env.MQ_CONFIG_DIR as string, 'config.json')}`);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it('auth status reports a refused token with exit 4', async () => {
    const env = bareEnv();
    await login(env);
    fake.on('POST /getSubmittedPullRequest', { status: 401, body: 'bad token' });
    const r = await runCli(['auth', 'status', '--json'], { env });
    expect(r.exitCode).toBe(4);
    const doc = JSON.parse(r.stdout);
    expect(doc.tokenCheck.ok).toBe(false);
    expect(doc.token).toEqual({ set: true, source: 'profile "default"' });
  });

  it('auth status without a token: one JSON document, exit 7', async () => {
    const r = await runCli(['auth', 'status', '--json'], { env: bareEnv() });
    expect(r.exitCode).toBe(7);
    expect(JSON.parse(r.stdout)).toMatchObject({ token: { set: false }, tokenCheck: { ok: false } });
    expect(r.stderr).toContain('mq: configuration: no API token');
  });

  it('auth status when the service cannot be reached: exit 6', async () => {
    const env = { ...bareEnv(), MQ_TOKEN: 'tok_unreachable_1', MQ_API_URL: 'http://127.0.0.1:1/v1' };
    const r = await runCli(['auth', 'status'], { env });
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toContain('token_check\tfailed\ntoken_check_detail\tcannot connect');
    expect(r.stderr).toMatch(/^mq: /m);
  });

  it('logout removes the token', async () => {
    const env = bareEnv();
    await login(env);
    expect((await runCli(['auth', 'logout'], { env })).exitCode).toBe(0);
    const r = await runCli(['status', '1', '-R', 'a/b', '-B', 'main'], { env });
    expect(r.exitCode).toBe(7);
  });

  it('profile list, use, show and remove', async () => {
    const env = bareEnv();
    await login(env);
    await login(env, 'tok_staging_789', ['--profile', 'staging']);
    const list = await runCli(['profile', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout).map((p: { name: string }) => p.name)).toEqual(['default', 'staging']);
    expect(list.stdout).not.toContain('tok_');
    expect((await runCli(['profile', 'use', 'staging'], { env })).exitCode).toBe(0);
    const show = await runCli(['profile', 'show', '--json'], { env });
    expect(JSON.parse(show.stdout)).toMatchObject({ name: 'staging', active: true, token: 'set' });
    await runCli(['status', '1', '-R', 'a/b', '-B', 'main'], { env });
    expect(fake.requests.at(-1)?.headers['x-api-token']).toBe('tok_staging_789');
    expect((await runCli(['profile', 'remove', 'staging'], { env })).exitCode).toBe(0);
    const after = await runCli(['profile', 'list', '--json'], { env });
    expect(JSON.parse(after.stdout).map((p: { name: string }) => p.name)).toEqual(['default']);
  });

  it('profile list and show never echo credentials of a hand-edited API URL', async () => {
    const env = bareEnv();
    mkdirSync(env.MQ_CONFIG_DIR as string, { recursive: true });
    const config = {
      activeProfile: 'default',
      profiles: { default: { apiUrl: 'https://user:hunter2-secret@mq.example.com/v1', token: TOKEN } },
    };
    writeFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), JSON.stringify(config), { mode: 0o600 });
    for (const args of [
      ['profile', 'list'],
      ['profile', 'list', '--json'],
      ['profile', 'show'],
      ['profile', 'show', '--json'],
    ]) {
      const r = await runCli(args, { env });
      expect(r.exitCode, args.join(' ')).toBe(0);
      expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(/hunter2|user:/);
      expect(r.stdout, args.join(' ')).toContain('https://mq.example.com/v1');
    }
  });

  it('an unknown profile named by flag is exit 7', async () => {
    const r = await runCli(['--profile', 'nope', 'status', '1'], { env: baseEnv(fake.url) });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('unknown profile "nope" (from flag --profile)');
  });

  it('profile defaults for repo and branch are used', async () => {
    const env = bareEnv();
    await login(env);
    await runCli(['profile', 'set', 'repo', 'ghe.corp.example/team/app'], { env });
    await runCli(['profile', 'set', 'branch', 'develop'], { env });
    await runCli(['status', '1'], { env });
    expect(fake.requests.at(-1)?.body).toMatchObject({
      repo: { host: 'ghe.corp.example', owner: 'team', name: 'app' },
      targetBranch: 'develop',
    });
  });

  it('login without a terminal and without --with-token exits 10 naming the flag', async () => {
    const r = await runCli(['auth', 'login'], { env: bareEnv() });
    expect(r.exitCode).toBe(10);
    expect(r.stderr).toContain('--with-token');
  });
});

describe('a corrupt config file', () => {
  it('is exit 7 naming the file, and is left untouched', async () => {
    const env = bareEnv();
    const dir = env.MQ_CONFIG_DIR as string;
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'config.json');
    writeFileSync(file, '{"profiles": {"default": {"token": ');
    for (const args of [
      ['status', '1', '-R', 'a/b', '-B', 'main'],
      ['auth', 'login', '--with-token'],
    ]) {
      const r = await runCli(args, { env, input: 'tok_new_value_000\n' });
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toContain(`the config file ${file} is not valid JSON`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readFileSync(file, 'utf8')).toBe('{"profiles": {"default": {"token": ');
  });

  it('a profile of the wrong shape is reported too', async () => {
    const env = bareEnv();
    const dir = env.MQ_CONFIG_DIR as string;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { token: 42 } } }));
    const r = await runCli(['status', '1', '-R', 'a/b', '-B', 'main'], { env });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('has a non-string "token" in profile "default"');
  });
});

describe('repository and branch inference', () => {
  function repoWithOrigin(url: string, head?: string): string {
    const dir = tempDir('mq-git-');
    mkdirSync(join(dir, '.git', 'refs', 'remotes', 'origin'), { recursive: true });
    writeFileSync(
      join(dir, '.git', 'config'),
      `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`,
    );
    if (head)
      writeFileSync(join(dir, '.git', 'refs', 'remotes', 'origin', 'HEAD'), `ref: refs/remotes/origin/${head}\n`);
    mkdirSync(join(dir, 'sub', 'dir'), { recursive: true });
    return dir;
  }
  const env = () => ({ ...baseEnv(fake.url), MQ_REPO: '', MQ_BRANCH: '' });

  for (const [url, expected] of [
    ['git@github.com:acme/widgets.git', { host: 'github.com', owner: 'acme', name: 'widgets' }],
    ['https://github.com/acme/widgets.git', { host: 'github.com', owner: 'acme', name: 'widgets' }],
    ['ssh://git@ghe.example.com:2222/team/app', { host: 'ghe.example.com', owner: 'team', name: 'app' }],
    ['https://user@gitlab.example.org/group/project', { host: 'gitlab.example.org', owner: 'group', name: 'project' }],
  ] as const) {
    it(`reads origin ${url} from a subdirectory`, async () => {
      const dir = repoWithOrigin(url, 'trunk');
      const r = await runCli(['status', '1'], { env: env(), cwd: join(dir, 'sub', 'dir') });
      expect(r.exitCode).toBe(0);
      expect(fake.requests.at(-1)?.body).toMatchObject({ repo: expected, targetBranch: 'trunk' });
    });
  }

  it('GITHUB_REPOSITORY with the host of GITHUB_SERVER_URL beats git, and GITHUB_BASE_REF gives the branch', async () => {
    const dir = repoWithOrigin('git@github.com:acme/widgets.git', 'main');
    const r = await runCli(['status', '1'], {
      env: {
        ...env(),
        GITHUB_REPOSITORY: 'corp/service',
        GITHUB_SERVER_URL: 'https://github.corp.example',
        GITHUB_BASE_REF: 'release',
      },
      cwd: dir,
    });
    expect(r.exitCode).toBe(0);
    expect(fake.requests.at(-1)?.body).toMatchObject({
      repo: { host: 'github.corp.example', owner: 'corp', name: 'service' },
      targetBranch: 'release',
    });
  });

  it('nothing to infer: a usage error naming --repo, nothing sent', async () => {
    const r = await runCli(['status', '1'], { env: env() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no repository: pass --repo [host/]owner/name');
    expect(fake.requests).toHaveLength(0);
  });

  it('origin without HEAD: a usage error naming --branch', async () => {
    const dir = repoWithOrigin('git@github.com:acme/widgets.git');
    const r = await runCli(['status', '1'], { env: env(), cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no target branch: pass --branch NAME');
  });
});

describe('concurrent writers', () => {
  it('twelve mq processes saving profiles at once lose no write', async () => {
    const env = bareEnv();
    const names = Array.from({ length: 12 }, (_, i) => `p${i}`);
    const results = await Promise.all(
      names.map((n) => runCli(['--profile', n, 'profile', 'set', 'branch', `branch-${n}`], { env })),
    );
    expect(results.map((r) => r.exitCode)).toEqual(names.map(() => 0));
    const data = JSON.parse(readFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), 'utf8'));
    for (const n of names) expect(data.profiles[n]).toEqual({ branch: `branch-${n}` });
  });
});

describe('profile names', () => {
  function configWith(doc: unknown): Record<string, string | undefined> {
    const env: Record<string, string | undefined> = {
      ...baseEnv(),
      MQ_TOKEN: TOKEN,
      MQ_API_URL: fake.url,
      MQ_REPO: 'acme/widgets',
      MQ_BRANCH: 'main',
    };
    writeFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), JSON.stringify(doc));
    return env;
  }
  const hostile = {
    '$(touch /tmp/mq-hostile)': {},
    ';rm -rf x': {},
    '-rf': {},
    'a b': {},
    '\u001b]52;c;aGk=\u0007': {},
    x: {},
  } as Record<string, object>;

  it('invalid names in the file are reported (escaped) and ignored; valid ones are listed', async () => {
    const env = configWith({ activeProfile: ';rm', profiles: { ...hostile, good: { branch: 'dev' } } });
    const r = await runCli(['profile', 'list', '--json'], { env });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).map((p: { name: string }) => p.name)).toEqual(['good', 'x']);
    expect(r.stderr).toContain('has a profile name "$(touch /tmp/mq-hostile)" that is not allowed');
    expect(r.stderr).toContain('has a profile name "\\u{1b}]52;c;aGk=\\u{7}" that is not allowed');
    expect(r.stderr).toContain('has an "activeProfile" that is not a profile name (";rm"); ignoring it');
    expect(r.stderr).not.toContain('\u001b');
  });

  it('a rewrite keeps the ignored entries as they were', async () => {
    const env = configWith({ profiles: { 'bad name': { token: 'keep_me_1234' }, good: {} } });
    expect((await runCli(['--profile', 'good', 'profile', 'set', 'branch', 'dev'], { env })).exitCode).toBe(0);
    const data = JSON.parse(readFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), 'utf8'));
    expect(data.profiles).toEqual({ 'bad name': { token: 'keep_me_1234' }, good: { branch: 'dev' } });
  });

  it('--profile with an invalid name is a usage error (2); MQ_PROFILE with one is exit 7; nothing sent', async () => {
    const env = configWith({ profiles: {} });
    const flag = await runCli(['--profile', '$(id)', 'status', '1'], { env });
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain('the profile name "$(id)" (from flag --profile) is not allowed');
    const fromEnv = await runCli(['status', '1'], { env: { ...env, MQ_PROFILE: 'a/../../b' } });
    expect(fromEnv.exitCode).toBe(7);
    expect(fromEnv.stderr).toContain('(from env MQ_PROFILE) is not allowed');
    expect(fake.requests).toHaveLength(0);
  });

  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    it(`"${name}" is an ordinary unknown name`, async () => {
      const env = configWith({ profiles: { good: { token: 'tok_good_profile_1' } } });
      if (name === '__proto__') {
        // Not a valid name at all (it starts with "_"), and never a way into Object.prototype.
        expect((await runCli(['--profile', name, 'status', '1'], { env })).exitCode).toBe(2);
        expect((await runCli(['profile', 'use', name], { env })).exitCode).toBe(7);
      } else {
        const r = await runCli(['--profile', name, 'status', '1'], { env });
        expect(r.exitCode).toBe(7);
        expect(r.stderr).toContain(`unknown profile "${name}" (from flag --profile)`);
        const use = await runCli(['profile', 'use', name], { env });
        expect(use.exitCode).toBe(7);
        expect((await runCli(['profile', 'show', name], { env })).exitCode).toBe(7);
      }
      const data = JSON.parse(readFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), 'utf8'));
      expect(data.activeProfile).toBeUndefined();
    });
  }

  it('a profile called "constructor" can be created and used like any other', async () => {
    const env = bareEnv();
    expect((await login(env, 'tok_ctor_profile_9', ['--profile', 'constructor'])).exitCode).toBe(0);
    const r = await runCli(['--profile', 'constructor', 'status', '1', '-R', 'a/b', '-B', 'main'], { env });
    expect(r.exitCode).toBe(0);
    expect(fake.requests.at(-1)?.headers['x-api-token']).toBe('tok_ctor_profile_9');
  });
});

describe('tokens are visible ASCII', () => {
  const env = (): Record<string, string | undefined> => ({
    ...baseEnv(),
    MQ_API_URL: fake.url,
    MQ_REPO: 'acme/widgets',
    MQ_BRANCH: 'main',
  });
  for (const [variable, token, what] of [
    ['MQ_TOKEN', 'tok_\u001b[2Jabc', 'a control character (U+001B)'],
    ['MQ_TOKEN', 'tok abc', 'a space (U+0020)'],
    ['TRUNK_API_TOKEN', 'tok_café_123', 'a non-ASCII character (U+00E9)'],
    ['MQ_TOKEN', 'tok_\u0085_123', 'a control character (U+0085)'],
  ] as const) {
    it(`${variable} with ${what}: exit 7 naming it, nothing sent`, async () => {
      const r = await runCli(['status', '1'], { env: { ...env(), [variable]: token } });
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toContain(`the API token from env ${variable} contains ${what}`);
      expect(fake.requests).toHaveLength(0);
    });
  }

  it('a token in the config file with a control character: exit 7 naming the profile', async () => {
    const e = env();
    writeFileSync(
      join(e.MQ_CONFIG_DIR as string, 'config.json'),
      JSON.stringify({ profiles: { default: { token: 'tok_\u0007bell' } } }),
    );
    const r = await runCli(['status', '1'], { env: e });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('the API token from profile "default" contains a control character (U+0007)');
    expect(fake.requests).toHaveLength(0);
  });

  it('auth login refuses one with exit 7 and saves nothing', async () => {
    const e = bareEnv();
    const r = await login(e, 'tok_\u00a0nbsp_1');
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain(
      'the API token from standard input (--with-token) contains a non-ASCII character (U+00A0)',
    );
    expect(existsSync(join(e.MQ_CONFIG_DIR as string, 'config.json'))).toBe(false);
  });
});

describe('the config writer (conf, the lock)', () => {
  /** Runs mq with a preload that lists every bundle it loads (test/helpers/record-loads.cjs); returns the result and that list. */
  async function runLoggingModules(args: string[], env: Record<string, string | undefined>) {
    const log = join(tempDir('mq-loads-'), 'modules.log');
    writeFileSync(log, '');
    const hook = resolve(import.meta.dirname, '../helpers/record-loads.cjs');
    const r = await runCli(args, { env: { ...env, MQ_LOAD_LOG: log, NODE_OPTIONS: `--require ${hook}` } });
    return {
      r,
      modules: readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t')[0] as string),
    };
  }

  it('is loaded only by a command that writes the config', async () => {
    const env = { ...baseEnv(fake.url) };
    const status = await runLoggingModules(['status', '1'], env);
    expect(status.r.exitCode).toBe(0);
    expect(status.modules.some((m) => m.endsWith('/dist/cli.cjs'))).toBe(true);
    expect(status.modules.filter((m) => m.includes('config-write'))).toEqual([]);
    const set = await runLoggingModules(['profile', 'set', 'branch', 'dev'], env);
    expect(set.r.exitCode).toBe(0);
    expect(set.modules.filter((m) => m.includes('config-write'))).toEqual([
      expect.stringMatching(/\/dist\/lazy\/config-write\.cjs$/),
    ]);
  });

  it('history and statistics code is loaded by mq status, not by --help or other commands', async () => {
    const env = { ...baseEnv(fake.url) };
    const help = await runLoggingModules(['--help'], env);
    expect(help.r.exitCode).toBe(0);
    // The stats code is part of dist/lazy/api.cjs, with the HTTP layer and the client (scripts/build.mjs).
    expect(help.modules.filter((m) => m.includes('/lazy/api') || m.includes('/lazy/stats'))).toEqual([]);
    const status = await runLoggingModules(['status', '1'], env);
    expect(status.r.exitCode).toBe(0);
    expect(status.modules.filter((m) => m.includes('/lazy/api'))).toEqual([
      expect.stringMatching(/\/dist\/lazy\/api\.cjs$/),
    ]);
  });
});
