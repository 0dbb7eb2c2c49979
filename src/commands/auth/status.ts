// `mq auth status`: where each setting comes from, and one cheap call that checks the token.
import {
  formatRepo,
  parseRepo,
  resolveApiUrl,
  resolveBranch,
  resolveProfileName,
  resolveRepo,
  resolveToken,
  type Sourced,
} from '../../config/resolve.js';
import type { WriteProbe } from '../../api/credential.js';
import type { ApiChoice } from '../../config/api-choice.js';
import type { Deps } from '../../context.js';
import { ExitCode, MqError, UsageError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { v, type Field } from '../../output/render.js';
import { plainKeys } from '../../output/plain.js';

function sourced(
  key: string,
  label: string,
  v: Sourced<string> | undefined,
  shown?: string,
  unset = '(not set)',
): Field {
  return { key, label, value: v ? `${shown ?? v.value} (${v.source})` : unset };
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
  'api',
  'api_source',
  'base_url',
  'write_check',
  'write_check_detail',
]);

/** `merge and cancel PRs: allowed (probe answered 404, not 403)`. */
function writeLine(w: WriteProbe): string {
  return `${w.permission}: ${w.verdict} (${w.detail}; ${w.probe})`;
}

export async function runAuthStatus(_opts: object, ctx: Deps): Promise<Result> {
  const store = ctx.store();
  const config = ctx.config();
  const profileName = resolveProfileName(ctx.options, ctx.env, config);
  const profile = config.profiles[profileName.value] ?? {};
  const apiUrl = resolveApiUrl(ctx.options, ctx.env, profile, profileName.value);
  const token = resolveToken(ctx.env, profile, profileName.value);
  if (token) ctx.io.addSecret(token.value);
  // Repository and branch apart, each with why it could not be found (no remote, origin/HEAD not set).
  const t = { flags: ctx.options, env: ctx.env, profile, profileName: profileName.value, cwd: ctx.cwd };
  const unresolved: MqError[] = [];
  const attempt = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (err) {
      if (err instanceof MqError) unresolved.push(err);
      return undefined;
    }
  };
  const repoRef = attempt(() => resolveRepo(t));
  const repo: Sourced<string> | undefined = repoRef
    ? { value: formatRepo(repoRef.value), source: repoRef.source }
    : undefined;
  const branch = attempt(() => resolveBranch(t));
  const notSet = (e: MqError | undefined) =>
    e ? `(not set: ${/\(([^()]*)\)$/.exec(e.why)?.[1] ?? e.why})` : undefined;
  // One cheap authenticated read (the client's credential check); on v2 also a write probe, in parallel.
  let check: { ok: boolean; detail: string };
  let failure: MqError | undefined;
  let v2: { choice: ApiChoice; write?: WriteProbe } | undefined;
  if (!token) check = { ok: false, detail: 'no token' };
  else {
    try {
      const client = await ctx.client();
      if (client.api === 'v2') v2 = { choice: ctx.connection().api };
      const answer = await client.checkCredential({
        repo: repo
          ? parseRepo(repo.value, 'repo')
          : { host: 'github.com', owner: 'mq-auth-check', name: 'mq-auth-check' },
        targetBranch: branch?.value ?? 'main',
        probeWrite: v2 !== undefined,
      });
      if (v2 && answer.write) v2.write = answer.write;
      check = { ok: true, detail: 'accepted' };
    } catch (err) {
      // A mistake on the command line (`--timeout ALL`) is refused like everywhere else: one error
      // line, no report around it.
      if (err instanceof UsageError) throw err;
      const e = err instanceof MqError ? err : undefined;
      check = { ok: false, detail: e ? e.why : String(err) };
      failure = e ?? new MqError(ExitCode.unexpected, 'check the token', String(err));
    }
  }
  const fields: Field[] = [
    { key: 'profile', label: 'Profile', value: `${profileName.value} (${profileName.source})` },
    { key: 'config_file', label: 'Config file', value: store.path },
    sourced('api_url', 'API URL', apiUrl),
    sourced('token', 'Token', token, token ? 'set' : undefined),
    sourced('repo', 'Repository', repo, undefined, notSet(repo ? undefined : unresolved[0])),
    sourced(
      'branch',
      'Target branch',
      branch,
      undefined,
      notSet(branch ? undefined : unresolved[unresolved.length - 1]),
    ),
    { key: 'token_check', label: 'Token check', value: check.ok ? `ok: ${check.detail}` : `failed: ${check.detail}` },
  ];
  // v2 only (v1's report stays as it was): the API, where requests go, and whether the key may write.
  if (v2) {
    const at = fields.findIndex((x) => x.key === 'api_url') + 1;
    fields.splice(
      at,
      0,
      { key: 'api', label: 'API', value: `${v2.choice.api} (${v2.choice.source})` },
      { key: 'base_url', label: 'Base URL', value: v2.choice.baseUrl },
    );
    if (v2.write) fields.push({ key: 'write_check', label: 'Key can write', value: writeLine(v2.write) });
  }
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
    f('api', 'API', v2?.choice.api ?? ''),
    f('api_source', 'API from', v2?.choice.source ?? ''),
    f('base_url', 'Base URL', v2?.choice.baseUrl ?? ''),
    f('write_check', 'Key can write', v2?.write?.verdict ?? ''),
    f('write_check_detail', 'Key can write detail', v2?.write ? writeLine(v2.write) : ''),
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
    ...(v2 ? { api: { ...v2.choice }, ...(v2.write ? { writeCheck: v2.write } : {}) } : {}),
  };
  // What would make the repository and branch known: `git remote set-head origin --auto` and the like.
  for (const e of unresolved) for (const h of e.hints.slice(0, 1)) ctx.out.note(['hint: ', v(h.replace(/^or /, ''))]);
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
