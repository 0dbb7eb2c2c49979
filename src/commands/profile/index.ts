import { Command } from 'commander';
import type { Context } from '../../context.js';
import { checkApiUrl, parseRepo, resolveProfileName } from '../../config/resolve.js';
import { DEFAULT_PROFILE, type Profile } from '../../config/store.js';
import { ConfigError, UsageError } from '../../errors.js';
import { renderFields, renderRows } from '../../output/render.js';
import { emit, withExamples } from '../shared.js';

/** A profile as shown to people: the token only as set / not set. */
function publicProfile(name: string, p: Profile, active: boolean) {
  return { name, active, apiUrl: p.apiUrl ?? null, repo: p.repo ?? null, branch: p.branch ?? null, token: p.token ? 'set' : 'not set' };
}

export async function runProfileList(ctx: Context): Promise<number> {
  const config = ctx.config();
  const active = resolveProfileName(ctx.options, ctx.env, config).value;
  const names = Object.keys(config.profiles).sort();
  const rows = names.map((n) => publicProfile(n, config.profiles[n] as Profile, n === active));
  await emit(ctx, rows, () =>
    renderRows(
      ['', 'NAME', 'API URL', 'REPO', 'BRANCH', 'TOKEN'],
      rows.map((r) => [r.active ? '*' : '', r.name, r.apiUrl ?? '', r.repo ?? '', r.branch ?? '', r.token]),
      ctx.format(),
      ctx.style,
    ),
  );
  if (names.length === 0) ctx.io.err('no profiles yet; create one with `mq auth login`\n');
  return 0;
}

export async function runProfileShow(ctx: Context, nameArg?: string): Promise<number> {
  const config = ctx.config();
  const active = resolveProfileName(ctx.options, ctx.env, config).value;
  const name = nameArg ?? active;
  const p = config.profiles[name];
  if (!p) throw new ConfigError(`unknown profile "${name}"`, { hints: ['list them with `mq profile list`'] });
  const view = publicProfile(name, p, name === active);
  await emit(ctx, view, () =>
    renderFields(
      [
        { key: 'name', label: 'Profile', value: `${name}${view.active ? ' (active)' : ''}` },
        { key: 'api_url', label: 'API URL', value: view.apiUrl ?? '(default)' },
        { key: 'repo', label: 'Repository', value: view.repo ?? '(inferred)' },
        { key: 'branch', label: 'Target branch', value: view.branch ?? '(inferred)' },
        { key: 'token', label: 'Token', value: view.token },
      ],
      ctx.format(),
      ctx.style,
    ),
  );
  return 0;
}

export async function runProfileUse(ctx: Context, name: string): Promise<number> {
  const store = ctx.store();
  await store.update((data) => {
    if (!data.profiles[name]) {
      throw new ConfigError(`unknown profile "${name}"`, { hints: [`create it with \`mq --profile ${name} auth login\``] });
    }
    data.activeProfile = name;
  });
  ctx.io.err(`✓ profile "${name}" is now active\n`);
  await emit(ctx, { ok: true, activeProfile: name }, () => '');
  return 0;
}

export async function runProfileRemove(ctx: Context, name: string): Promise<number> {
  const store = ctx.store();
  await store.update((data) => {
    if (!data.profiles[name]) throw new ConfigError(`unknown profile "${name}"`, { hints: ['list them with `mq profile list`'] });
    delete data.profiles[name];
    if (data.activeProfile === name) delete data.activeProfile;
  });
  ctx.io.err(`✓ removed profile "${name}"\n`);
  await emit(ctx, { ok: true, removed: name }, () => '');
  return 0;
}

const SETTABLE = ['api-url', 'repo', 'branch'] as const;

export async function runProfileSet(ctx: Context, key: string, value: string): Promise<number> {
  if (!(SETTABLE as readonly string[]).includes(key)) {
    throw new UsageError(`profile set: unknown key "${key}"; expected one of ${SETTABLE.join(', ')}`, { hints: ['the token is set with `mq auth login`'] });
  }
  if (key === 'api-url') checkApiUrl(value, 'api-url', ctx.options.insecureHttp === true);
  if (key === 'repo') parseRepo(value, 'repo');
  if (value.trim() === '') throw new UsageError(`profile set ${key}: the value must not be empty`);
  const store = ctx.store();
  const name = resolveProfileName(ctx.options, ctx.env, store.read()).value;
  await store.update((data) => {
    const p = (data.profiles[name] ??= {});
    if (key === 'api-url') p.apiUrl = value.replace(/\/+$/, '');
    else if (key === 'repo') p.repo = value;
    else p.branch = value;
    data.activeProfile ??= name;
  });
  ctx.io.err(`✓ profile "${name}": ${key} = ${value}\n`);
  await emit(ctx, { ok: true, profile: name, key, value }, () => '');
  return 0;
}

export function profileCommand(ctx: Context): Command {
  const profile = new Command('profile').summary('manage named profiles').description(`Profiles hold an API URL, a token and default repository and branch. The active one is used unless --profile or MQ_PROFILE names another (default: "${DEFAULT_PROFILE}").`);
  profile.addCommand(withExamples(new Command('list').summary('list profiles').action(async () => void (ctx.exitCode = await runProfileList(ctx))), ['mq profile list']));
  profile.addCommand(
    withExamples(
      new Command('show').summary('show a profile (the token only as set or not)').argument('[name]', 'profile name (default: the active one)').action(async (name?: string) => void (ctx.exitCode = await runProfileShow(ctx, name))),
      ['mq profile show', 'mq profile show staging --json'],
    ),
  );
  profile.addCommand(withExamples(new Command('use').summary('make a profile the active one').argument('<name>', 'profile name').action(async (name: string) => void (ctx.exitCode = await runProfileUse(ctx, name))), ['mq profile use local']));
  profile.addCommand(withExamples(new Command('remove').alias('rm').summary('delete a profile and its token').argument('<name>', 'profile name').action(async (name: string) => void (ctx.exitCode = await runProfileRemove(ctx, name))), ['mq profile remove staging']));
  profile.addCommand(
    withExamples(
      new Command('set')
        .summary('set a default in the active profile')
        .argument('<key>', `one of ${SETTABLE.join(', ')}`)
        .argument('<value>', 'the value')
        .action(async (key: string, value: string) => void (ctx.exitCode = await runProfileSet(ctx, key, value))),
      ['mq profile set repo my-org/my-repo', 'mq profile set branch main', 'mq --profile local profile set api-url http://127.0.0.1:8080/v1'],
    ),
  );
  return profile;
}
