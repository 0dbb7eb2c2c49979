/**
 * Fork PRs: a workflow run for a PR from a fork gets no secrets, so Trunk takes the run's id
 * (`x-forked-workflow-run-id`) instead of a token for uploading impacted targets. Used by
 * `mq targets` and the action; imports nothing of mq's but the constants.
 */
import { readFileSync } from 'node:fs';
import { WORKFLOW_RUN_ID } from '../domain/vocabulary.js';

interface RepoSide {
  repo?: { full_name?: unknown } | null;
}

/** True when the event is for a PR whose head repository is not its base repository. */
export function isForkEvent(event: unknown): boolean {
  const pr = (event as { pull_request?: { head?: RepoSide; base?: RepoSide } } | null)?.pull_request;
  const head = pr?.head?.repo?.full_name;
  const base = pr?.base?.repo?.full_name;
  return typeof head === 'string' && typeof base === 'string' && head.toLowerCase() !== base.toLowerCase();
}

/**
 * In GitHub Actions, for a fork PR's run (the event at GITHUB_EVENT_PATH says so): GITHUB_RUN_ID.
 * Anything else, an event file that is missing or unreadable included: undefined.
 */
export function forkedRunId(env: NodeJS.ProcessEnv): string | undefined {
  const runId = env.GITHUB_RUN_ID;
  const path = env.GITHUB_EVENT_PATH;
  if (env.GITHUB_ACTIONS !== 'true' || !runId || !WORKFLOW_RUN_ID.test(runId) || !path) return undefined;
  try {
    return isForkEvent(JSON.parse(readFileSync(path, 'utf8'))) ? runId : undefined;
  } catch {
    return undefined;
  }
}
