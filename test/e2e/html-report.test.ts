import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeStats } from '../../src/stats/compute.js';
import type { ConcludedPr } from '../../src/stats/model.js';
import { histogram, htmlReport } from '../../src/views/charts.js';
import { statsFields } from '../../src/views/stats.js';
import { CHROMIUM, chromium } from '../helpers/chromium.js';
import { countColour, readPng } from '../helpers/png.js';

describe.skipIf(!CHROMIUM)(`the HTML report in headless Chromium${CHROMIUM ? '' : ' (skipped: no chromium installed)'}`, () => {
  const T0 = Date.parse('2026-11-20T00:00:00Z');
  const H = 3_600_000;
  // 12 hours; PR i merges in hour i % 12 after (10 + 7 i) minutes.
  const prs: ConcludedPr[] = Array.from({ length: 30 }, (_, i) => {
    const concludedAt = T0 + (i % 12) * H + 50 * 60_000;
    return { number: i + 1, state: 'merged', submittedAt: concludedAt - (10 + 7 * i) * 60_000, concludedAt };
  });
  const { stats, series } = computeStats({ window: { since: T0, until: T0 + 12 * H }, prs, attempts: [], settings: null });
  const bins = histogram(series.timeToMergeSeconds).length;
  const dir = mkdtempSync(join(tmpdir(), 'mq-report-'));
  const file = join(dir, 'report.html');
  writeFileSync(
    file,
    htmlReport(
      stats,
      series,
      { queue: 'main of github.com/acme/<b>widgets</b>', generatedAt: '2026-11-20T12:00:00Z' },
      statsFields(stats, true).map((f) => [f.label, f.value]),
    ),
  );

  it('has one bar per hour and one per time-to-merge range in the rendered DOM', () => {
    const dom = chromium(['--dump-dom', `file://${file}`]);
    expect(dom.match(/<rect class="bar"/g)).toHaveLength(12);
    expect(bins).toBe(8);
    expect(dom.match(/<rect class="bin"/g)).toHaveLength(bins);
    expect(dom).toContain('github.com/acme/&lt;b&gt;widgets&lt;/b&gt;');
    expect(dom).toContain('<th>time to merge p50</th><td>1h 48m</td>'); // PR 15 of 30 took 10 + 7 x 14 minutes
  });

  it('renders: the screenshot is not blank and shows both charts in their colours', () => {
    const png = join(dir, 'shot.png');
    chromium([`--screenshot=${png}`, '--window-size=900,1100', `file://${file}`]);
    const img = readPng(readFileSync(png));
    expect([img.width, img.height]).toEqual([900, 1100]);
    const white = countColour(img, [255, 255, 255], 4);
    expect(white).toBeLessThan(img.width * img.height * 0.98);
    expect(countColour(img, [0x3b, 0x7d, 0xd8])).toBeGreaterThan(2000); // merges per hour bars
    expect(countColour(img, [0xd8, 0x83, 0x3b])).toBeGreaterThan(2000); // time-to-merge bars
  });
});
