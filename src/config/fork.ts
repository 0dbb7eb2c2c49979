// Fork PRs get no secrets, so Trunk accepts the run id (`x-forked-workflow-run-id`) for target uploads.
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

/** GITHUB_RUN_ID for a fork PR's run (per the event at GITHUB_EVENT_PATH); otherwise undefined. */
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
