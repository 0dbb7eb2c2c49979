/**
 * `mq queue simulate --compare` as a person sees it in a real terminal of 60 and 80 columns (tmux,
 * wrapped lines joined): the table and its legend fit the width, and no settings label is cut.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { displayWidth } from '../../../../src/output/width.js';
import { baseEnv } from '../../../helpers/run-cli.js';
import { SMALL_SIMULATION } from '../../../helpers/simulate.js';
import { hasTmux, terminal } from '../../../helpers/tmux.js';

const ARGS = ['queue', 'simulate', ...SMALL_SIMULATION];
const COMPARE = ['--jobs', '1', '--compare', 'concurrency=4', '--compare', 'concurrency=4,batch=4'];
const LABELS = ['baseline (falls behind)', 'concurrency=4', 'concurrency=4,batch=4'];

const kills: Array<() => void> = [];
afterEach(() => {
  for (const kill of kills.splice(0)) kill();
});

describe.skipIf(!hasTmux)('mq queue simulate --compare in a real terminal', () => {
  for (const cols of [60, 80]) {
    it(`${cols} columns: the table and its legend fit, every settings label whole`, async () => {
      const t = terminal([...ARGS, ...COMPARE], cols, 60, baseEnv());
      kills.push(t.kill);
      const screen = await t.until(/exit=\d+/, true, 40_000);
      expect(screen).toContain('exit=0');
      const lines = screen.split('\n');
      // From the table's top border to the recommendation (the prose lines around it wrap on their own).
      const block = lines.slice(
        lines.findIndex((l) => l.startsWith('┌')),
        lines.findIndex((l) => l.startsWith('Recommended')),
      );
      expect(block.length).toBeGreaterThan(6);
      for (const line of block) expect(displayWidth(line), line).toBeLessThanOrEqual(cols);
      expect(block.join('\n')).not.toContain('…');
      for (const label of LABELS)
        expect(
          block.some((l) => l.includes(label)),
          label,
        ).toBe(true);
      expect(block.some((l) => l.startsWith('* = best in column among the 2 rows that keep up'))).toBe(true);
    }, 60_000);
  }
});
