/** How the details of a queue test run read: its status and branch, the PRs it tests, and each check. */
import type { TestingDetails } from '../api/schemas.js';
import { plainBool, plainColumns, plainKeys, plainList, plainNumber } from '../output/plain.js';
import type { Cell, Field, Row } from '../output/render.js';
import type { Paint } from '../output/render.js';
import { sinceText } from './pull-request.js';

const SOURCES: Record<string, string> = {
  trunk_config: 'the repository config file',
  repo_provider_branch_protection: 'branch protection on the code host',
  merge_instance: 'the queue settings (set through the API)',
};

export const statusColor: Paint = (style, status) => {
  const s = status.toLowerCase();
  if (['succeeded', 'success', 'completed', 'neutral', 'skipped'].includes(s)) return style.green(status);
  if (['failed', 'failure', 'error', 'timed_out', 'action_required', 'stale'].includes(s)) return style.red(status);
  if (['cancelled'].includes(s)) return style.gray(status);
  if (['in_progress', 'pending', 'queued'].includes(s)) return style.cyan(status);
  return status;
};

export function testingFields(d: TestingDetails, now: number): Field[] {
  const status = d.status ?? 'unknown';
  const statuses = d.requiredStatuses ?? [];
  const source = d.requiredStatusesSource ? (SOURCES[d.requiredStatusesSource] ?? d.requiredStatusesSource) : '';
  const created = d.createdAt
    ? `${d.createdAt}${sinceText(d.createdAt, now) ? ` (${sinceText(d.createdAt, now)} ago)` : ''}`
    : '';
  const fields: Field[] = [
    { key: 'status', label: 'Status', value: status, paint: statusColor },
    { key: 'test_branch', label: 'Test branch', value: d.testBranch ?? '' },
    { key: 'test_branch_sha', label: 'Test sha', value: d.testBranchSha ?? '' },
    { key: 'created_at', label: 'Created', value: created },
    { key: 'required_statuses', label: 'Required', value: statuses.length === 0 ? 'none' : statuses.join(', ') },
    { key: 'required_statuses_source', label: 'Required from', value: source },
  ];
  if (d.dependentPrs && d.dependentPrs.length > 0) {
    fields.push({
      key: 'dependent_prs',
      label: 'Tested on top of',
      value: d.dependentPrs.map((n) => `#${n}`).join(', '),
    });
  }
  if (d.impactedTargetsForTestedPrs)
    fields.push({
      key: 'impacted_targets',
      label: 'Impacted targets',
      value: String(d.impactedTargetsForTestedPrs.length),
    });
  return fields.filter((f) => f.value !== '');
}

/** `mq queue testing` piped: the run's fields, then its PRs and checks, one line each with the kind first. */
export const TESTING_PLAIN = {
  fields: plainKeys('one line per field of the run', [
    'status',
    'test_branch',
    'test_branch_sha',
    'created_at',
    'required_statuses',
    'required_statuses_source',
    'dependent_prs',
    'impacted_targets',
  ]),
  pr: plainColumns('then one line per tested PR', ['number', 'title', 'url'], 'pr'),
  check: plainColumns(
    'then one line per check (kind: check_run or status)',
    ['name', 'state', 'required', 'url', 'kind'],
    'check',
  ),
};

/** The run for scripts: wire values (status and source as sent, lists comma-separated, ISO time). */
export function testingPlainFields(d: TestingDetails): Field[] {
  const f = TESTING_PLAIN.fields.field;
  const fields = [
    f('status', 'Status', d.status ?? 'unknown'),
    f('test_branch', 'Test branch', d.testBranch ?? ''),
    f('test_branch_sha', 'Test sha', d.testBranchSha ?? ''),
    f('created_at', 'Created', d.createdAt ?? ''),
    f('required_statuses', 'Required', plainList(d.requiredStatuses)),
    f('required_statuses_source', 'Required from', d.requiredStatusesSource ?? ''),
    f('dependent_prs', 'Tested on top of', plainList(d.dependentPrs)),
    f(
      'impacted_targets',
      'Impacted targets',
      d.impactedTargetsForTestedPrs ? String(d.impactedTargetsForTestedPrs.length) : '',
    ),
  ];
  return fields.filter((x) => x.value !== '');
}

/** A link from the service as sent when it is http(s); any other scheme (javascript:, file:, …) is not shown. */
function webUrl(url: string | null | undefined): string {
  if (!url) return '';
  try {
    const scheme = new URL(url).protocol;
    return scheme === 'https:' || scheme === 'http:' ? url : '';
  } catch {
    return '';
  }
}

export function testedPrRows(d: TestingDetails): Row[] {
  return (d.testedPullRequests ?? []).map((p) => [
    p.prNumber === null || p.prNumber === undefined ? '—' : `#${p.prNumber}`,
    p.title ?? '',
    webUrl(p.prUrl),
  ]);
}

export function testedPrPlainRows(d: TestingDetails): Row[] {
  return (d.testedPullRequests ?? []).map((p) =>
    TESTING_PLAIN.pr.row({ number: plainNumber(p.prNumber), title: p.title ?? '', url: webUrl(p.prUrl) }),
  );
}

export function checkPlainRows(list: readonly Check[]): Row[] {
  return list.map((c) =>
    TESTING_PLAIN.check.row({
      name: c.name,
      state: c.state,
      required: plainBool(c.required),
      url: c.url,
      kind: c.kind === 'status' ? 'status' : 'check_run',
    }),
  );
}

export interface Check {
  kind: 'check run' | 'status';
  name: string;
  state: string;
  url: string;
  required: boolean;
}

/** Check runs and commit statuses in one list; a finished check run reads as its conclusion. */
export function checks(d: TestingDetails): Check[] {
  const required = new Set(d.requiredStatuses ?? []);
  const out: Check[] = [];
  for (const suite of d.checkSuites ?? []) {
    for (const run of suite.checkRuns ?? []) {
      const state = (
        run.status?.toUpperCase() === 'COMPLETED' && run.conclusion
          ? run.conclusion
          : (run.status ?? run.conclusion ?? 'unknown')
      ).toLowerCase();
      out.push({
        kind: 'check run',
        name: run.name ?? '',
        state,
        url: webUrl(run.url),
        required: required.has(run.name ?? ''),
      });
    }
  }
  for (const st of d.statusChecks ?? []) {
    out.push({
      kind: 'status',
      name: st.context ?? '',
      state: (st.state ?? 'unknown').toLowerCase(),
      url: webUrl(st.url),
      required: required.has(st.context ?? ''),
    });
  }
  return out;
}

/** Identical checks (same kind, name, state and URL) once each, in first-seen order, with how many there were. */
export function groupChecks(list: readonly Check[]): Array<Check & { count: number }> {
  const seen = new Map<string, Check & { count: number }>();
  for (const c of list) {
    const key = JSON.stringify([c.kind, c.name, c.state, c.url]);
    const had = seen.get(key);
    if (had) had.count += 1;
    else seen.set(key, { ...c, count: 1 });
  }
  return [...seen.values()];
}

/** The table's check columns; `Count` only when a check repeats. */
export function checkHeaders(list: ReadonlyArray<{ count: number }>): string[] {
  const repeats = list.some((c) => c.count > 1);
  return ['Check', 'Kind', 'State', 'Required', ...(repeats ? ['Count'] : []), 'URL'];
}

export function checkRows(list: ReadonlyArray<Check & { count: number }>): Row[] {
  const repeats = list.some((c) => c.count > 1);
  return list.map((c) => {
    const state: Cell = { value: c.state, paint: statusColor };
    return [c.name, c.kind, state, c.required ? 'yes' : '', ...(repeats ? [String(c.count)] : []), c.url];
  });
}
