/**
 * Live views (`queue watch`, the demo) on a terminal: the alternate screen and a hidden cursor while
 * they run, each frame drawn from the top, fitted to the width and clipped to the height, drawn
 * again on a resize; when they end (normally, on Ctrl-C or on an error) the normal screen and the
 * cursor come back and the last frame is printed once. Off a terminal nothing of this is written.
 */
import { describe, expect, it } from 'vitest';
import { runQueueWatch } from '../../src/commands/queue/watch.js';
import { MqError } from '../../src/errors.js';
import type { Block } from '../../src/output/present.js';
import { displayWidth } from '../../src/output/width.js';
import { virtualClock } from '../helpers/clock.js';
import { testDeps } from '../helpers/deps.js';
import { fakeClient } from '../helpers/fake-client.js';
import { entry, queueRecord } from '../helpers/test-context.js';

const ALT_ON = '\x1b[?1049h';
const ALT_OFF = '\x1b[?1049l';
const HIDE = '\x1b[?25l';
const SHOW = '\x1b[?25h';

/** The frames drawn on the alternate screen, each as its lines (cursor and clear sequences removed). */
function frames(out: string): string[][] {
  const alt = out.slice(out.indexOf(ALT_ON), out.indexOf(ALT_OFF) < 0 ? undefined : out.indexOf(ALT_OFF));
  return alt
    .split('\x1b[H')
    .slice(1)
    .map((f) =>
      f
        .replace(/\x1b\[[JK]/g, '')
        .replace(/\n$/, '')
        .split('\n'),
    );
}

const long = (n: number) => ({
  ...entry(n, 'testing'),
  prTitle: `A long title for change ${n} that would wrap on any narrow terminal`,
  prAuthor: 'someone-with-a-long-name',
});
const rowsBlock = (n: number): Block[] => [
  { lines: ['title line that is rather long for a narrow terminal, it goes on'] },
  {
    headers: ['N', 'Text'],
    rows: Array.from({ length: n }, (_, i) => [String(i), 'x'.repeat(100)]),
    fit: { truncate: ['Text'] },
  },
];

describe('presenter.redraw on a terminal', () => {
  it('enters the alternate screen once, draws from the top, fits the width, clips the height', async () => {
    const { deps, io } = testDeps({ stdoutIsTTY: true, columns: 60, rows: 10 });
    await deps.out.redraw(rowsBlock(3));
    await deps.out.redraw(rowsBlock(20));
    expect(io.stdout.startsWith(`${ALT_ON}${HIDE}\x1b[H`)).toBe(true);
    expect(io.stdout.split(ALT_ON)).toHaveLength(2);
    const [first, second] = frames(io.stdout);
    expect(first).toHaveLength(7);
    // 10 rows: 9 lines at most (the last row stays free so nothing scrolls), the last saying what is hidden.
    expect(second).toHaveLength(9);
    expect(second?.at(-1)).toBe('… 16 more');
    for (const l of [...(first ?? []), ...(second ?? [])]) expect(displayWidth(l)).toBeLessThanOrEqual(60);
    expect(first?.[0]).toMatch(/…$/);
    expect(io.exitTexts).toEqual([`${ALT_OFF}${SHOW}`]);
  });

  it('draws the frame again when the terminal is resized', async () => {
    const { deps, io } = testDeps({ stdoutIsTTY: true, columns: 100, rows: 30 });
    await deps.out.redraw(rowsBlock(3));
    io.resize(50, 6);
    await deps.out.redraw(rowsBlock(3)); // waits for the resize's draw too
    const all = frames(io.stdout);
    expect(all).toHaveLength(3);
    expect(Math.max(...(all[0] ?? []).map(displayWidth))).toBeGreaterThan(50);
    for (const f of all.slice(1)) {
      expect(f).toHaveLength(5);
      for (const l of f) expect(displayWidth(l)).toBeLessThanOrEqual(50);
    }
  });

  it('endLive: back to the normal screen, cursor shown, the last frame once and whole', async () => {
    const { deps, io } = testDeps({ stdoutIsTTY: true, columns: 60, rows: 6 });
    await deps.out.redraw(rowsBlock(1));
    await deps.out.redraw(rowsBlock(8));
    await deps.out.endLive();
    const after = io.stdout.slice(io.stdout.indexOf(ALT_OFF));
    expect(after.startsWith(`${ALT_OFF}${SHOW}`)).toBe(true);
    const text = after.slice(`${ALT_OFF}${SHOW}`.length);
    expect(text).not.toContain('\x1b');
    // Not clipped to the height: all 8 rows, the title and the borders.
    expect(text.trimEnd().split('\n')).toHaveLength(12);
    for (const l of text.trimEnd().split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(60);
    expect(io.exitTexts).toEqual([]);
    // No second restore, and resizes no longer draw.
    await deps.out.endLive();
    io.resize(40);
    expect(io.stdout.slice(io.stdout.indexOf(ALT_OFF) + ALT_OFF.length)).not.toContain('\x1b[H');
    expect(io.stdout.split(ALT_OFF)).toHaveLength(2);
  });

  it('off a terminal a frame is just printed', async () => {
    const { deps, io } = testDeps({ stdoutIsTTY: false, columns: 30 });
    await deps.out.redraw(rowsBlock(2));
    await deps.out.endLive();
    expect(io.stdout).not.toContain('\x1b');
    expect(io.stdout).toContain('x'.repeat(100));
  });
});

describe('queue watch on a terminal', () => {
  it('Ctrl-C: the alternate screen is left, the cursor shown, the last frame kept', async () => {
    const ac = new AbortController();
    const fake = fakeClient({
      getQueue: [
        queueRecord({}, [long(1), long(2)]),
        () => {
          ac.abort();
          return queueRecord({}, [{ ...long(1), state: 'tests_passed' }, long(2)]);
        },
      ],
    });
    const { deps, io } = testDeps({
      clock: virtualClock(),
      fake,
      signal: ac.signal,
      stdoutIsTTY: true,
      columns: 60,
      rows: 40,
    });
    const result = await runQueueWatch({ interval: '5s', intervalMs: 5000 }, deps);
    expect(result.exitCode).toBe(130);
    expect(io.stdout.startsWith(ALT_ON)).toBe(true);
    expect(frames(io.stdout).length).toBeGreaterThanOrEqual(2);
    for (const f of frames(io.stdout)) for (const l of f) expect(displayWidth(l)).toBeLessThanOrEqual(60);
    const after = io.stdout.slice(io.stdout.indexOf(`${ALT_OFF}${SHOW}`) + ALT_OFF.length + SHOW.length);
    expect(after).toContain('#1');
    expect(after).toContain('tests_passed');
    expect(after).toContain('Ctrl-C to stop');
    expect(after).not.toContain('\x1b');
    for (const l of after.trimEnd().split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(60);
    expect(io.exitTexts).toEqual([]);
  });

  it('an error while watching still restores the screen', async () => {
    const fake = fakeClient({ getQueue: [queueRecord({}, [long(1)]), new MqError(3, 'reading the queue', 'refused')] });
    const { deps, io } = testDeps({ clock: virtualClock(), fake, stdoutIsTTY: true, columns: 60 });
    await expect(runQueueWatch({ interval: '5s', intervalMs: 5000 }, deps)).rejects.toThrow();
    expect(io.stdout).toContain(ALT_ON);
    expect(io.stdout).toContain(`${ALT_OFF}${SHOW}`);
    expect(io.stdout.lastIndexOf(ALT_OFF)).toBeGreaterThan(io.stdout.lastIndexOf('\x1b[H'));
    expect(io.exitTexts).toEqual([]);
  });
});
