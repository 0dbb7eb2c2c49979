// Where notifications go: webhook URLs and the GitHub token come from the environment or from files
// (never argv), each URL https (http only to loopback); the authors file maps GitHub logins to Slack ids.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isLoopbackHost } from '../api/connection-checks.js';
import { ConfigError, UsageError } from '../errors.js';
import { SLACK_USER_ID } from './bodies.js';

export type SinkName = 'slack' | 'teams' | 'webhook' | 'github';
export const SINK_NAMES: readonly SinkName[] = ['slack', 'teams', 'webhook', 'github'];

export interface Sinks {
  slack?: string;
  teams?: string;
  webhook?: string;
  github?: { token: string; apiUrl: string };
  /** GitHub login (lower case) -> Slack user id. */
  authors: Map<string, string>;
}

/** What the command line asked for: target switches and the files secrets are read from. */
export interface SinkFlags {
  slack?: boolean;
  teams?: boolean;
  webhook?: boolean;
  github?: boolean;
  slackUrlFile?: string;
  teamsUrlFile?: string;
  webhookUrlFile?: string;
  githubTokenFile?: string;
  authors?: string;
}

const SOURCES = {
  slack: { env: 'MQ_NOTIFY_SLACK_URL', file: 'slackUrlFile', flag: '--slack-url-file', label: 'Slack webhook URL' },
  teams: { env: 'MQ_NOTIFY_TEAMS_URL', file: 'teamsUrlFile', flag: '--teams-url-file', label: 'Teams workflow URL' },
  webhook: { env: 'MQ_NOTIFY_WEBHOOK_URL', file: 'webhookUrlFile', flag: '--webhook-url-file', label: 'webhook URL' },
  github: { env: 'GITHUB_TOKEN', file: 'githubTokenFile', flag: '--github-token-file', label: 'GitHub token' },
} as const;

const MAX_SECRET_FILE = 64 * 1024;
const MAX_AUTHORS_FILE = 1024 * 1024;

function readSmall(path: string, cwd: string, max: number, flag: string): string {
  const full = resolve(cwd, path);
  try {
    if (statSync(full).size > max) throw new UsageError(`${flag}: ${path} is larger than ${max} bytes`);
    return readFileSync(full, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${flag}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** A notification URL: https, or http to loopback; without credentials in it being echoed. */
export function checkSinkUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${source}: not a URL`, { hints: ['expected https://…'] });
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return url.href;
  throw new UsageError(`${source}: must use https:// (http:// only to localhost)`, {
    hints: ['the URL is a secret: keep it in the environment or a file, never on the command line'],
  });
}

function secret(name: SinkName, flags: SinkFlags, env: NodeJS.ProcessEnv, cwd: string): [string, string] | undefined {
  const s = SOURCES[name];
  const file = flags[s.file];
  if (file !== undefined) return [readSmall(file, cwd, MAX_SECRET_FILE, s.flag).trim(), `${s.flag} ${file}`];
  const value = env[s.env]?.trim();
  return value ? [value, s.env] : undefined;
}

/**
 * The targets: those named (`--slack`, or a file for it); none named: every webhook whose variable is
 * set (GitHub only when asked: GITHUB_TOKEN is set for other reasons in CI).
 */
export function resolveSinks(flags: SinkFlags, env: NodeJS.ProcessEnv, cwd: string): Sinks {
  const named = SINK_NAMES.filter((n) => flags[n] === true || flags[SOURCES[n].file] !== undefined);
  const chosen = named.length > 0 ? named : SINK_NAMES.filter((n) => n !== 'github' && env[SOURCES[n].env]?.trim());
  if (chosen.length === 0)
    throw new UsageError('no notification target: pass --slack, --teams, --github or --webhook', {
      hints: ['set MQ_NOTIFY_SLACK_URL (or MQ_NOTIFY_TEAMS_URL, MQ_NOTIFY_WEBHOOK_URL) in the environment'],
    });
  const sinks: Sinks = { authors: flags.authors ? readAuthors(flags.authors, cwd) : new Map() };
  for (const name of chosen) {
    const s = SOURCES[name];
    const found = secret(name, flags, env, cwd);
    if (!found) throw new ConfigError(`--${name}: no ${s.label}`, { hints: [`set ${s.env}, or pass ${s.flag} FILE`] });
    const [value, source] = found;
    if (name === 'github') {
      if (!/^[\x21-\x7e]+$/.test(value)) throw new ConfigError(`${source}: the GitHub token is not visible ASCII`);
      const apiUrl = checkSinkUrl(env.GITHUB_API_URL?.trim() || 'https://api.github.com', 'GITHUB_API_URL');
      sinks.github = { token: value, apiUrl: apiUrl.replace(/\/+$/, '') };
    } else sinks[name] = checkSinkUrl(value, source);
  }
  return sinks;
}

/** `--authors FILE`: a JSON object `{"login": "U123"}`, or `login: U123` lines (`#` comments). */
export function readAuthors(path: string, cwd: string): Map<string, string> {
  const text = readSmall(path, cwd, MAX_AUTHORS_FILE, '--authors');
  const out = new Map<string, string>();
  const add = (login: string, id: unknown, where: string) => {
    if (typeof id !== 'string' || !SLACK_USER_ID.test(id.trim()))
      throw new UsageError(`--authors: ${where}: expected a Slack user id like U0123ABCD for ${JSON.stringify(login)}`);
    out.set(login.trim().toLowerCase(), id.trim());
  };
  if (text.trimStart().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new UsageError(`--authors: ${path} is not valid JSON`, { hints: ['or write one `login: U123` a line'] });
    }
    for (const [login, id] of Object.entries(parsed as Record<string, unknown>)) add(login, id, path);
    return out;
  }
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new UsageError(`--authors: ${path}:${i + 1}: expected \`login: U123\``);
    add(line.slice(0, colon), line.slice(colon + 1), `${path}:${i + 1}`);
  });
  return out;
}

/** What --debug shows of a webhook URL (the whole URL is the secret). */
export const shownUrl = (url: string) => `${new URL(url).origin}/***`;
