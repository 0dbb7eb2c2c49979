import { Command } from 'commander';
import { checkApiUrl, checkToken, DEFAULT_API_URL, parseRepo, resolveProfileName } from '../../config/resolve.js';
import type { Context, Deps } from '../../context.js';
import { ExitCode, MqError, UsageError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { own, paints, v } from '../../output/render.js';
import { plainHelpText, plainNone } from '../../output/plain.js';
import { act, readStdinLimited, withExamples } from '../shared.js';
import { AUTH_STATUS_PLAIN, runAuthStatus } from './status.js';

export { AUTH_STATUS_PLAIN, runAuthStatus };

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
    if (!token)
      throw new UsageError('--with-token: standard input was empty', {
        hints: ['e.g. mq auth login --with-token < token.txt'],
      });
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
  // The URL this profile will send the token to: the one given now, else the one it has, else the default.
  const storedUrl = (apiUrl ?? config.profiles[name]?.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
  const check = await checkNewToken(ctx, storedUrl, token);
  // v2 goes to the URL's origin: name the place the token was sent to.
  const sentTo = check.api?.api === 'v2' ? check.api.baseUrl : storedUrl;
  if (check.refused) {
    throw new MqError(
      check.refused.exitCode,
      'auth login',
      `${sentTo} refused the token (${check.refused.why}); it was not saved`,
      {
        hints: ['check that the token is for this service, or pass the right one with --api-url'],
      },
    );
  }
  await store.update((data) => {
    const existing = data.profiles[name] ?? {};
    data.profiles[name] = {
      ...existing,
      token,
      ...(apiUrl ? { apiUrl: apiUrl.replace(/\/+$/, '') } : {}),
      ...(repo ? { repo } : {}),
      ...(ctx.options.branch ? { branch: ctx.options.branch } : {}),
      // An explicit --api is kept; auto is decided again each run from the key and URL stored here.
      ...(ctx.options.api ? { api: ctx.options.api } : {}),
    };
    data.activeProfile ??= name;
  });
  ctx.out.note([
    own(paints.green, '✓'),
    ' saved the token in profile "',
    v(name),
    `" (`,
    v(store.path),
    ') for ',
    v(sentTo),
  ]);
  if (check.api?.api === 'v2') ctx.out.note(['the credential is for the v2 API']);
  if (check.ok) ctx.out.note([own(paints.green, '✓'), ' the service accepted the token']);
  else
    ctx.out.note([
      own(paints.yellow, 'warning:'),
      ' could not check the token: ',
      v(check.detail),
      '; `mq auth status` checks it later',
    ]);
  const envUrl = ctx.env.MQ_API_URL;
  if (!apiUrl && envUrl && envUrl.replace(/\/+$/, '') !== storedUrl)
    ctx.out.note(['note: MQ_API_URL (', v(envUrl), ') overrides it while set']);
  return {
    data: {
      ok: true,
      profile: name,
      configFile: store.path,
      apiUrl: storedUrl,
      tokenCheck: { ok: check.ok, detail: check.detail },
      ...(check.api ? { api: check.api.api } : {}),
    },
    exitCode: 0,
  };
}

/** How long `auth login` spends checking the token before saving it unchecked. */
const LOGIN_CHECK_MS = 5000;

/** One read with an unsaved token (the client's credential check); which API and URL it went to. */
async function checkNewToken(
  ctx: Deps,
  apiUrl: string,
  token: string,
): Promise<{ ok: boolean; detail: string; refused?: MqError; api?: { api: string; baseUrl: string } }> {
  // A credential the chosen API cannot take (a v2 key for a profile set to v1) is refused here (exit 7).
  const client = await ctx.client({ connection: { apiUrl, token } });
  const api = { api: client.api, baseUrl: client.http.settings.baseUrl };
  try {
    await client.checkCredential(probeTarget(ctx), { deadline: ctx.clock.now() + LOGIN_CHECK_MS, signal: ctx.signal });
    return { ok: true, detail: 'accepted', api };
  } catch (err) {
    if (!(err instanceof MqError)) throw err;
    if (err.exitCode === ExitCode.auth) return { ok: false, detail: err.why, refused: err, api };
    return { ok: false, detail: err.why, api };
  }
}

/** The target queue (or a made-up one): v1 probes its PR 0, never a real PR. */
function probeTarget(ctx: Deps) {
  let repo = { host: 'github.com', owner: 'mq-auth-check', name: 'mq-auth-check' };
  let targetBranch = 'main';
  try {
    const t = ctx.target();
    repo = t.repo;
    targetBranch = t.targetBranch;
  } catch {
    // no queue configured: the made-up one
  }
  return { repo, targetBranch };
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
  ctx.out.note(
    removed ? ['✓ removed the token from profile "', v(name), '"'] : ['profile "', v(name), '" had no token'],
  );
  return { data: { ok: true, profile: name, changed: removed }, exitCode: 0 };
}

export function authCommand(ctx: Context): Command {
  const auth = new Command('auth')
    .summary('log in, check and log out')
    .description('Store, check and remove the API token of a profile.');
  auth.addCommand(
    withExamples(
      new Command('login')
        .summary('store an API token in the active profile')
        .description(
          `Store the API token in the active profile (config file mode 0600). On a terminal the token is ` +
            `asked for with hidden input; --with-token reads it from stdin. The API URL defaults ` +
            `to ${DEFAULT_API_URL}; a v2 API key (trunk_v2_…) speaks v2 to the URL's origin.`,
        )
        .option('--with-token', 'read the token from standard input')
        .action(act(ctx, 'auth login', (f: LoginOptions): LoginOptions => ({ withToken: f.withToken }), runLogin))
        .addHelpText('after', () =>
          plainHelpText([plainNone('nothing on stdout: a confirmation on stderr, and the exit code')]),
        ),
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
          'Show the active profile, the config file, and the source of the API URL, token, repository and ' +
            'branch; then check the token with one cheap call (on v2 also whether the key can write). The token ' +
            'itself is never printed.',
        )
        .action(act(ctx, 'auth status', () => ({}), runAuthStatus))
        .addHelpText('after', () => plainHelpText([AUTH_STATUS_PLAIN])),
      ['mq auth status', 'mq auth status --json'],
    ),
  );
  auth.addCommand(
    withExamples(
      new Command('logout')
        .summary('remove the token from the active profile')
        .action(act(ctx, 'auth logout', () => ({}), runLogout))
        .addHelpText('after', () =>
          plainHelpText([plainNone('nothing on stdout: a confirmation on stderr, and the exit code')]),
        ),
      ['mq auth logout', 'mq --profile staging auth logout'],
    ),
  );
  return auth;
}
