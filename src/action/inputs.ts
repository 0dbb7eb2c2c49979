// The action's inputs, checked before sending, defaults from the workflow run's GITHUB_* variables;
// a bad one is an InputError naming it (exit 2, or 7 for configuration).
import { readFileSync } from 'node:fs';

import { COMMIT_SHA, MAX_U32, WORKFLOW_RUN_ID } from '../domain/vocabulary.js';
import { checkApiUrl, checkedTimeout, checkToken, DEFAULT_API_URL } from '../api/connection-checks.js';
import { API_CHOICES, V2_KEY_PREFIX } from '../api/api-choice.js';
import { isForkEvent } from '../config/fork.js';
import { MqError } from '../errors.js';
import { MAX_REQUEUES } from '../commands/requeue.js';
import { parseDuration } from '../util/duration.js';
import type { PriorityName, RepoRef } from '../lib/types.js';
import type { Workflow } from './workflow.js';

type ApiChoiceName = (typeof API_CHOICES)[number];

export class InputError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 2,
  ) {
    super(message);
    this.name = 'InputError';
  }
}

export interface ActionInputs {
  /** Empty in a fork PR's run without one: the action then only uploads the impacted targets. */
  token: string;
  /** A fork PR's workflow run id, the targets upload's credential (input, or GITHUB_RUN_ID there without a token). */
  forkedWorkflowRunId?: string;
  apiUrl: string;
  /** v1, v2 or auto (a v2 key, or an api-url without a version segment, means v2). */
  api: ApiChoiceName;
  repo: RepoRef;
  branch: string;
  pr: number;
  priority?: number | PriorityName;
  noBatch: boolean;
  wait: boolean;
  /** Without a service estimate, mq's own (the planner's simulation of the queue). */
  eta?: true;
  timeoutMs: number;
  intervalMs: number;
  /** Resubmits allowed after a flaky or infrastructure failure (absent: 0, off). */
  requeue?: number;
  /** Impacted targets to upload before submitting, with the SHA they belong to. */
  targets?: { sha: string; impactedTargets: 'ALL' | string[] };
}

const NAME_PART = /^[A-Za-z0-9_.-]+$/;
const HOST_PART = /^[A-Za-z0-9.-]+(:\d+)?$/;

interface PullRequestEvent {
  number?: unknown;
  pull_request?: { number?: unknown; base?: { ref?: unknown }; head?: { sha?: unknown } };
  issue?: { number?: unknown; pull_request?: unknown };
}

/** A CLI check (src/api/connection-checks.ts); its refusal, with exit code and hints, as an InputError. */
function shared<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (!(err instanceof MqError)) throw err;
    throw new InputError([err.why, ...err.hints.map((h) => `hint: ${h}`)].join('\n'), err.exitCode);
  }
}

function readEvent(env: NodeJS.ProcessEnv): PullRequestEvent {
  const path = env.GITHUB_EVENT_PATH;
  if (!path) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as PullRequestEvent) : {};
  } catch (err) {
    throw new InputError(
      `GITHUB_EVENT_PATH: cannot read the event file ${path} (${(err as NodeJS.ErrnoException).code ?? 'not JSON'})`,
    );
  }
}

export function parseBoolean(name: string, text: string, fallback: boolean): boolean {
  if (text === '') return fallback;
  if (['true', 'True', 'TRUE'].includes(text)) return true;
  if (['false', 'False', 'FALSE'].includes(text)) return false;
  throw new InputError(`input ${name}: ${JSON.stringify(text)} is not a boolean; use true or false`);
}

function duration(name: string, text: string, fallback: string): number {
  let ms: number;
  try {
    ms = parseDuration(text || fallback, `input ${name}`);
  } catch (err) {
    throw new InputError((err as { why?: string }).why ?? (err as Error).message);
  }
  return shared(() => checkedTimeout(ms, `input ${name}`));
}

export function parseRepo(text: string, source: string): RepoRef {
  const parts = text
    .trim()
    .replace(/\.git$/, '')
    .split('/');
  if (parts.length === 2) parts.unshift('github.com');
  const [host, owner, name] = parts as [string, string, string];
  if (
    parts.length !== 3 ||
    !HOST_PART.test(host) ||
    !NAME_PART.test(owner) ||
    !NAME_PART.test(name) ||
    name === '.' ||
    name === '..'
  ) {
    throw new InputError(
      `${source}: ${JSON.stringify(text)} is not a repository; expected [host/]owner/name, e.g. my-org/my-repo`,
    );
  }
  return { host: host.toLowerCase(), owner, name };
}

function prNumber(text: string, source: string): number {
  const t = text.trim().replace(/^#/, '');
  if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > MAX_U32)
    throw new InputError(
      `${source}: ${JSON.stringify(text)} is not a PR number; expected an integer from 1 to ${MAX_U32}`,
    );
  return Number(t);
}

function parseTargetsText(text: string, source: string): string[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new InputError(`${source} starts with [ but is not a valid JSON array`);
    }
    if (!Array.isArray(parsed) || parsed.some((t) => typeof t !== 'string' || t === ''))
      throw new InputError(`${source} must be a JSON array of non-empty strings`);
    return parsed as string[];
  }
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

export function readInputs(wf: Workflow, env: NodeJS.ProcessEnv): ActionInputs {
  const token = wf.input('token');
  // Before anything else can print it.
  if (token !== '') {
    wf.mask(token);
    shared(() => checkToken(token, 'input token'));
  }
  const forkInput = wf.input('forked-workflow-run-id');
  if (forkInput !== '' && !WORKFLOW_RUN_ID.test(forkInput)) {
    const given = JSON.stringify(forkInput);
    throw new InputError(
      `input forked-workflow-run-id: ${given} is not a workflow run id; expected digits (e.g. github.run_id)`,
    );
  }
  const tokenRequired = () =>
    new InputError('input token: required (the merge queue API token, e.g. from secrets.MQ_TOKEN)', 7);
  let event: PullRequestEvent;
  try {
    event = readEvent(env);
  } catch (err) {
    // No token, and no event to tell a fork's run: the token is what is missing.
    throw token === '' && forkInput === '' ? tokenRequired() : err;
  }
  const runId = env.GITHUB_RUN_ID ?? '';
  const forked = forkInput || (token === '' && isForkEvent(event) && WORKFLOW_RUN_ID.test(runId) ? runId : '');
  if (token === '' && forked === '') throw tokenRequired();

  const apiUrl = wf.input('api-url') || DEFAULT_API_URL;
  shared(() => checkApiUrl(apiUrl, 'input api-url', false, 'use https:// (plain http:// only to this machine)'));
  const api = (wf.input('api') || 'auto') as ApiChoiceName;
  if (!(API_CHOICES as readonly string[]).includes(api))
    throw new InputError(
      `input api: ${JSON.stringify(api.slice(0, 40))} is not an API version; expected v1, v2 or auto`,
    );
  if (api === 'v1' && token.startsWith(V2_KEY_PREFIX)) {
    const why = `input api: v1, but the token is a v2 API key (${V2_KEY_PREFIX}…), which works only on v2`;
    throw new InputError(`${why}\nhint: leave api unset (auto), or use an organization token for v1`, 7);
  }

  let repo: RepoRef;
  const repoInput = wf.input('repo');
  if (repoInput) repo = parseRepo(repoInput, 'input repo');
  else if (env.GITHUB_REPOSITORY) {
    let host = 'github.com';
    try {
      if (env.GITHUB_SERVER_URL) host = new URL(env.GITHUB_SERVER_URL).host;
    } catch {
      // keep github.com
    }
    repo = parseRepo(`${host}/${env.GITHUB_REPOSITORY}`, 'GITHUB_REPOSITORY');
  } else throw new InputError('input repo: required outside GitHub Actions (owner/name)');

  const baseRef = event.pull_request?.base?.ref;
  const branch = wf.input('branch') || (typeof baseRef === 'string' ? baseRef : '') || env.GITHUB_BASE_REF || '';
  if (branch === '')
    throw new InputError(
      'input branch: required when the workflow does not run for a pull request (the target branch of the queue)',
    );

  let pr: number;
  const prInput = wf.input('pr');
  if (prInput) pr = prNumber(prInput, 'input pr');
  else {
    const m = /^refs\/pull\/(\d+)\/(merge|head)$/.exec(env.GITHUB_REF ?? '');
    const fromEvent =
      event.pull_request?.number ?? (event.issue?.pull_request ? event.issue.number : undefined) ?? event.number;
    if (m?.[1]) pr = prNumber(m[1], 'GITHUB_REF');
    else if (typeof fromEvent === 'number') pr = prNumber(String(fromEvent), 'GITHUB_EVENT_PATH');
    else throw new InputError('input pr: required when the workflow does not run for a pull request');
  }

  let priority: number | PriorityName | undefined;
  const p = wf.input('priority').toLowerCase();
  if (p !== '') {
    if (['urgent', 'high', 'medium', 'low'].includes(p)) priority = p as PriorityName;
    else if (/^\d+$/.test(p) && Number(p) <= 255) priority = Number(p);
    else
      throw new InputError(
        `input priority: ${JSON.stringify(p)} is not a priority; use urgent, high, medium, low or 0..255`,
      );
  }

  const intervalMs = duration('interval', wf.input('interval'), '15s');
  if (intervalMs < 100) throw new InputError('input interval: must be at least 100ms');

  const requeueInput = wf.input('requeue').trim();
  if (requeueInput !== '' && (!/^\d+$/.test(requeueInput) || Number(requeueInput) > MAX_REQUEUES))
    throw new InputError(
      `input requeue: ${JSON.stringify(requeueInput)} is not a number of requeues; expected an integer from 0 to ` +
        `${MAX_REQUEUES} (0 turns it off)`,
    );
  const requeue = Number(requeueInput || '0');

  const listed = wf.input('impacted-targets');
  const file = wf.input('impacted-targets-file');
  const all = parseBoolean('impacts-all', wf.input('impacts-all'), false);
  const given = [listed !== '', file !== '', all].filter(Boolean).length;
  if (given > 1) throw new InputError('give at most one of impacted-targets, impacted-targets-file and impacts-all');
  let targets: ActionInputs['targets'];
  if (given === 1) {
    const headSha = event.pull_request?.head?.sha;
    const sha = wf.input('sha') || (typeof headSha === 'string' ? headSha : '');
    if (sha === '')
      throw new InputError(
        'input sha: the head commit SHA of the PR is needed to upload impacted targets (it defaults to the ' +
          "pull_request event's head SHA)",
      );
    if (!COMMIT_SHA.test(sha)) {
      throw new InputError(`input sha: ${JSON.stringify(sha)} is not a commit SHA; expected 7 to 64 hex digits`);
    }
    let impactedTargets: 'ALL' | string[];
    if (all || listed === 'ALL') impactedTargets = 'ALL';
    else if (listed !== '')
      impactedTargets = listed
        .split(/[\n,]/)
        .map((t) => t.trim())
        .filter((t) => t !== '');
    else {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new InputError(
          `input impacted-targets-file: cannot read ${file} ` +
            `(${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        );
      }
      impactedTargets = parseTargetsText(text, `input impacted-targets-file: ${file}`);
    }
    targets = { sha, impactedTargets };
  }
  if (token === '' && !targets) {
    throw new InputError(
      "input token: required to submit; without it a fork PR's run can only upload impacted targets " +
        '(impacted-targets, impacted-targets-file or impacts-all)',
      7,
    );
  }

  return {
    token,
    ...(forked !== '' ? { forkedWorkflowRunId: forked } : {}),
    apiUrl,
    api,
    repo,
    branch,
    pr,
    ...(priority !== undefined ? { priority } : {}),
    noBatch: parseBoolean('no-batch', wf.input('no-batch'), false),
    wait: parseBoolean('wait', wf.input('wait'), true),
    ...(parseBoolean('eta', wf.input('eta'), false) ? { eta: true as const } : {}),
    timeoutMs: duration('timeout', wf.input('timeout'), '2h'),
    intervalMs,
    ...(requeue > 0 ? { requeue } : {}),
    ...(targets ? { targets } : {}),
  };
}
