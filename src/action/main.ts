// The GitHub Action: upload targets (optional), submit, wait, and report via $GITHUB_OUTPUT, the job
// summary, grouped logs and an ::error:: annotation. Exit codes are mq's (0 merged, 9 left, 8 timeout...).
import { requeueAfterFailure, type Requeue } from '../commands/requeue.js';
import { innerClient, MergeQueueClient, VERSION } from '../lib/client.js';
import { MergeQueueError } from '../lib/errors.js';
import type { QueueTargetRequest, Transition, WaitResult } from '../lib/types.js';
import { formatDuration } from '../util/duration.js';
import { InputError, readInputs, type ActionInputs } from './inputs.js';
import { Workflow, type ActionIo } from './workflow.js';
import { positionOf } from '../stats/position.js';
import { type FailingCheck, knownState, type PrStory, readEta, readOrder, readStory } from './story.js';
import { type Report, summaryOf } from './summary.js';

export interface ActionResult {
  exitCode: number;
}

const knownTransition = (t: Transition): Transition => ({
  ...t,
  from: t.from === null ? null : knownState(t.from),
  to: knownState(t.to),
});

function setOutputs(wf: Workflow, r: Report): void {
  wf.setOutput('state', r.state);
  wf.setOutput('exit-code', String(r.exitCode));
  wf.setOutput('time-in-queue', r.timeInQueueS === null ? '' : String(r.timeInQueueS));
  wf.setOutput('test-run', r.testRun);
  wf.setOutput('failing-checks', JSON.stringify(r.failing));
  if (r.requeues) wf.setOutput('requeues', JSON.stringify(r.requeues));
  wf.setOutput('position', r.place?.position == null ? '' : String(r.place.position));
  if (r.eta) wf.setOutput('eta', JSON.stringify(r.eta));
}

/** Seconds from the first to the last state seen (service clock); else how long this step waited. */
function timeInQueue(result: WaitResult): number {
  const first = result.transitions[0];
  const last = result.transitions[result.transitions.length - 1];
  if (result.outcome === 'timeout' || !first || !last || first === last) return Math.round(result.waitedMs / 1000);
  return Math.max(0, Math.round((Date.parse(last.at) - Date.parse(first.at)) / 1000));
}

/** Seconds of the PR's last trip by the service's timeline (submitted to merged, failed or cancelled). */
function storyTime(story: PrStory | undefined): number | null {
  const first = story?.steps[0];
  const last = story?.steps[story.steps.length - 1];
  if (!first || !last || !['merged', 'failed', 'cancelled'].includes(last.state)) return null;
  return Math.max(0, Math.round((Date.parse(last.at) - Date.parse(first.at)) / 1000));
}

export async function runAction(io: ActionIo, signal?: AbortSignal): Promise<ActionResult> {
  const wf = new Workflow(io);
  let inputs: ActionInputs;
  try {
    inputs = readInputs(wf, io.env);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    wf.error(err.message, 'mq: bad input');
    setOutputs(wf, { state: '', exitCode: err.exitCode, timeInQueueS: null, testRun: '', failing: [] });
    return { exitCode: err.exitCode };
  }

  const client = new MergeQueueClient({
    apiUrl: inputs.apiUrl,
    api: inputs.api,
    token: inputs.token,
    ...(inputs.forkedWorkflowRunId ? { forkedWorkflowRunId: inputs.forkedWorkflowRunId } : {}),
    userAgent: `mq-action/${VERSION}`,
    ...(signal ? { signal } : {}),
  });
  const target: QueueTargetRequest = { repo: inputs.repo, targetBranch: inputs.branch };
  const prRef = { ...target, pr: { number: inputs.pr } };
  const simulate = inputs.eta ? { origin: inputs.apiUrl, env: io.env } : undefined;
  const label = `PR #${inputs.pr}`;
  let grouped = false;
  const group = (title: string) => {
    wf.group(title);
    grouped = true;
  };
  const endGroup = () => {
    if (grouped) wf.endGroup();
    grouped = false;
  };
  let transitions: Transition[] = [];

  try {
    const uploadOnly = inputs.token === '';
    group(
      uploadOnly ? `Upload the impacted targets of ${label}` : `Submit ${label} to the merge queue of ${inputs.branch}`,
    );
    if (inputs.targets) {
      const t = inputs.targets;
      await client.setImpactedTargets({
        ...target,
        pr: { number: inputs.pr, sha: t.sha },
        impactedTargets: t.impactedTargets,
      });
      const count =
        t.impactedTargets === 'ALL'
          ? 'ALL'
          : `${t.impactedTargets.length} target${t.impactedTargets.length === 1 ? '' : 's'}`;
      const as = inputs.forkedWorkflowRunId ? ` (as fork workflow run ${inputs.forkedWorkflowRunId})` : '';
      wf.log(`set impacted targets of ${label} at ${t.sha.slice(0, 12)}: ${count}${as}`);
    }
    if (uploadOnly) {
      // A fork PR's run without a token: submitting is for a run that has one.
      endGroup();
      const r: Report = { state: '', exitCode: 0, timeInQueueS: null, testRun: '', failing: [] };
      setOutputs(wf, r);
      wf.summary(summaryOf(inputs, 'targets uploaded', r, []));
      return { exitCode: 0 };
    }
    await client.submitPullRequest({
      ...prRef,
      ...(inputs.priority !== undefined ? { priority: inputs.priority } : {}),
      ...(inputs.noBatch ? { noBatch: true } : {}),
    });
    wf.log(`submitted ${label} to ${inputs.repo.owner}/${inputs.repo.name}@${inputs.branch}`);
    endGroup();

    if (!inputs.wait) {
      const pr = await client.getSubmittedPullRequest(prRef);
      const live = pr.isCurrentlySubmittedToQueue !== false;
      const order = live ? await readOrder(client, target) : undefined;
      const eta = live ? await readEta(client, prRef, simulate) : undefined;
      const r: Report = {
        state: knownState(pr.state),
        exitCode: 0,
        timeInQueueS: null,
        testRun: '',
        failing: [],
        ...(order ? { place: positionOf(order, inputs.pr, pr) } : {}),
        ...(eta ? { eta } : {}),
      };
      setOutputs(wf, r);
      wf.summary(summaryOf(inputs, 'submitted', r, []));
      return { exitCode: 0 };
    }

    group(
      `Wait for ${label} (timeout ${formatDuration(inputs.timeoutMs)}, polling ` +
        `every ${formatDuration(inputs.intervalMs)})`,
    );
    // With the requeue input, a flake or an infrastructure failure is resubmitted and waited for again.
    const deadline = Date.now() + inputs.timeoutMs;
    const requeues: Requeue[] = [];
    const seen: Transition[] = [];
    let result: WaitResult;
    for (;;) {
      result = await client.waitForPr({
        ...prRef,
        timeoutMs: Math.max(0, deadline - Date.now()),
        intervalMs: inputs.intervalMs,
        ...(signal ? { signal } : {}),
        onTransition: (raw) => {
          // A wait after a requeue starts where the last one ended.
          const t = knownTransition({ ...raw, from: raw.from ?? seen[seen.length - 1]?.to ?? null });
          seen.push(t);
          const after = t.afterMs === null ? '' : ` (after ${formatDuration(t.afterMs)} in ${t.from})`;
          wf.log(`${label}: ${t.from ? `${t.from} → ` : ''}${t.to}${after}`);
        },
        onRetry: (e) => wf.log(`! ${label}: a poll failed (${e.why}); retrying`),
      });
      if (result.outcome !== 'failed' || !inputs.requeue) break;
      const step = await requeueAfterFailure(
        innerClient(client),
        target,
        inputs.pr,
        { max: inputs.requeue, flakyChecks: [] },
        requeues.length,
        { priority: inputs.priority, noBatch: inputs.noBatch },
        Date.now,
        { deadline, ...(signal ? { signal } : {}) },
      );
      wf.log(`${step.action === 'requeued' ? '↻' : '·'} ${label} ${step.note}`);
      if (step.action === 'requeued') requeues.push(step.requeue);
      if (step.action === 'stop') break;
    }
    transitions = seen;
    endGroup();

    const state = knownState(result.state);
    // The story is extra: a service without the history endpoints (or a failure reading them)
    // leaves the summary with the transitions this step saw.
    const story =
      result.outcome === 'timeout' ? undefined : await readStory(client, target, inputs.pr).catch(() => undefined);
    // A PR still in the queue at the timeout: where it stands and why.
    const order = result.outcome === 'timeout' ? await readOrder(client, target) : undefined;
    const place = order && positionOf(order, inputs.pr, result.pullRequest ?? undefined);
    const eta = result.outcome === 'timeout' ? await readEta(client, prRef, simulate) : undefined;
    const testRun = story?.runId ?? result.pullRequest?.verifiedByTestRun ?? '';
    const failing: FailingCheck[] = result.outcome === 'failed' ? (story?.failing ?? []) : [];
    const r: Report = {
      state,
      exitCode: result.exitCode,
      timeInQueueS: storyTime(story) ?? timeInQueue(result),
      testRun,
      failing,
      ...(inputs.requeue ? { requeues } : {}),
      ...(place ? { place } : {}),
      ...(eta ? { eta } : {}),
    };
    setOutputs(wf, r);
    wf.summary(summaryOf(inputs, result.outcome, r, transitions, undefined, story));
    if (result.exitCode === 0) {
      wf.log(`✓ ${label} merged`);
    } else {
      const checks = failing.length > 0 ? `; failing checks: ${failing.map((c) => c.name).join(', ')}` : '';
      const why =
        result.outcome === 'timeout'
          ? `${label} is still ${state || 'unknown'} after ${formatDuration(result.waitedMs)} ` +
            `(timeout ${formatDuration(inputs.timeoutMs)}); it stays in the queue`
          : result.outcome === 'left_queue'
            ? `${label} is no longer in the merge queue (state ${state || 'unknown'}) and did not merge`
            : `${label} ${result.outcome === 'failed' ? 'failed' : 'was cancelled'} ` +
              `in the merge queue${testRun ? ` (test run ${testRun})` : ''}${checks}`;
      wf.error(why, result.outcome === 'timeout' ? 'mq: still in the queue' : 'mq: PR left the queue without merging');
    }
    return { exitCode: result.exitCode };
  } catch (err) {
    endGroup();
    const e =
      err instanceof MergeQueueError
        ? err
        : new MergeQueueError({
            exitCode: 1,
            what: 'mq action',
            why: (err as Error)?.message ?? String(err),
            cause: err,
          });
    const text = [e.message, ...e.hints.map((h) => `hint: ${h}`)].join('\n');
    wf.error(text, e.kind === 'interrupted' ? 'mq: cancelled' : `mq: ${e.what}`);
    const r: Report = { state: '', exitCode: e.exitCode, timeInQueueS: null, testRun: '', failing: [] };
    setOutputs(wf, r);
    wf.summary(
      summaryOf(inputs, e.kind === 'interrupted' ? 'cancelled by the workflow' : 'error', r, transitions, e.message),
    );
    return { exitCode: e.exitCode };
  }
}
