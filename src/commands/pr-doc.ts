/**
 * The one --json shape of every PR command (submit, cancel, restart, targets, wait, status):
 * `{ok, exitCode, ...fields common to the run, results: [one document per PR]}`, whatever the
 * number of PRs. With exactly one PR, that PR's fields are also at the top level, as they were
 * before `results` existed, so `mq submit 42 --json | jq .pr` keeps working.
 */
import { mostSevere } from '../errors.js';

export interface PrItem {
  pr: number;
  ok: boolean;
  exitCode: number;
  [field: string]: unknown;
}

export function prDocument(results: PrItem[], common: Record<string, unknown> = {}): Record<string, unknown> {
  const single = results.length === 1 ? results[0] : undefined;
  return {
    ...single,
    ok: results.every((r) => r.ok),
    exitCode: mostSevere(results.map((r) => r.exitCode)),
    ...common,
    results,
  };
}
