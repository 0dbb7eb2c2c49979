// One PR operation over many PRs, bounded concurrency on the keep-alive pool; a single PR keeps the usual errors.
import type { Deps } from '../context.js';
import { ExitCode, MqError, mostSevere } from '../errors.js';
import { mapLimit } from '../cli/args.js';
import { type Line, own, paints, v } from '../output/render.js';

export interface PrResult {
  pr: number;
  ok: boolean;
  exitCode: number;
  action: string;
  state?: string;
  error?: string;
  [extra: string]: unknown;
}

export async function runOverPrs(
  deps: Pick<Deps, 'out'>,
  prs: number[],
  options: { parallel: number; action: string; bulk: boolean },
  op: (pr: number) => Promise<Record<string, unknown> | undefined>,
  describe: (r: PrResult) => string,
): Promise<{ results: PrResult[]; exitCode: number }> {
  // Lines come out in the given order, each once those before are done; a turn's ready lines share one write.
  const lines: Array<Line | undefined> = new Array(prs.length);
  let printed = 0;
  let ready: Line[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const flush = () => {
    scheduled = undefined;
    const out = ready;
    ready = [];
    deps.out.notes(out);
  };
  const land = (i: number, line: Line) => {
    lines[i] = line;
    for (; printed < prs.length && lines[printed] !== undefined; printed++) ready.push(lines[printed] as Line);
    scheduled ??= setImmediate(flush);
  };
  let results: PrResult[];
  try {
    results = await mapLimit(prs, options.parallel, (pr, i) => one(pr, i));
  } finally {
    clearImmediate(scheduled);
    flush();
  }
  const failed = results.filter((r) => !r.ok).length;
  if (options.bulk)
    deps.out.note(`${results.length - failed} of ${results.length} succeeded${failed ? `, ${failed} failed` : ''}`);
  return { results, exitCode: mostSevere(results.map((r) => r.exitCode)) };

  async function one(pr: number, i: number): Promise<PrResult> {
    try {
      const extra = (await op(pr)) ?? {};
      const r: PrResult = { pr, ok: true, exitCode: 0, action: options.action, ...extra };
      if (options.bulk) land(i, [own(paints.green, '✓'), ` #${pr} `, v(describe(r))]);
      return r;
    } catch (err) {
      if (!options.bulk) throw err;
      const e = err instanceof MqError ? err : undefined;
      const message = e ? e.why : (err as Error).message;
      const r: PrResult = {
        pr,
        ok: false,
        exitCode: e?.exitCode ?? ExitCode.unexpected,
        action: options.action,
        error: message,
      };
      // The line names the PR once, as the ✓ lines do (an error's `what` names it again).
      land(i, [own(paints.red, '✗'), ` #${pr} `, v(`${options.action} failed: ${message}`)]);
      return r;
    }
  }
}
