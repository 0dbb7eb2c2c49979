// `mq demo`: an in-process emulator on a free loopback port (no token, network or config), a queue and
// eight PRs at work on its manual clock (fast; repeatable with --seed), through mq's own client.
import { Command } from 'commander';
import { parseIntIn } from '../cli/args.js';
import { VERSION, type Context, type Deps } from '../context.js';
import { DEMO_BRANCH, DEMO_PRS, DEMO_QUEUE_SETTINGS, DEMO_REPO } from '../demo/cast.js';
import { changeLine, FRAME_FIT, FRAME_HEADERS, frameRows, frameTitle, type DemoPrState } from '../demo/frame.js';
import { ExitCode, MqError, UsageError } from '../errors.js';
import type { Result } from '../output/present.js';
import { own, paints, type Line } from '../output/render.js';
import { formatDuration } from '../util/duration.js';
import { plainNone } from '../output/plain.js';
import { act, withExamples, withPlainHelp } from './shared.js';

interface DemoFlags {
  speed: string;
  seed: string;
}

export interface DemoOptions {
  /** Emulated minutes per real second. */
  speed: number;
  seed: number;
}

export function demoOptions(flags: DemoFlags): DemoOptions {
  const speed = Number(flags.speed);
  if (!Number.isFinite(speed) || speed <= 0 || speed > 100_000)
    throw new UsageError(`--speed: "${flags.speed}" must be a number above 0 (emulated minutes per real second)`);
  return { speed, seed: parseIntIn(flags.seed, '--seed', 0, 2 ** 31 - 1) };
}

/** Emulated minutes per step: small enough that the polls see every state a PR rests in. */
const STEP_MINUTES = 0.5;
const TERMINAL = new Set(['merged', 'failed', 'cancelled']);
const START = Date.parse('2026-01-05T09:00:00.000Z');

export async function runDemo(opts: DemoOptions, ctx: Deps): Promise<Result> {
  const { speed, seed } = opts;
  const format = ctx.out.format();
  const json = format === 'json';
  const live = ctx.io.stdoutIsTTY && format === 'table';

  const [{ startEmulator }, { HttpClient }, { MergeQueueClient }] = await Promise.all([
    import('../emulator/index.js'),
    import('../api/http.js'),
    import('../api/client.js'),
  ]);
  // Every transition, as the engine makes it: polls alone would miss states a PR passes through
  // within one instant (a restart: testing -> pending -> testing).
  const log: string[] = [];
  let retests = 0;
  const emu = await startEmulator({
    port: 0,
    clock: 'manual',
    seed,
    startTime: START,
    onEffect: (e) => {
      if (e.type !== 'pr_state') return;
      const pr = DEMO_PRS.find((p) => p.number === e.prNumber);
      if (!pr) return;
      // A PR whose run had concluded, sent back to wait for a new run because a PR ahead failed.
      // (A run cut short, testing -> pending, is a restart: the metrics count those.)
      if (e.from === 'pending_failure' && e.to === 'pending') retests++;
      log.push(changeLine(pr, e.from ?? undefined, e.to, e.at - START, e.reason));
    },
  });
  try {
    const http = new HttpClient({
      baseUrl: emu.url,
      token: emu.token,
      userAgent: `mq/${VERSION} (demo)`,
      timeoutMs: 10_000,
    });
    const client = new MergeQueueClient(http);
    const control = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
      const res = await fetch(`${emu.url.replace(/\/v1$/, '')}${path}`, {
        method,
        headers: { 'x-api-token': emu.token, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new MqError(ExitCode.unexpected, 'demo', `the emulator refused ${path}: ${await res.text()}`);
      return res.json();
    };
    const target = { repo: DEMO_REPO, targetBranch: DEMO_BRANCH };

    ctx.out.note(own(paints.dim, `emulator on ${emu.url} (in-process, manual clock, seed ${seed})`));
    await client.createQueue({ ...target, concurrency: DEMO_QUEUE_SETTINGS.concurrency });
    await client.updateQueue({ ...target, ...DEMO_QUEUE_SETTINGS });
    for (const pr of DEMO_PRS) {
      await control('POST', '/_emulator/pullRequests', {
        repo: DEMO_REPO,
        number: pr.number,
        title: pr.title,
        author: pr.author,
        breaksBuild: pr.breaksBuild ?? false,
        outcomes: pr.outcomes,
        testMinutes: pr.testMinutes,
      });
    }
    for (const pr of DEMO_PRS) await client.submitPullRequest({ ...target, pr: { number: pr.number } });

    const states = new Map<number, DemoPrState>(
      DEMO_PRS.map((pr) => [pr.number, { pr, state: 'submitted', since: START }]),
    );
    let emulatedNow = START;
    const wallStart = ctx.clock.now();
    for (;;) {
      const records = await Promise.all(
        DEMO_PRS.map((pr) => client.getSubmittedPullRequest({ ...target, pr: { number: pr.number } })),
      );
      for (const rec of records) {
        const entry = states.get(rec.prNumber ?? -1);
        if (!entry) continue;
        // The service's own stateChangedAt: a PR restarted within one step keeps its state name.
        entry.state = rec.state ?? 'unknown';
        entry.since = rec.stateChangedAt ? Date.parse(rec.stateChangedAt) : emulatedNow;
      }
      if (!live && !json && log.length > 0) await ctx.out.stream(null, [{ lines: [...log] }]);
      log.length = 0;
      if (live) {
        await ctx.out.redraw([
          { lines: [frameTitle('running', emulatedNow - START)] },
          { headers: FRAME_HEADERS, rows: frameRows([...states.values()], emulatedNow), fit: FRAME_FIT },
        ]);
      }
      if ([...states.values()].every((s) => TERMINAL.has(s.state))) break;
      if (ctx.clock.now() - wallStart > 60_000)
        throw new MqError(ExitCode.unexpected, 'demo', 'the queue did not settle within a minute of wall time');
      await ctx.clock.sleep((STEP_MINUTES / speed) * 1000, ctx.signal);
      const advanced = (await control('POST', '/_emulator/clock/advance', { minutes: STEP_MINUTES })) as {
        now: string;
      };
      emulatedNow = Date.parse(advanced.now);
    }

    const runs = ((await control('GET', '/_emulator/testRuns')) as { testRuns: unknown[] }).testRuns.length;
    const finals = [...states.values()];
    const merged = finals.filter((s) => s.state === 'merged').length;
    const failed = finals.filter((s) => s.state === 'failed').length;
    const lastChange = Math.max(...finals.map((s) => s.since));
    const metrics = await client.getMergeQueueMetrics({
      repo: `${DEMO_REPO.owner}/${DEMO_REPO.name}`,
      repoHost: DEMO_REPO.host,
    });
    const [{ parseExposition }, { summarizeMergeQueueMetrics }] = await Promise.all([
      import('../api/prometheus.js'),
      import('../api/merge-queue-metrics.js'),
    ]);
    const q = summarizeMergeQueueMetrics(parseExposition(metrics.body))[0];
    // One count of restarts: the service's own (the metrics shown below), never a second tally here.
    const restarts = q?.restarts ?? 0;
    const summary = {
      merged,
      failed,
      testRuns: runs,
      restarts,
      retests,
      emulatedMinutes: Math.round((lastChange - START) / 60_000),
      wallMs: ctx.clock.now() - wallStart,
      prs: finals.map((s) => ({ pr: s.pr.number, state: s.state })),
    };
    const data = { ...summary, metrics: metrics.body };
    if (json) return { data, exitCode: 0 };
    const { histogramText } = await import('../views/metrics.js');
    const lines: Line[] = [
      '',
      [
        own(paints.bold, 'summary'),
        ': ',
        own(paints.green, `${merged} merged`),
        ', ',
        own(paints.red, `${failed} failed`),
        `, ${runs} test runs, ${restarts} restarts, ${retests} retested after a failure ` +
          `ahead, ${formatDuration(lastChange - START)} of queue time (emulated) ` +
          `in ${(summary.wallMs / 1000).toFixed(1)}s`,
      ],
    ];
    if (q) {
      lines.push(
        [
          own(paints.bold, 'metrics'),
          `: depth ${q.depth ?? 0}, testing ${q.testingSlotsActive ?? 0}, conclusions ${Object.entries(q.conclusions)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')}, restarts ${restarts}`,
        ],
        `  wait ${histogramText(q.histograms.wait)} · test ${histogramText(q.histograms.test)} · time in ` +
          `queue ${histogramText(q.histograms.timeInQueue)}`,
      );
    }
    lines.push(
      '',
      own(
        paints.dim,
        'next: `mq emulator start` runs this service for your own scripts; `mq --help` lists every command',
      ),
    );
    return { data, view: [{ lines, wrap: 2 }], exitCode: 0 };
  } finally {
    // Back from the alternate screen, on success, Ctrl-C or error: the last frame stays in the scrollback.
    if (live) await ctx.out.endLive();
    await emu.close();
  }
}

export function demoCommand(ctx: Context): Command {
  const cmd = new Command('demo')
    .summary('watch a merge queue at work on a local emulator')
    .description(
      'Start the emulator in-process (no account, token, network or config needed), submit eight PRs — one ' +
        'breaks the build, one has a flaky test — and show the queue testing, restarting and merging them. On ' +
        'a terminal the table redraws in place; piped, one line per state change. Ends with a summary and the ' +
        'metrics.',
    )
    .option('--speed <minutes>', 'emulated minutes per real second', '4')
    .option('--seed <n>', 'seed of the emulator (same seed, same run)', '1')
    .action(act(ctx, 'demo', demoOptions, runDemo));
  withPlainHelp(cmd, [
    plainNone(
      'a narration for people (one line per state change, then a summary), not columns; --json prints one document',
    ),
  ]);
  return withExamples(cmd, ['mq demo', 'mq demo --speed 50', 'mq demo --seed 7 | tee demo.log']);
}
