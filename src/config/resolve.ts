// Each setting resolves flag > environment > profile > inference and keeps its source (for auth status
// and errors). An empty environment variable counts as unset (CI exports them freely).
import { ConfigError, UsageError } from '../errors.js';
import type { RepoRef } from '../api/schemas.js';
import { checkApiUrl, checkToken, DEFAULT_API_URL } from '../api/connection-checks.js';
import { readGitFacts, type GitFacts } from './git.js';
import { DEFAULT_PROFILE, isProfileName, quoteName, type ConfigData, type Profile } from './store.js';

export { checkApiUrl, checkToken, DEFAULT_API_URL, isLoopbackHost } from '../api/connection-checks.js';

export interface Sourced<T> {
  value: T;
  source: string;
}

export interface GlobalFlags {
  profile?: string;
  apiUrl?: string;
  /** v1, v2 or auto (api-choice.ts). */
  api?: string;
  repo?: string;
  branch?: string;
  insecureHttp?: boolean;
}

export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** A profile name from a flag (exit 2) or the environment (exit 7) must match PROFILE_NAME. */
export function checkProfileName(name: string, source: string): string {
  if (isProfileName(name)) return name;
  const why = `the profile name ${quoteName(name)} (from ${source}) is not allowed`;
  const hints = ['a profile name is 1-64 letters, digits, "_", "." or "-", starting with a letter or digit'];
  throw source.startsWith('flag') ? new UsageError(why, { hints }) : new ConfigError(why, { hints });
}

export function resolveProfileName(flags: GlobalFlags, env: NodeJS.ProcessEnv, data: ConfigData): Sourced<string> {
  if (flags.profile !== undefined)
    return { value: checkProfileName(flags.profile, 'flag --profile'), source: 'flag --profile' };
  const fromEnv = envValue(env, 'MQ_PROFILE');
  if (fromEnv) return { value: checkProfileName(fromEnv, 'env MQ_PROFILE'), source: 'env MQ_PROFILE' };
  if (data.activeProfile && isProfileName(data.activeProfile))
    return { value: data.activeProfile, source: 'config activeProfile' };
  return { value: DEFAULT_PROFILE, source: 'default' };
}

/** The profile called `name`, looked up as an own entry only (never an Object.prototype member). */
export function findProfile(data: ConfigData, name: string): Profile | undefined {
  return Object.hasOwn(data.profiles, name) ? data.profiles[name] : undefined;
}

/** The active profile's data; naming a profile that does not exist is a configuration error. */
export function activeProfile(name: Sourced<string>, data: ConfigData): Profile {
  const p = findProfile(data, name.value);
  if (p) return p;
  if (name.source === 'default' || name.source === 'config activeProfile') return {};
  const known = Object.keys(data.profiles);
  throw new ConfigError(`unknown profile "${name.value}" (from ${name.source})`, {
    hints: [
      known.length
        ? `known profiles: ${known.join(', ')}`
        : 'no profiles yet: create one with `mq auth login --profile NAME`',
    ],
  });
}

export function resolveApiUrl(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  profile: Profile,
  profileName: string,
): Sourced<string> {
  const pick = (): Sourced<string> => {
    if (flags.apiUrl) return { value: flags.apiUrl, source: 'flag --api-url' };
    const fromEnv = envValue(env, 'MQ_API_URL');
    if (fromEnv) return { value: fromEnv, source: 'env MQ_API_URL' };
    if (profile.apiUrl) return { value: profile.apiUrl, source: `profile "${profileName}"` };
    return { value: DEFAULT_API_URL, source: 'default' };
  };
  const chosen = pick();
  return { value: checkApiUrl(chosen.value, chosen.source, flags.insecureHttp === true), source: chosen.source };
}

export function resolveToken(
  env: NodeJS.ProcessEnv,
  profile: Profile,
  profileName: string,
): Sourced<string> | undefined {
  const mq = envValue(env, 'MQ_TOKEN');
  if (mq) return { value: checkToken(mq, 'env MQ_TOKEN'), source: 'env MQ_TOKEN' };
  const trunk = envValue(env, 'TRUNK_API_TOKEN');
  if (trunk) return { value: checkToken(trunk, 'env TRUNK_API_TOKEN'), source: 'env TRUNK_API_TOKEN' };
  if (profile.token)
    return { value: checkToken(profile.token, `profile "${profileName}"`), source: `profile "${profileName}"` };
  return undefined;
}

export function missingToken(profileName: string): ConfigError {
  return new ConfigError(`no API token (profile "${profileName}" has none and MQ_TOKEN is not set)`, {
    hints: ['run `mq auth login`, or set MQ_TOKEN in the environment'],
  });
}

const NAME_PART = /^[A-Za-z0-9_.-]+$/;
const HOST_PART = /^[A-Za-z0-9.-]+(:\d+)?$/;

/** `[host/]owner/name`, host defaulting to github.com. */
export function parseRepo(text: string, source: string): RepoRef {
  const parts = text
    .trim()
    .replace(/\.git$/, '')
    .split('/');
  const bad = () =>
    new UsageError(`${source}: ${JSON.stringify(text)} is not a repository; expected [host/]owner/name`, {
      hints: ['for example: --repo my-org/my-repo or --repo github.com/my-org/my-repo'],
    });
  if (parts.length === 2) parts.unshift('github.com');
  if (parts.length !== 3) throw bad();
  const [host, owner, name] = parts as [string, string, string];
  if (!HOST_PART.test(host) || !NAME_PART.test(owner) || !NAME_PART.test(name) || name === '.' || name === '..')
    throw bad();
  return { host: host.toLowerCase(), owner, name };
}

export function formatRepo(repo: RepoRef): string {
  return `${repo.host}/${repo.owner}/${repo.name}`;
}

export interface TargetContext {
  flags: GlobalFlags;
  env: NodeJS.ProcessEnv;
  profile: Profile;
  profileName: string;
  cwd: string;
}

let gitCache: { cwd: string; facts: GitFacts } | undefined;
function git(cwd: string): GitFacts {
  if (gitCache?.cwd !== cwd) gitCache = { cwd, facts: readGitFacts(cwd) };
  return gitCache.facts;
}

export function resolveRepo(t: TargetContext): Sourced<RepoRef> {
  if (t.flags.repo) return { value: parseRepo(t.flags.repo, '--repo'), source: 'flag --repo' };
  const mq = envValue(t.env, 'MQ_REPO');
  if (mq) return { value: parseRepo(mq, 'MQ_REPO'), source: 'env MQ_REPO' };
  const gh = envValue(t.env, 'GITHUB_REPOSITORY');
  if (gh) {
    let host = 'github.com';
    const server = envValue(t.env, 'GITHUB_SERVER_URL');
    if (server) {
      try {
        host = new URL(server).host;
      } catch {
        // keep github.com
      }
    }
    return { value: parseRepo(`${host}/${gh}`, 'GITHUB_REPOSITORY'), source: 'env GITHUB_REPOSITORY' };
  }
  if (t.profile.repo)
    return {
      value: parseRepo(t.profile.repo, `profile "${t.profileName}" repo`),
      source: `profile "${t.profileName}"`,
    };
  const facts = git(t.cwd);
  const inferred = facts.repo;
  if (inferred) return { value: parseRepo(inferred, 'git remote origin'), source: 'git remote origin' };
  const why = !facts.inRepo
    ? 'not inside a git clone'
    : facts.hasOrigin
      ? 'the URL of git remote origin is not a [host/]owner/name repository'
      : 'this git clone has no remote named origin';
  throw new UsageError(`no repository: pass --repo [host/]owner/name (${why})`, {
    hints: [
      'or set MQ_REPO, set a default with `mq profile set repo OWNER/NAME`, or run inside a clone with an ' +
        'origin remote',
    ],
  });
}

export function resolveBranch(t: TargetContext): Sourced<string> {
  if (t.flags.branch) return { value: t.flags.branch, source: 'flag --branch' };
  const mq = envValue(t.env, 'MQ_BRANCH');
  if (mq) return { value: mq, source: 'env MQ_BRANCH' };
  const base = envValue(t.env, 'GITHUB_BASE_REF');
  if (base) return { value: base, source: 'env GITHUB_BASE_REF' };
  if (t.profile.branch) return { value: t.profile.branch, source: `profile "${t.profileName}"` };
  const facts = git(t.cwd);
  const inferred = facts.defaultBranch;
  if (inferred) return { value: inferred, source: 'git origin/HEAD' };
  const setHead = facts.inRepo && facts.hasOrigin;
  const why = !facts.inRepo
    ? 'not inside a git clone'
    : facts.hasOrigin
      ? 'origin/HEAD is not set in this clone'
      : 'this git clone has no remote named origin';
  throw new UsageError(`no target branch: pass --branch NAME (${why})`, {
    hints: [
      ...(setHead ? ['or record the remote default branch: git remote set-head origin --auto'] : []),
      'or set MQ_BRANCH, or set a default with `mq profile set branch NAME`',
    ],
  });
}
