import { API_CHOICES } from '../../config/api-choice.js';
import { Command } from 'commander';
import { withoutCredentials } from '../../config/api-url.js';
import { checkApiUrl, parseRepo, resolveProfileName } from '../../config/resolve.js';
import { DEFAULT_PROFILE, type Profile } from '../../config/store.js';
import type { Context, Deps } from '../../context.js';
import { ConfigError, UsageError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { v } from '../../output/render.js';
import { plainBool, plainColumns, plainHelpText, plainKeys, plainNone } from '../../output/plain.js';
import { act, withExamples, withPlainHelp } from '../shared.js';

/** A profile as shown to people: the token only as set / not set, never credentials in a hand-edited URL. */
function publicProfile(name: string, p: Profile, active: boolean) {
  return {
    name,
    active,
    apiUrl: p.apiUrl === undefined ? null : withoutCredentials(p.apiUrl),
    api: p.api ?? null,
    repo: p.repo ?? null,
    branch: p.branch ?? null,
    token: p.token ? 'set' : 'not set',
  };
}

/** `mq profile list` and `mq profile show` piped; the token is never printed, only whether it is set. */
// The name stays the second column: the shell completions read it with `cut -f2`.
export const PROFILE_LIST_PLAIN = plainColumns('one line per profile', [
  'active',
  'name',
  'api_url',
  'repo',
  'branch',
  'token_set',
]);
export const PROFILE_SHOW_PLAIN = plainKeys('one line per setting of the profile', [
  'name',
  'active',
  'api_url',
  'api',
  'repo',
  'branch',
  'token_set',
]);
const CONFIRM_ONLY_PLAIN = plainNone('nothing on stdout: a confirmation on stderr, and the exit code');

export async function runProfileList(_opts: object, ctx: Deps): Promise<Result> {
  const config = ctx.config();
  const active = resolveProfileName(ctx.options, ctx.env, config).value;
  const names = Object.keys(config.profiles).sort();
  const rows = names.map((n) => publicProfile(n, config.profiles[n] as Profile, n === active));
  if (names.length === 0) ctx.out.note('no profiles yet; create one with `mq auth login`');
  return {
    data: rows,
    view: {
      table: [
        {
          headers: ['', 'NAME', 'API URL', 'REPO', 'BRANCH', 'TOKEN'],
          fit: { truncate: ['API URL', 'REPO', 'BRANCH', 'NAME'], drop: ['TOKEN', 'BRANCH'] },
          rows: rows.map((r) => [r.active ? '*' : '', r.name, r.apiUrl ?? '', r.repo ?? '', r.branch ?? '', r.token]),
        },
      ],
      markdown: [
        {
          headers: ['', 'NAME', 'API URL', 'REPO', 'BRANCH', 'TOKEN'],
          rows: rows.map((r) => [r.active ? '*' : '', r.name, r.apiUrl ?? '', r.repo ?? '', r.branch ?? '', r.token]),
        },
      ],
      plain: [
        {
          headers: [],
          rows: rows.map((r) =>
            PROFILE_LIST_PLAIN.row({
              name: r.name,
              active: plainBool(r.active),
              api_url: r.apiUrl ?? '',
              repo: r.repo ?? '',
              branch: r.branch ?? '',
              token_set: String(r.token === 'set'),
            }),
          ),
        },
      ],
    },
    exitCode: 0,
  };
}

export async function runProfileShow({ name: nameArg }: { name?: string }, ctx: Deps): Promise<Result> {
  const config = ctx.config();
  const active = resolveProfileName(ctx.options, ctx.env, config).value;
  const name = nameArg ?? active;
  const p = config.profiles[name];
  if (!p) throw new ConfigError(`unknown profile "${name}"`, { hints: ['list them with `mq profile list`'] });
  const view = publicProfile(name, p, name === active);
  const shown = [
    { key: 'name', label: 'Profile', value: `${name}${view.active ? ' (active)' : ''}` },
    { key: 'api_url', label: 'API URL', value: view.apiUrl ?? '(default)' },
    { key: 'api', label: 'API', value: view.api ?? 'auto' },
    { key: 'repo', label: 'Repository', value: view.repo ?? '(inferred)' },
    { key: 'branch', label: 'Target branch', value: view.branch ?? '(inferred)' },
    { key: 'token', label: 'Token', value: view.token },
  ];
  const f = PROFILE_SHOW_PLAIN.field;
  return {
    data: view,
    exitCode: 0,
    view: {
      table: [{ fields: shown }],
      markdown: [{ fields: shown }],
      plain: [
        {
          fields: [
            f('name', 'Profile', name),
            f('active', 'Active', String(view.active)),
            f('api_url', 'API URL', view.apiUrl ?? ''),
            f('api', 'API', view.api ?? ''),
            f('repo', 'Repository', view.repo ?? ''),
            f('branch', 'Target branch', view.branch ?? ''),
            f('token_set', 'Token set', String(view.token === 'set')),
          ].filter((x) => x.value !== ''),
        },
      ],
    },
  };
}

export async function runProfileUse({ name }: { name: string }, ctx: Deps): Promise<Result> {
  const store = ctx.store();
  await store.update((data) => {
    if (!data.profiles[name]) {
      throw new ConfigError(`unknown profile "${name}"`, {
        hints: [`create it with \`mq --profile ${name} auth login\``],
      });
    }
    data.activeProfile = name;
  });
  ctx.out.note(['✓ profile "', v(name), '" is now active']);
  return { data: { ok: true, activeProfile: name }, exitCode: 0 };
}

export async function runProfileRemove({ name }: { name: string }, ctx: Deps): Promise<Result> {
  const store = ctx.store();
  await store.update((data) => {
    if (!data.profiles[name])
      throw new ConfigError(`unknown profile "${name}"`, { hints: ['list them with `mq profile list`'] });
    delete data.profiles[name];
    if (data.activeProfile === name) delete data.activeProfile;
  });
  ctx.out.note(['✓ removed profile "', v(name), '"']);
  return { data: { ok: true, removed: name }, exitCode: 0 };
}

const SETTABLE = ['api-url', 'api', 'repo', 'branch'] as const;

export async function runProfileSet({ key, value }: { key: string; value: string }, ctx: Deps): Promise<Result> {
  if (!(SETTABLE as readonly string[]).includes(key)) {
    throw new UsageError(`profile set: unknown key "${key}"; expected one of ${SETTABLE.join(', ')}`, {
      hints: ['the token is set with `mq auth login`'],
    });
  }
  if (key === 'api-url') checkApiUrl(value, 'api-url', ctx.options.insecureHttp === true);
  if (key === 'repo') parseRepo(value, 'repo');
  if (key === 'api' && !(API_CHOICES as readonly string[]).includes(value))
    throw new UsageError(`profile set api: "${value.slice(0, 40)}" is not an API version; expected v1, v2 or auto`);
  if (value.trim() === '') throw new UsageError(`profile set ${key}: the value must not be empty`);
  const store = ctx.store();
  const name = resolveProfileName(ctx.options, ctx.env, store.read()).value;
  await store.update((data) => {
    const p = (data.profiles[name] ??= {});
    if (key === 'api-url') p.apiUrl = value.replace(/\/+$/, '');
    else if (key === 'repo') p.repo = value;
    else if (key === 'api') p.api = value;
    else p.branch = value;
    data.activeProfile ??= name;
  });
  ctx.out.note(['✓ profile "', v(name), `": ${key} = `, v(value)]);
  return { data: { ok: true, profile: name, key, value }, exitCode: 0 };
}

export function profileCommand(ctx: Context): Command {
  const profile = new Command('profile')
    .summary('manage named profiles')
    .description(
      `Profiles hold an API URL, a token and default repository and branch. The active one is used unless ` +
        `--profile or MQ_PROFILE names another (default: "${DEFAULT_PROFILE}").`,
    );
  profile.addCommand(
    withExamples(
      withPlainHelp(
        new Command('list').summary('list profiles').action(act(ctx, 'profile list', () => ({}), runProfileList)),
        [PROFILE_LIST_PLAIN],
      ),
      ['mq profile list'],
    ),
  );
  profile.addCommand(
    withExamples(
      new Command('show')
        .summary('show a profile (the token only as set or not)')
        .argument('[name]', 'profile name (default: the active one)')
        .action(act(ctx, 'profile show', (name?: string) => ({ name }), runProfileShow))
        .addHelpText('after', () => plainHelpText([PROFILE_SHOW_PLAIN])),
      ['mq profile show', 'mq profile show staging --json'],
    ),
  );
  profile.addCommand(
    withExamples(
      new Command('use')
        .summary('make a profile the active one')
        .argument('<name>', 'profile name')
        .action(act(ctx, 'profile use', (name: string) => ({ name }), runProfileUse))
        .addHelpText('after', () => plainHelpText([CONFIRM_ONLY_PLAIN])),
      ['mq profile use local'],
    ),
  );
  profile.addCommand(
    withExamples(
      new Command('remove')
        .alias('rm')
        .summary('delete a profile and its token')
        .argument('<name>', 'profile name')
        .action(act(ctx, 'profile remove', (name: string) => ({ name }), runProfileRemove))
        .addHelpText('after', () => plainHelpText([CONFIRM_ONLY_PLAIN])),
      ['mq profile remove staging'],
    ),
  );
  profile.addCommand(
    withExamples(
      new Command('set')
        .summary('set a default in the active profile')
        .argument('<key>', `one of ${SETTABLE.join(', ')}`)
        .argument('<value>', 'the value')
        .action(act(ctx, 'profile set', (key: string, value: string) => ({ key, value }), runProfileSet))
        .addHelpText('after', () => plainHelpText([CONFIRM_ONLY_PLAIN])),
      [
        'mq profile set repo my-org/my-repo',
        'mq profile set branch main',
        'mq --profile local profile set api-url http://127.0.0.1:8080/v1',
      ],
    ),
  );
  return profile;
}
