import { Command } from 'commander';
import { checkApiUrl, checkToken, DEFAULT_API_URL, parseRepo, resolveApiUrl, resolveProfileName, resolveToken, type Sourced } from '../../config/resolve.js';
import type { Context, Deps } from '../../context.js';
import { ExitCode, MqError, UsageError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { own, paints, v, type Field } from '../../output/render.js';
import { plainHelpText, plainKeys, plainNone } from '../../output/plain.js';
import { act, readStdinLimited, withExamples } from '../shared.js';

/** The most a token read from standard input may be. */
export const TOKEN_STDIN_LIMIT = 64 * 1024;

interface LoginOptions {
  withToken?: boolean;
}

export async function runLogin(opts: LoginOptions, ctx: Deps): Promise<Result> {
  const store = ctx.store();
  const config = store.read();
  const name = resolveProfileName(ctx.options, ctx.env, config).value;
  // The global --api-url/--repo/--branch double as the values to save.
  const apiUrl = ctx.options.apiUrl;
  if (apiUrl) checkApiUrl(apiUrl, '--api-url', ctx.options.insecureHttp === true);
  const repo = ctx.options.repo;
  if (repo) parseRepo(repo, '--repo');
  let token: string;
  if (opts.withToken) {
    token = (await readStdinLimited(ctx, TOKEN_STDIN_LIMIT, '--with-token')).trim();
    if (!token) throw new UsageError('--with-token: standard input was empty', { hints: ['e.g. mq auth login --with-token < token.txt'] });
  } else {
    if (!ctx.io.stdinIsTTY || ctx.env.CI) {
      throw new MqError(ExitCode.confirm, 'auth login', 'no terminal to ask for the token', {
        hints: ['pipe it in: mq auth login --with-token < token.txt', 'or set MQ_TOKEN in the environment'],
      });
    }
    token = (await ctx.io.prompt('API token (input hidden): ', { hidden: true })).trim();
    if (!token) throw new UsageError('no token entered');
  }
  checkToken(token, opts.withToken ? 'standard input (--with-token)' : 'the prompt');
  ctx.io.addSecret(token);
  await store.update((data) => {
    const existing = data.profiles[name] ?? {};
    data.profiles[name] = {
      ...existing,
      token,
      ...(apiUrl ? { apiUrl: apiUrl.replace(/\/+$/, '') } : {}),
      ...(repo ? { repo } : {}),
      ...(ctx.options.branch ? { branch: ctx.options.branch } : {}),
    };
    data.activeProfile ??= name;
  });
  ctx.out.note([own(paints.green, '✓'), ' saved the token in profile "', v(name), `" (`, v(store.path), ')']);
  return { data: { ok: true, profile: name, configFile: store.path }, exitCode: 0 };
}

export async function runLogout(_opts: object, ctx: Deps): Promise<Result> {
  const store = ctx.store();
  const name = resolveProfileName(ctx.options, ctx.env, store.read()).value;
  const removed = await store.update((data) => {
    const p = data.profiles[name];
    if (!p?.token) return false;
    delete p.token;
    return true;
  });
  ctx.out.note(removed ? ['✓ removed the token from profile "', v(name), '"'] : ['profile "', v(name), '" had no token']);
  return { data: { ok: true, profile: name, changed: removed }, exitCode: 0 };
}

function sourced(key: string, label: string, v: Sourced<string> | undefined, shown?: string): Field {
  return { key, label, value: v ? `${shown ?? v.value} (${v.source})` : '(not set)' };
}

/** `mq auth status` piped: values and where each comes from in separate keys; a key without a value is left out. */
export const AUTH_STATUS_PLAIN = plainKeys('one line per setting', [
  'profile',
  'profile_source',
  'config_file',
  'api_url',
  'api_url_source',
  'token_set',
  'token_source',
  'repo',
  'repo_source',
  'branch',
  'branch_source',
  'token_check',
  'token_check_detail',
]);

export async function runAuthStatus(_opts: object, ctx: Deps): Promise<Result> {
  const store = ctx.store();
  const config = ctx.config();
  const profileName = resolveProfileName(ctx.options, ctx.env, config);
  const profile = config.profiles[profileName.value] ?? {};
  const apiUrl = resolveApiUrl(ctx.options, ctx.env, profile, profileName.value);
  const token = resolveToken(ctx.env, profile, profileName.value);
  if (token) ctx.io.addSecret(token.value);
  let repo: Sourced<string> | undefined;
  let branch: Sourced<string> | undefined;
  try {
    const t = ctx.target();
    repo = { value: `${t.repo.host}/${t.repo.owner}/${t.repo.name}`, source: t.sources.repo };
    branch = { value: t.targetBranch, source: t.sources.branch };
  } catch {
    // shown as not set
  }
  // One cheap authenticated call: a PR that cannot exist answers 404 with a good token, 401 without.
  let check: { ok: boolean; detail: string };
  let failure: MqError | undefined;
  if (!token) check = { ok: false, detail: 'no token' };
  else {
    try {
      const client = await ctx.client();
      await client.getSubmittedPullRequest({
        repo: repo ? parseRepo(repo.value, 'repo') : { host: 'github.com', owner: 'mq-auth-check', name: 'mq-auth-check' },
        targetBranch: branch?.value ?? 'main',
        pr: { number: 0 },
      });
      check = { ok: true, detail: 'accepted' };
    } catch (err) {
      const e = err instanceof MqError ? err : undefined;
      if (e && (e.exitCode === ExitCode.notFound || e.exitCode === ExitCode.rejected)) check = { ok: true, detail: 'accepted' };
      else {
        check = { ok: false, detail: e ? e.why : String(err) };
        failure = e ?? new MqError(ExitCode.unexpected, 'check the token', String(err));
      }
    }
  }
  const fields: Field[] = [
    { key: 'profile', label: 'Profile', value: `${profileName.value} (${profileName.source})` },
    { key: 'config_file', label: 'Config file', value: store.path },
    sourced('api_url', 'API URL', apiUrl),
    sourced('token', 'Token', token, token ? 'set' : undefined),
    sourced('repo', 'Repository', repo),
    sourced('branch', 'Target branch', branch),
    { key: 'token_check', label: 'Token check', value: check.ok ? `ok: ${check.detail}` : `failed: ${check.detail}` },
  ];
  const f = AUTH_STATUS_PLAIN.field;
  const plainFields = [
    f('profile', 'Profile', profileName.value),
    f('profile_source', 'Profile from', profileName.source),
    f('config_file', 'Config file', store.path),
    f('api_url', 'API URL', apiUrl?.value ?? ''),
    f('api_url_source', 'API URL from', apiUrl?.source ?? ''),
    f('token_set', 'Token set', String(token !== undefined)),
    f('token_source', 'Token from', token?.source ?? ''),
    f('repo', 'Repository', repo?.value ?? ''),
    f('repo_source', 'Repository from', repo?.source ?? ''),
    f('branch', 'Target branch', branch?.value ?? ''),
    f('branch_source', 'Target branch from', branch?.source ?? ''),
    f('token_check', 'Token check', check.ok ? 'ok' : 'failed'),
    f('token_check_detail', 'Token check detail', check.detail),
  ].filter((x) => x.value !== '');
  const view = { table: [{ fields }], markdown: [{ fields }], plain: [{ fields: plainFields }] };
  const doc = {
    profile: profileName,
    configFile: store.path,
    apiUrl,
    token: token ? { set: true, source: token.source } : { set: false },
    repo: repo ?? null,
    branch: branch ?? null,
    tokenCheck: check,
  };
  // The document is the answer; the exit code and one error line say how the check went.
  if (!token) {
    ctx.out.note(['mq: configuration: no API token for profile "', v(profileName.value), '"']);
    ctx.out.note('hint: run `mq auth login`, or set MQ_TOKEN');
    return { data: doc, view, exitCode: ExitCode.config };
  }
  if (failure) {
    ctx.out.note(['mq: ', v(`${failure.what}: ${failure.why}`)]);
    for (const h of failure.hints) ctx.out.note(['hint: ', v(h)]);
    return { data: doc, view, exitCode: failure.exitCode };
  }
  return { data: doc, view, exitCode: 0 };
}

export function authCommand(ctx: Context): Command {
  const auth = new Command('auth').summary('log in, check and log out').description('Store, check and remove the API token of a profile.');
  auth.addCommand(
    withExamples(
      new Command('login')
        .summary('store an API token in the active profile')
        .description(
          `Store the API token in the active profile (config file mode 0600). On a terminal the token is asked for with hidden input; --with-token reads it from stdin. The API URL defaults to ${DEFAULT_API_URL}.`,
        )
        .option('--with-token', 'read the token from standard input')
        .action(act(ctx, 'auth login', (f: LoginOptions): LoginOptions => ({ withToken: f.withToken }), runLogin))
        .addHelpText('after', plainHelpText([plainNone('nothing on stdout: a confirmation on stderr, and the exit code')])),
      [
        'mq auth login',
        'mq auth login --with-token < token.txt',
        'mq --profile local --api-url http://127.0.0.1:8080/v1 auth login --with-token <<< "$EMULATOR_TOKEN"',
      ],
    ),
  );
  auth.addCommand(
    withExamples(
      new Command('status')
        .summary('show where each setting comes from and check the token')
        .description(
          'Show the active profile, the config file, and the source of the API URL, token, repository and branch; then check the token with one cheap call. The token itself is never printed.',
        )
        .action(act(ctx, 'auth status', () => ({}), runAuthStatus))
        .addHelpText('after', plainHelpText([AUTH_STATUS_PLAIN])),
      ['mq auth status', 'mq auth status --json'],
    ),
  );
  auth.addCommand(
    withExamples(
      new Command('logout')
        .summary('remove the token from the active profile')
        .action(act(ctx, 'auth logout', () => ({}), runLogout))
        .addHelpText('after', plainHelpText([plainNone('nothing on stdout: a confirmation on stderr, and the exit code')])),
      ['mq auth logout', 'mq --profile staging auth logout'],
    ),
  );
  return auth;
}
