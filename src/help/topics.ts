/** Help topics that are not commands: the exit codes and the environment variables. */
import { EXIT_CODES } from '../errors.js';

export const ENVIRONMENT: ReadonlyArray<{ name: string; meaning: string }> = [
  { name: 'MQ_TOKEN', meaning: 'API token; beats the profile (falls back to TRUNK_API_TOKEN)' },
  { name: 'TRUNK_API_TOKEN', meaning: 'API token, used when MQ_TOKEN is unset' },
  { name: 'MQ_API_URL', meaning: 'base URL of the service, ending in /v1 (default https://api.trunk.io/v1)' },
  { name: 'MQ_PROFILE', meaning: 'profile to use instead of the active one' },
  { name: 'MQ_REPO', meaning: 'repository as [host/]owner/name' },
  { name: 'MQ_BRANCH', meaning: 'target branch of the queue' },
  { name: 'MQ_TIMEOUT', meaning: 'per-request timeout (default 30s)' },
  { name: 'MQ_CONFIG_DIR', meaning: 'directory of config.json (default $XDG_CONFIG_HOME/mq or ~/.config/mq)' },
  { name: 'MQ_DEBUG', meaning: 'set to 1 to log requests and responses to stderr (token redacted)' },
  { name: 'MQ_RETRY_BASE_MS', meaning: 'first delay of the retry backoff in ms (default 500; doubles each retry)' },
  {
    name: 'MQ_EMULATOR_TOKEN',
    meaning: 'token for `mq emulator start` when --token is not given (default: generated)',
  },
  {
    name: 'MQ_WEBHOOK_SECRET',
    meaning: 'webhook signing secret(s) for `mq webhooks` (whsec_…; comma or newline separated)',
  },
  { name: 'MQ_NOTIFY_SLACK_URL', meaning: 'mq notify: the Slack incoming webhook URL (a secret)' },
  { name: 'MQ_NOTIFY_TEAMS_URL', meaning: 'mq notify: the Teams workflow webhook URL (a secret)' },
  { name: 'MQ_NOTIFY_WEBHOOK_URL', meaning: 'mq notify: a URL to post the JSON document to (a secret)' },
  { name: 'GITHUB_TOKEN', meaning: 'mq notify --github: the token that comments on the PR' },
  { name: 'GITHUB_API_URL', meaning: 'mq notify --github: the GitHub API (default https://api.github.com)' },
  { name: 'GITHUB_REPOSITORY', meaning: 'repository fallback in GitHub Actions' },
  { name: 'GITHUB_SERVER_URL', meaning: 'host of GITHUB_REPOSITORY (default github.com)' },
  { name: 'GITHUB_BASE_REF', meaning: 'target branch fallback in GitHub Actions' },
  { name: 'GITHUB_ACTIONS', meaning: 'when "true", the PR number may be omitted' },
  { name: 'GITHUB_REF', meaning: 'in Actions, `refs/pull/N/merge` gives the PR number' },
  { name: 'GITHUB_EVENT_PATH', meaning: 'in Actions, the event payload; its pull_request.number gives the PR number' },
  { name: 'CI', meaning: 'when set, mq never prompts' },
  { name: 'NO_COLOR', meaning: 'when set (non-empty), no colour' },
  { name: 'FORCE_COLOR', meaning: '0 turns colour off, 1 forces it on' },
  { name: 'HTTPS_PROXY, HTTP_PROXY, NO_PROXY', meaning: 'proxy settings, honoured for every request' },
];

export function exitCodesText(): string {
  const row = (e: (typeof EXIT_CODES)[number]) => `  ${String(e.code).padStart(3)}  ${e.name.padEnd(12)} ${e.meaning}`;
  const kinds = "A failure's kind is its name: `error.kind` under --json, `kind` of the library's MergeQueueError.";
  return `Exit codes of mq (stable; scripts may rely on them):\n\n${EXIT_CODES.map(row).join('\n')}\n\n${kinds}\n`;
}

export function environmentText(): string {
  const width = Math.max(...ENVIRONMENT.map((e) => e.name.length));
  const rows = ENVIRONMENT.map((e) => `  ${e.name.padEnd(width)}  ${e.meaning}`).join('\n');
  return (
    `Environment variables read by mq (an empty variable counts as unset):\n\n${rows}\n\n` +
    'Precedence for every setting: flag > environment > active profile > inference from git.\n'
  );
}
