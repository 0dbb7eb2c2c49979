/** What a GitHub Actions run tells us about the PR it runs for. */
import { readFileSync } from 'node:fs';
import { parsePrNumber } from '../cli/args.js';
import { UsageError } from '../errors.js';
import { envValue } from './resolve.js';

export function inGitHubActions(env: NodeJS.ProcessEnv): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/** The PR number from GITHUB_REF (`refs/pull/N/merge`) or the event payload; usage error if none. */
export function inferPrNumber(env: NodeJS.ProcessEnv): number {
  const missing = new UsageError('no PR number given', { hints: ['pass the PR number'], example: '42' });
  if (!inGitHubActions(env)) throw missing;
  const ref = envValue(env, 'GITHUB_REF');
  const m = ref ? /^refs\/pull\/(\d+)\/(merge|head)$/.exec(ref) : null;
  if (m?.[1]) return parsePrNumber(m[1], 'GITHUB_REF');
  const eventPath = envValue(env, 'GITHUB_EVENT_PATH');
  if (eventPath) {
    let event: unknown;
    try {
      event = JSON.parse(readFileSync(eventPath, 'utf8'));
    } catch (err) {
      throw new UsageError(
        `GITHUB_EVENT_PATH: cannot read the event file ${eventPath} ` +
          `(${(err as NodeJS.ErrnoException).code ?? 'invalid JSON'})`,
      );
    }
    const e = event as {
      pull_request?: { number?: unknown };
      number?: unknown;
      issue?: { number?: unknown; pull_request?: unknown };
    };
    const n = e.pull_request?.number ?? (e.issue?.pull_request ? e.issue.number : undefined) ?? e.number;
    if (typeof n === 'number') return parsePrNumber(String(n), 'GITHUB_EVENT_PATH');
  }
  throw new UsageError('no PR number given, and this GitHub Actions run is not for a pull request', {
    hints: ['pass the PR number explicitly'],
  });
}
