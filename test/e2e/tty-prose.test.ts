/**
 * Prose as a person sees it in a real terminal of 60 and 80 columns (tmux, wrapped lines joined):
 * a failed PR's long story from the emulator, a paused queue's banner and the demo's summary. No
 * line is wider than the terminal (only a URL, printed whole on a line of its own, may be) and no
 * word is split: with every line break read as a space, the text reads as the plain output tells it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/output/width.js';
import { APIS, startEmulatorProcess, type EmulatorProcess } from '../helpers/emulator-process.js';
import { baseEnv, runCli } from '../helpers/run-cli.js';
import { SMALL_SIMULATION } from '../helpers/simulate.js';
import { hasTmux, terminal } from '../helpers/tmux.js';

if (!hasTmux) console.warn('tty-prose: tmux not installed; the real-terminal tests are skipped');

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
let emu: EmulatorProcess;

beforeAll(async () => {
  if (!hasTmux) return;
  emu = await startEmulatorProcess(['--clock', 'manual']);
  // main: #42 breaks the build ahead of #43, which then fails three trips of its own.
  await emu.post('createQueue', { repo: REPO, targetBranch: 'main' });
  await emu.control('POST', '/_emulator/pullRequests', { repo: REPO, number: 42, breaksBuild: true });
  await emu.control('POST', '/_emulator/pullRequests', {
    repo: REPO,
    number: 43,
    outcomes: ['fail', 'fail', 'fail', 'fail'],
  });
  for (const n of [42, 43])
    await emu.post('submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: n } });
  for (let trip = 0; trip < 2; trip++) {
    await emu.advance(30);
    await emu.post('submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 43 } });
  }
  await emu.advance(125);
  // release: a paused queue.
  await emu.post('createQueue', { repo: REPO, targetBranch: 'release' });
  await emu.post('updateQueue', { repo: REPO, targetBranch: 'release', state: 'PAUSED' });
}, 60_000);
afterAll(async () => {
  await emu?.stop();
});
const sessions: Array<() => void> = [];
afterEach(() => {
  for (const kill of sessions.splice(0)) kill();
});

async function screenOf(args: string[], cols: number, env: Record<string, string | undefined>): Promise<string> {
  const t = terminal(args, cols, 60, env);
  sessions.push(t.kill);
  // A loaded machine may take a while: the demo and simulate work for seconds.
  const s = await t.until(/exit=\d+/, true, 40_000);
  expect(s).toContain('exit=0');
  return s;
}

const URL_LINE = /^ *https?:\/\/\S+$/;

/** Every line within `cols` cells but a URL alone on its line. */
function expectFits(screen: string, cols: number): void {
  for (const l of screen.replace(/\s+$/, '').split('\n'))
    if (!URL_LINE.test(l)) expect(displayWidth(l), l).toBeLessThanOrEqual(cols);
}

/** The screen's text with each run of spaces and line breaks as one space: a word cut by a break would read as two. */
const flat = (screen: string) => screen.replace(/\s+/g, ' ');

describe.skipIf(!hasTmux)('prose at the terminal width', { timeout: 60_000 }, () => {
  // v2 at the narrower width only: the API changes what is read, not how it is laid out.
  const onBoth = APIS.flatMap((api) => (api === 'v1' ? [60, 80] : [60]).map((cols) => ({ api, cols })));
  // The emulator's v2 runs list no checks and v2 gives pendingFailure no reason: shorter steps, no check named.
  for (const { api, cols } of onBoth) {
    const v2 = api === 'v2';
    it(`mq status 43 (a failed PR, a long story) at ${cols} columns on ${api}${v2 ? ', no failing check named' : ''}`, async () => {
      const s = await screenOf(['status', '43'], cols, emu.envFor(api));
      expectFits(s, cols);
      const failing = /^Failing run +(\S{36})$/m.exec(s)?.[1] as string;
      expect(failing).toBeDefined();
      // The run whole in the header and the check's URL (v1) only: the story names runs by 8 characters.
      expect(s.split(failing)).toHaveLength(v2 ? 2 : 3);
      expect(s).toMatch(new RegExp(`^trip 3: failed \\(run ${failing.slice(0, 8)}\\)$`, 'm'));
      expect(s).toMatch(new RegExp(`^ {2}\\d+h(?: \\d+m)? ago +failed +failed: ${v2 ? 'a ' : ''}required status`, 'm'));
      expect(s.slice(s.indexOf('trip 3'))).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
      if (!v2) expect(s).toMatch(new RegExp(`^ {4}https://\\S+/${failing}$`, 'm'));
      // Every step's words, as the plain output tells them (run ids short), read whole on the screen.
      const plain = await runCli(['status', '43'], { env: emu.envFor(api) });
      const steps = plain.stdout.split('\n').filter((l) => l.startsWith('step\t'));
      expect(steps.length).toBeGreaterThan(10);
      for (const step of steps) {
        const [, , state, , run, text] = step.split('\t') as string[];
        expect(flat(s)).toContain(` ${state} ${run ? (text as string).split(run).join(run.slice(0, 8)) : text}`);
      }
    });

    it(`mq queue show of a paused queue at ${cols} columns on ${api}: the banner wraps at spaces`, async () => {
      const s = await screenOf(['queue', 'show'], cols, { ...emu.envFor(api), MQ_BRANCH: 'release' });
      expectFits(s, cols);
      const banner = s.slice(0, s.indexOf('\nQueue '));
      expect(flat(banner).trim()).toBe(
        '⚠ QUEUE PAUSED — no PRs are tested or merged until it is resumed (order is kept)',
      );
      expect(banner.trim().split('\n')).toHaveLength(2);
    });
  }

  it.each([60, 80])('mq demo at %i columns: the summary wraps at spaces', async (cols) => {
    const s = await screenOf(['demo', '--speed', '2000'], cols, baseEnv());
    const after = s.slice(s.indexOf('summary:'));
    expectFits(after, cols);
    const prose = flat(after.slice(0, after.indexOf('exit=')));
    expect(prose).toMatch(
      /^summary: 7 merged, 1 failed, \d+ test runs, 0 restarts, 2 retested after a failure ahead, \S+ of queue time \(emulated\) in/,
    );
    expect(prose).toContain(
      'next: `mq emulator start` runs this service for your own scripts; `mq --help` lists every command',
    );
  });

  it.each([60, 80])(
    'mq queue simulate at %i columns: the inputs, footnote and recommendation wrap at spaces',
    async (cols) => {
      const args = ['queue', 'simulate', ...SMALL_SIMULATION, '--jobs', '1'];
      const s = await screenOf(args, cols, baseEnv());
      // The table is simulate's own; its prose is the lines around it.
      const prose = s.split('\n').filter((l) => !/[│┌└├┼]/.test(l));
      expectFits(prose.join('\n'), cols);
      const plain = await runCli(args, { env: baseEnv() });
      const recommendation = /^recommendation\t[^\t]*\t(.*)$/m.exec(plain.stdout)?.[1] as string;
      expect(recommendation.length).toBeGreaterThan(cols);
      expect(flat(s)).toContain(flat(recommendation));
      expect(flat(s)).toContain('mean ±half-width of the 95% interval over runs; TTM = time from submission to merge');
      expect(flat(s)).toMatch(/6 PRs\/h, tests 30m \(spread \d+%\), \d+% break the build/);
    },
  );
});
